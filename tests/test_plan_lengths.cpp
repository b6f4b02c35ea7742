// plan over batches of mixed lengths (issue 37.1): --context-lens / --isl / --osl drawn for each
// point's batch (prefill: --isl prompts filling each point's batch). Closed-form cases: a
// one-length list repeated, or a fixed input length with no output, is every request at that length
// - the plan of --context with that length.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/analysis/length_spec.hpp"
#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;

namespace {

// `overlapsim plan --json` for V3 on 32 H800s: `phase` with its target, then `extra`.
Json plan(const std::vector<std::string>& phase, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan",     "--model", "deepseek-v3", "--hw",
                                   "h800-sxm", "--gpus",  "32",          "--json"};
  args.insert(args.end(), phase.begin(), phase.end());
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out);
}

Json plan_best(const std::vector<std::string>& extra) {
  return plan({"--phase", "decode", "--tpot-ms", "50"}, extra)["best"];
}

Json prefill_plan(const std::vector<std::string>& extra) {
  return plan({"--phase", "prefill", "--ttft-ms", "2000"}, extra);
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
  CHECK_THAT(prefill.err, Catch::Contains("'--prompt-len': give the prompt lengths once"));
  const CliResult osl = cli({"plan", "--phase", "prefill", "--gpus", "32", "--ttft-ms", "2000",
                             "--isl", "2000", "--osl", "100"});
  CHECK(osl.code == 2);
  CHECK_THAT(osl.err, Catch::Contains("'--osl': is for decode"));
  const CliResult neither =
      cli({"plan", "--phase", "prefill", "--gpus", "32", "--ttft-ms", "2000"});
  CHECK(neither.code == 2);
  CHECK_THAT(neither.err, Catch::Contains("or --isl"));
}

TEST_CASE("prefill plan: one drawn length is the plan of --prompt-len", "[plan][lengths]") {
  // --isl 3000 draws 3000-token prompts until a batch is full, the last cut to fit: the batch
  // --prompt-len 3000 makes, and a 3000-token TTFT (chunked where the batch is smaller).
  const Json fixed = prefill_plan({"--prompt-len", "3000"});
  const Json drawn = prefill_plan({"--isl", "3000"});
  REQUIRE(fixed["frontier"].size() == drawn["frontier"].size());
  for (size_t i = 0; i < fixed["frontier"].size(); ++i) {
    const Json& a = fixed["frontier"][i];
    const Json& b = drawn["frontier"][i];
    CHECK(a["tokens_per_gpu"] == b["tokens_per_gpu"]);
    CHECK(a["latency_ms"] == b["latency_ms"]);
    CHECK(b["ttft_prompt"] == 3000);
  }
  CHECK(fixed["best"]["latency_ms"] == drawn["best"]["latency_ms"]);
  CHECK(drawn["prompt_len"].is_null());
}

TEST_CASE("prefill plan over a prompt distribution: the TTFT of the longest drawn prompt",
          "[plan][lengths]") {
  const std::string spec = "uniform:100,30000";
  const Json j = prefill_plan({"--isl", spec, "--seed", "7"});
  const ovs::LengthSpec isl =
      ovs::parse_length_spec(spec, false, [](const std::string& m) { FAIL(m); });
  REQUIRE(!j["frontier"].empty());
  for (const auto& p : j["frontier"]) {
    const long long tokens = p["tokens_per_gpu"];
    // The point's prompts: drawn with the plan's seed until they hold its tokens.
    std::int64_t longest = 0;
    ovs::fill_tokens(isl, tokens, 7, &longest);
    CHECK(p["ttft_prompt"] == longest);
    // One forward when the batch holds the longest prompt, else one per chunk of it.
    const long long chunks = longest <= tokens ? 1 : (longest + tokens - 1) / tokens;
    CHECK(p["latency_ms"].get<double>() ==
          Approx(double(chunks) * p["forward_us"].get<double>() / 1000).epsilon(1e-9));
  }
}
