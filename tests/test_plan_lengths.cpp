// plan over batches of mixed lengths (issue 37.1): --context-lens / --isl / --osl drawn for each
// point's batch. Closed-form cases: a one-length list repeated, or a fixed input length with no
// output, is every request at that length - the plan of --context with that length.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;

namespace {

Json plan_best(std::vector<std::string> extra) {
  std::vector<std::string> args = {"plan",     "--model",   "deepseek-v3", "--hw",
                                   "h800-sxm", "--phase",   "decode",      "--gpus",
                                   "32",       "--tpot-ms", "50",          "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out)["best"];
}

}  // namespace

TEST_CASE("plan: one length for every request is the plan of --context", "[plan][lengths]") {
  const Json base = plan_best({"--context", "2000"});
  for (const auto& extra :
       std::vector<std::vector<std::string>>{{"--context-lens", "2000"}, {"--isl", "2000"}}) {
    const Json b = plan_best(extra);
    CHECK(b["strategy"] == base["strategy"]);
    CHECK(b["tokens_per_gpu"] == base["tokens_per_gpu"]);
    CHECK(b["latency_ms"] == base["latency_ms"]);
  }
}

TEST_CASE("plan: longer contexts over a request's life cost more per token", "[plan][lengths]") {
  // Input 2000 plus a uniform share of 2000 output tokens: contexts from 2000 to 4000 instead of
  // all at 2000. Every point of the grid is then as slow or slower, so the best throughput
  // within the target cannot rise.
  const Json fixed = plan_best({"--isl", "2000", "--tokens-per-gpu", "16"});
  const Json grown = plan_best({"--isl", "2000", "--osl", "2000", "--tokens-per-gpu", "16"});
  REQUIRE(!fixed.is_null());
  REQUIRE(!grown.is_null());
  CHECK(grown["tokens_per_s_per_gpu"].get<double>() <= fixed["tokens_per_s_per_gpu"].get<double>());
}

TEST_CASE("plan: bad length words are flag errors", "[plan][lengths]") {
  const CliResult bad = cli({"plan", "--gpus", "32", "--tpot-ms", "50", "--isl", "foo:3"});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--isl"));
  const CliResult both =
      cli({"plan", "--gpus", "32", "--tpot-ms", "50", "--isl", "2000", "--context", "2000"});
  CHECK(both.code == 2);
  CHECK_THAT(both.err, Catch::Contains("give the KV lengths once"));
  const CliResult prefill = cli({"plan", "--phase", "prefill", "--gpus", "32", "--ttft-ms", "2000",
                                 "--prompt-len", "4096", "--isl", "2000"});
  CHECK(prefill.code == 2);
  CHECK_THAT(prefill.err, Catch::Contains("'--isl': is for decode"));
}
