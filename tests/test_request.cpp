// The one request resolver: a workload in the user's words (flags or a sweep point's fields) to
// the Workload every analysis runs, with the rules between fields written once.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/analysis/request.hpp"
#include "helpers.hpp"
#include "sim/core/error.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

WorkloadWords decode_words() {
  WorkloadWords w;
  w.phase = "decode";
  w.tokens_per_gpu = 64;
  w.context = 2048;
  w.ep = 16;
  return w;
}

std::string error_of(const WorkloadWords& words, const RequestSource& from) {
  try {
    resolve_workload(words, from);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("words become a workload; auto leaves the DeepEP mode to the phase or a strategy",
          "[request]") {
  WorkloadWords words = decode_words();
  words.imbalance = 1.3;
  words.decode_q_len = 2;
  const Workload w = resolve_workload(words, RequestSource{});
  CHECK(w.phase == Phase::decode);
  CHECK(w.tokens_per_gpu == 64);
  CHECK(w.ep == 16);
  CHECK(w.imbalance == 1.3);
  // decode_q_len 2 (MTP): 64 requests x 2 query tokens = 128 tokens this GPU processes.
  CHECK(w.tokens() == 128);
  // auto: no mode chosen yet (decode's default is low-latency, a strategy may choose another).
  CHECK(!w.deepep_mode);
  CHECK(w.mode() == DeepepMode::low_latency);
  CHECK(w.graphs());            // decode: CUDA graphs on by default
  CHECK(w.gpus_per_node == 0);  // auto until the profile is known
}

TEST_CASE("DeepEP normal mode turns CUDA graphs left to auto off, and refuses them asked on",
          "[request]") {
  WorkloadWords words = decode_words();
  words.deepep_mode = "normal";
  // Decode would capture CUDA graphs by default; normal mode blocks the host on its receive
  // counts, which no graph can capture: auto becomes off.
  const Workload w = resolve_workload(words, RequestSource{});
  CHECK(w.deepep_mode == DeepepMode::normal);
  CHECK(!w.graphs());
  // Asked on: an error naming the flag on the command line...
  words.cuda_graphs = "on";
  CHECK(error_of(words, RequestSource{}) ==
        "command line: field '--cuda-graphs': DeepEP normal mode blocks the host on its counts "
        "and cannot be captured in a CUDA graph");
  // ... and the file, the line and the field in a sweep spec.
  CHECK(error_of(words, RequestSource{"spec.yaml", {{"cuda_graphs", 7}}}) ==
        "spec.yaml:7: field 'cuda_graphs': DeepEP normal mode blocks the host on its counts and "
        "cannot be captured in a CUDA graph");
  // Low-latency mode runs under CUDA graphs.
  words.deepep_mode = "low_latency";
  CHECK(resolve_workload(words, RequestSource{}).graphs());
}

TEST_CASE("an unknown word names its flag or field", "[request][bad-input]") {
  WorkloadWords words = decode_words();
  words.phase = "training";
  CHECK(error_of(words, RequestSource{}) ==
        "command line: field '--phase': expected prefill or decode, got 'training'");
  words = decode_words();
  words.deepep_mode = "low-latency";
  CHECK(error_of(words, RequestSource{"s.yaml", {}}) ==
        "s.yaml: field 'deepep_mode': expected normal, low_latency or auto, got 'low-latency'");
}

TEST_CASE("a strategy's DeepEP mode applies unless the user gave one", "[request]") {
  Strategy normal;
  normal.file = "normal.yaml";
  normal.deepep_mode = DeepepMode::normal;
  // Decode, mode auto: the strategy's normal mode applies, and with it CUDA graphs go off.
  Workload w = resolve_workload(decode_words(), RequestSource{});
  const Workload ran = for_strategy(w, normal);
  CHECK(ran.mode() == DeepepMode::normal);
  CHECK(!ran.graphs());
  // The user asked low-latency: the strategy may not override it.
  WorkloadWords ll = decode_words();
  ll.deepep_mode = "low_latency";
  CHECK(for_strategy(resolve_workload(ll, RequestSource{}), normal).mode() ==
        DeepepMode::low_latency);
  // CUDA graphs asked on, and the strategy wants normal mode: the strategy's file is named.
  WorkloadWords on = decode_words();
  on.cuda_graphs = "on";
  try {
    for_strategy(resolve_workload(on, RequestSource{}), normal);
    FAIL("normal mode ran under CUDA graphs");
  } catch (const InputError& e) {
    CHECK(e.file() == "normal.yaml");
    CHECK(e.field() == "deepep_mode");
  }
}

TEST_CASE("GPUs per node left to auto are the profile's NVLink domain", "[request][nvlink]") {
  const Workload w = resolve_workload(decode_words(), RequestSource{});
  // h800-sxm: an 8-GPU HGX board; gb200: 72 GPUs in one NVL72 domain.
  CHECK(in_nvlink_domain(w, load_hw_profile("h800-sxm")).gpus_per_node == 8);
  CHECK(in_nvlink_domain(w, load_hw_profile("gb200")).gpus_per_node == 72);
  // Given, it stays.
  Workload given = w;
  given.gpus_per_node = 4;
  CHECK(in_nvlink_domain(given, load_hw_profile("gb200")).gpus_per_node == 4);
}

TEST_CASE("whatif runs decode in DeepEP normal mode eagerly when CUDA graphs are left to auto",
          "[request][whatif]") {
  // As a sweep point does (both resolve through resolve_workload).
  const CliResult w = cli({"whatif", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase",
                           "decode", "--tokens-per-gpu", "32", "--context", "2048", "--ep", "16",
                           "--deepep-mode", "normal", "--strategy", "tbo-decode", "--json"});
  INFO(w.err);
  REQUIRE(w.code == 0);
  const auto j = nlohmann::json::parse(w.out);
  CHECK(j["cuda_graphs"] == false);
  CHECK(j["deepep_mode"] == "normal");
}
