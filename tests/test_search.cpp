// search: the search machinery finds a planted optimum; on the shipped cases the searched strategy
// beats or matches SGLang's, and the YAML it writes is a strategy whatif accepts.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/search/search_run.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {
Candidate branch(const std::vector<std::string>& ops) {
  Candidate c;
  c.ops = ops;
  c.yield_after.assign(ops.size(), 0);
  return c;
}
}  // namespace

TEST_CASE("search finds a planted optimum", "[search]") {
  // A synthetic cost: the Hamming distance of the yields to a planted set, plus the distance of
  // delta to 1, plus 5 for the one-batch candidate; the planted candidate costs exactly 0.
  const std::vector<std::string> ops{
      "comm_prepare_attn", "attn.prepare",   "attn.core",  "comm_prepare_mlp", "gate",
      "select_experts",    "dispatch_a",     "dispatch_b", "experts",          "combine_a",
      "combine_b",         "shared_experts", "output",     "postprocess_layer"};
  const auto gaps = yield_gaps(ops);
  std::vector<char> planted(ops.size(), 0);
  planted[gaps[1]] = planted[gaps[3]] = planted[gaps[5]] = 1;
  auto cost = [&](const Candidate& c) {
    if (!c.tbo) return 5.0;
    double d = std::abs(c.delta - 1);
    for (size_t i = 0; i < ops.size(); ++i) d += c.yield_after[i] != planted[i];
    return d;
  };
  auto no_bound = [](const Candidate&) { return 0.0; };
  SECTION("exhaustively when the space fits the budget") {
    const LayerSearch s = search_layer({branch(ops)}, cost, no_bound, 3, 1'000'000);
    REQUIRE(!s.top.empty());
    CHECK(s.stats.exhaustive);
    CHECK(s.top.front().us == 0.0);
    CHECK(s.top.front().c.yield_after == planted);
    CHECK(s.top.front().c.delta == 1);
  }
  SECTION("by beam search when it does not") {
    const LayerSearch s = search_layer({branch(ops)}, cost, no_bound, 3, 200);
    REQUIRE(!s.top.empty());
    CHECK_FALSE(s.stats.exhaustive);
    CHECK(s.stats.evaluated <= 230);
    CHECK(s.top.front().us == 0.0);
    CHECK(s.top.front().c.yield_after == planted);
  }
  SECTION("branches whose bound cannot beat the best are pruned") {
    auto bound = [](const Candidate& c) { return c.mode == DeepepMode::normal ? 100.0 : 0.0; };
    Candidate other = branch(ops);
    other.mode = DeepepMode::normal;
    const LayerSearch s = search_layer({branch(ops), other}, cost, bound, 3, 1'000'000);
    CHECK(s.stats.pruned_branches == 1);
  }
}

TEST_CASE("search beats or matches SGLang's shipped strategy on the shipped cases",
          "[search][slow]") {
  struct Case {
    const char* model;
    Phase phase;
    long long tokens, context;
  };
  for (const Case& k : {Case{"deepseek-v3", Phase::decode, 128, 4096},
                        Case{"deepseek-v3", Phase::prefill, 8192, 4096},
                        Case{"deepseek-v4-pro", Phase::decode, 64, 8192},
                        Case{"deepseek-v4-pro", Phase::prefill, 4096, 8192}}) {
    INFO(k.model << " " << (k.phase == Phase::decode ? "decode" : "prefill"));
    SearchRequest r;
    r.base.model = k.model;
    r.base.hw = "h800-sxm";
    r.base.workload.phase = k.phase;
    r.base.workload.tokens_per_gpu = k.tokens;
    r.base.workload.context = k.context;
    r.base.workload.ep = 32;
    r.base.strategy = k.phase == Phase::decode ? "tbo-decode" : "tbo-prefill";
    const auto out = std::filesystem::temp_directory_path() / "overlapsim-tests" / "searched.yaml";
    std::filesystem::create_directories(out.parent_path());
    const SearchReport rep = run_search(r);
    std::ofstream(out) << rep.best_yaml;
    CHECK(rep.ranked.front().forward_us <= rep.shipped.forward_us);
    // The written strategy runs through whatif and gives the time the search reported.
    const CliResult w = cli({"whatif", "--model", k.model, "--hw", "h800-sxm", "--phase",
                             k.phase == Phase::decode ? "decode" : "prefill", "--tokens-per-gpu",
                             std::to_string(k.tokens), "--context", std::to_string(k.context),
                             "--ep", "32", "--strategy", out.string(), "--json"});
    INFO(w.err);
    REQUIRE(w.code == 0);
    CHECK(nlohmann::json::parse(w.out)["overlapped_us"].get<double>() ==
          Approx(rep.ranked.front().forward_us));
  }
}
