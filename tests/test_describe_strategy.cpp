// describe strategy NAME: what a strategy does without reading its YAML - ops and Yield points
// per layer type, where each placed kernel runs (stream, events, SM caps), the SM split, and
// SGLang's status, phases, flags, environment and sources; --json gives the same as one object.
// Every expected value below is read from the strategy file through the loader every command uses.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/strategy/strategy.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;
using Json = nlohmann::json;

namespace {

Strategy shipped(const std::string& name, ModelFamily f) {
  return load_strategy(name, f);
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("describe strategy: ops, placements and streams, SGLang's status and source",
          "[cli][describe]") {
  const Strategy s = shipped("combine-shared-down-tail", ModelFamily::v4);
  const CliResult r = cli({"describe", "strategy", "combine-shared-down-tail"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "strategy 'combine-shared-down-tail' for deepseek-v4"));
  CHECK(has(r.out, s.description));
  // The file's own explanation (its header comment), so a user need not open it.
  CHECK(has(r.out, "Candidate from seed 2's section 3.3"));
  CHECK(has(r.out, "not in SGLang: SGLang does not run it"));
  CHECK(has(r.out, s.sglang.source));
  for (const auto& [type, l] : s.layers) {
    CHECK(has(r.out, "Layer type '" + type + "'"));
    for (const auto& p : l.placement) {
      INFO(type << ": " << p.op << " / " << p.kernel);
      CHECK(has(r.out, p.op + " / " + p.kernel));
    }
  }
  for (const auto& stream : s.side_streams) CHECK(has(r.out, stream));
  CHECK(has(r.out, "waits shared_act_done; records shared_done"));  // shared_down on side0
}

TEST_CASE("describe strategy --json: the loader's ops, yields, placements and SGLang block",
          "[cli][describe]") {
  const Strategy s = shipped("tbo-decode", ModelFamily::v3);
  const CliResult r =
      cli({"describe", "strategy", "tbo-decode", "--model", "deepseek-v3", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["kind"] == "strategy");
  REQUIRE(j["strategies"].size() == 1);  // --model picks the family
  const Json& d = j["strategies"][0];
  CHECK(d["name"] == "tbo-decode");
  CHECK(d["family"] == "deepseek-v3");
  CHECK(d["two_batch_overlap"] == s.two_batch_overlap);
  CHECK(d["tbo_delta_stages"] == s.delta_stages);
  CHECK(d["deepep_mode"] == "low_latency");
  CHECK(d["sglang"]["status"] == s.sglang.status);
  CHECK(d["sglang"]["flags"] == s.sglang.flags);
  CHECK(d["sglang"]["phases"] == s.sglang.phases);
  CHECK(d["sglang"]["source"] == s.sglang.source);
  REQUIRE(d["layers"].size() == s.layers.size());
  const LayerStrategy& moe = s.layers.at("moe");
  const Json& jl = d["layers"][0];
  CHECK(jl["layer_type"] == "moe");
  CHECK(jl["operations"] == moe.items);
  // A yield's position: the op just before it in the list.
  std::vector<std::string> after;
  for (size_t i = 1; i < moe.items.size(); ++i)
    if (moe.items[i] == kYield) after.push_back(moe.items[i - 1]);
  CHECK(jl["yields_after"] == after);
  CHECK(jl["stages"].size() == stages_of(moe).size());
  CHECK(jl["ends_with_yield"] == (moe.items.back() == kYield));
}

TEST_CASE("describe strategy: the SM split and the environment SGLang needs", "[cli][describe]") {
  const Json prefill =
      Json::parse(cli({"describe", "strategy", "tbo-prefill", "--model", "v3", "--json"}).out);
  CHECK(prefill["strategies"][0]["deep_gemm_num_sms"] == "auto");
  const CliResult text = cli({"describe", "strategy", "tbo-prefill", "--model", "v3"});
  CHECK(has(text.out, "deep_gemm_num_sms: auto"));
  const Strategy ms = shipped("multistream", ModelFamily::v4);
  const CliResult m = cli({"describe", "strategy", "multistream"});
  REQUIRE(m.code == 0);
  for (const auto& e : ms.sglang.env) CHECK(has(m.out, e));
  for (const auto& [arch, n] : ms.sglang.max_tokens_per_gpu)
    CHECK((has(m.out, fmt::format("at most {} tokens per GPU on {}", n, arch)) ||
           has(m.out, fmt::format("{} on {}", n, arch))));
  CHECK(has(m.out, "only under CUDA graphs"));
  CHECK(has(m.out, "on amd GPUs SGLang runs 'multistream-hip' instead"));
}

TEST_CASE("describe strategy: a name shipped for both families shows both", "[cli][describe]") {
  // sbo exists as strategies/deepseek-v3/sbo.yaml and strategies/deepseek-v4/sbo.yaml.
  const Json j = Json::parse(cli({"describe", "strategy", "sbo", "--json"}).out);
  REQUIRE(j["strategies"].size() == 2);
  CHECK(j["strategies"][0]["family"] == "deepseek-v3");
  CHECK(j["strategies"][1]["family"] == "deepseek-v4");
  const CliResult v4 = cli({"describe", "strategy", "sbo", "--model", "deepseek-v4-pro", "--json"});
  REQUIRE(v4.code == 0);
  CHECK(Json::parse(v4.out)["strategies"].size() == 1);
}

TEST_CASE("describe strategy: an unknown name is one line and exit 2",
          "[cli][describe][bad-input]") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"describe", "strategy", "tbo-decod"},
           {"describe", "strategy", "tbo-decod", "--json"},
           {"describe", "strategy", "multistream", "--model", "deepseek-v3"},  // V4's only
           {"describe", "strategy", "sbo", "--model", "deepseek-v9"},
           {"describe", "strategy", "sbo", "--template"},
           {"describe", "hw", "h800", "--model", "deepseek-v3"}}) {
    const CliResult r = cli(args);
    INFO(args[2] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const CliResult r = cli({"describe", "strategy", "tbo-decod"});
  CHECK(has(r.err, "name"));
  CHECK(has(r.err, "did you mean 'tbo-decode'?"));
}
