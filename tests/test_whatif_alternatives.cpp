// whatif names the best of SGLang's strategies at the point: without --strategy it runs that
// one, and every verdict ends with the alternatives and the plan command.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace ovs::test;

namespace {

std::vector<std::string> v3_decode(std::vector<std::string> extra) {
  std::vector<std::string> args{"whatif",  "--model",          "deepseek-v3", "--hw", "h800-sxm",
                                "--phase", "decode",           "--ep",        "32",   "--context",
                                "4096",    "--tokens-per-gpu", "64"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("whatif without --strategy runs the best of SGLang's strategies for the phase",
          "[whatif][alternatives]") {
  const auto r = cli(v3_decode({"--json"}));
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& alts = j["sglang_alternatives"];
  REQUIRE(alts.size() >= 2);
  // Fastest first; the strategy run is the first, with the same speedup.
  for (size_t i = 1; i < alts.size(); ++i)
    CHECK(alts[i - 1]["speedup"].get<double>() >= alts[i]["speedup"].get<double>());
  CHECK(j["strategy"] == alts[0]["strategy"]);
  CHECK(j["best_sglang_strategy"] == alts[0]["strategy"]);
  CHECK(j["speedup"].get<double>() == Approx(alts[0]["speedup"].get<double>()));
  // Only strategies SGLang runs for decode: never the baseline, never tbo-prefill.
  for (const auto& a : alts) {
    CHECK(a["strategy"] != "no-overlap");
    CHECK(a["strategy"] != "tbo-prefill");
  }
  // Naming a strategy runs it, and the alternatives are the same list.
  const auto named =
      nlohmann::json::parse(cli(v3_decode({"--json", "--strategy", "tbo-decode"})).out);
  CHECK(named["strategy"] == "tbo-decode");
  CHECK(named["sglang_alternatives"] == alts);
  // Each alternative's speedup is that strategy's own what-if.
  for (const auto& a : alts) {
    const auto one = nlohmann::json::parse(
        cli(v3_decode({"--json", "--strategy", a["strategy"].get<std::string>()})).out);
    CHECK(one["speedup"].get<double>() == Approx(a["speedup"].get<double>()));
  }
}

TEST_CASE("a single-strategy verdict ends with the alternatives and the plan command",
          "[whatif][alternatives]") {
  const auto r = cli(v3_decode({"--strategy", "tbo-decode"}));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("SGLang's strategies here, against 'no-overlap':") != std::string::npos);
  CHECK(r.out.find("Best at this point:") != std::string::npos);
  CHECK(r.out.find("overlapsim plan --model deepseek-v3 --hw h800-sxm --phase decode --gpus 32 "
                   "--context 4096") != std::string::npos);
  // --no-alternatives runs the named strategy alone.
  const auto alone = nlohmann::json::parse(
      cli(v3_decode({"--json", "--strategy", "tbo-decode", "--no-alternatives"})).out);
  CHECK(!alone.contains("sglang_alternatives"));
  CHECK(alone["strategy"] == "tbo-decode");
}
