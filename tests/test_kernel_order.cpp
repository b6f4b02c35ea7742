// Layer types are values, op order comes from the op graph, and a strategy's side-stream
// placement must keep every kernel after the kernels it reads from (the model's kernel_deps).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "helpers.hpp"
#include "models/config/model_config.hpp"
#include "models/graph/layer_builder.hpp"
#include "models/hw/hw_profile.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

// The shipped multi-stream plan with `from` replaced by `to` (every occurrence), as a file.
std::string edited_multistream(const std::string& name, const std::string& from,
                               const std::string& to) {
  std::string text = file_bytes(source_path("strategies/deepseek-v4/multistream.yaml"));
  size_t at = 0, n = 0;
  while ((at = text.find(from, at)) != std::string::npos) {
    text.replace(at, from.size(), to);
    at += to.size();
    ++n;
  }
  REQUIRE(n > 0);
  // The CUDA plan itself on every GPU: without its vendor_plans line (on AMD the shipped file
  // hands over to multistream-hip).
  const std::string vendor = "vendor_plans: {amd: multistream-hip}\n";
  REQUIRE(text.find(vendor) != std::string::npos);
  text.erase(text.find(vendor), vendor.size());
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests" / "kernel-order";
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".yaml");
  std::ofstream(file) << text;
  return file.string();
}

CliResult v4_whatif(const std::string& hw, const std::string& strategy) {
  return cli({"whatif", "--model", "deepseek-v4-pro", "--hw", hw, "--phase", "prefill",
              "--tokens-per-gpu", "512", "--context", "512", "--ep", "8", "--strategy", strategy});
}

}  // namespace

TEST_CASE("layer types are values with the names strategies use", "[kernel-order]") {
  for (const auto& name : layer_type_names()) {
    const auto t = parse_layer_type(name);
    REQUIRE(t);
    CHECK(to_string(*t) == name);
  }
  CHECK(!parse_layer_type("default"));
  CHECK(!parse_layer_type("MoE"));
}

TEST_CASE("op order is the op graph's declaration order, a topological order", "[kernel-order]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  const Workload w = workload(Phase::decode, 64, 1024, 32);  // Workload's default phase
  for (const char* model : {"deepseek-v3", "deepseek-v4-pro"}) {
    const ModelConfig m = load_model_config(model);
    const LayerBuilder lb(m, hw, w);
    for (const LayerType t : lb.layer_types()) {
      INFO(model << " " << to_string(t));
      const auto order = lb.canonical_ops(t);
      CHECK(order == lb.op_graph(t).nodes());
      CHECK(lb.op_graph(t).check_order(order).empty());
      // A built layer lists its ops in that order.
      int layer = 0;
      while (lb.layer_type(layer) != t) ++layer;
      const LayerPlan p = lb.build(layer, whole_batch(w), "A");
      std::vector<std::string> built;
      for (const auto& o : p.ops) built.push_back(o.op);
      CHECK(built == order);
    }
  }
}

TEST_CASE("a side-stream kernel not ordered after what it reads is a located error",
          "[kernel-order]") {
  // ROCm's swa_scatter copies what the KV write stores; the shipped plan runs it after the KV
  // write on side0. Without that placement it would run on the compute stream while the KV
  // write may still be running on side0: the strategy is refused on MI355X, at the KV write's
  // placement line, and accepted where the kernel is not launched (H200).
  const std::string line =
      "      - {op: attn, kernel: swa_scatter, stream: side0, record: [kv_done], optional: true}";
  const std::string file = edited_multistream("no-swa-placement", line, "");
  const CliResult amd = v4_whatif("mi355x", file);
  CHECK(amd.code == 2);
  CHECK(amd.err.find(file + ":") != std::string::npos);
  CHECK(amd.err.find("'swa_scatter' of op 'attn' reads what 'kv_write' writes") !=
        std::string::npos);
  CHECK(v4_whatif("h200", file).code == 0);
  CHECK(v4_whatif("mi355x", source_path("strategies/deepseek-v4/multistream.yaml")).code == 0);

  // The indexer's Q projection reads q_a_norm's output: on side3 without the wait on the event
  // q_a_norm records, nothing orders it.
  const std::string unordered = edited_multistream(
      "indexer-q-unordered", "kernel: indexer_q, stream: side3, wait: [q_lora_ready]",
      "kernel: indexer_q, stream: side3");
  const CliResult r = v4_whatif("h200", unordered);
  CHECK(r.code == 2);
  CHECK(r.err.find("'indexer_q' of op 'attn' reads what 'q_a_norm' writes") != std::string::npos);

  // Declaring the consumer independent of a kernel it does not read from is refused.
  const std::string wrong = edited_multistream(
      "independent-of-wrong", "kernel: attention, wait: [kv_done, compressor_done, indexer_done]",
      "kernel: attention, independent_of: [wqkv_a], wait: [kv_done, compressor_done, "
      "indexer_done]");
  const CliResult bad = v4_whatif("h200", wrong);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("independent_of") != std::string::npos);
  CHECK(bad.err.find("does not read from 'wqkv_a'") != std::string::npos);

  // The KV-store candidate declares that its attention does not need the store: accepted.
  CHECK(v4_whatif("mi355x", "kv-store-next-indexer").code == 0);
}
