// Our flags speak SGLang where it is unambiguous (issue 34.2): --ep-size / --expert-parallel-size
// as --ep, Hugging Face ids as model names (the model configs' aliases), an unknown flag named
// whatever it is, and open bounds printed as "> 0".
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;

namespace {

const std::vector<std::string> kPoint = {
    "whatif", "--hw",      "h800-sxm", "--phase",    "decode", "--tokens-per-gpu",
    "64",     "--context", "4096",     "--strategy", "sbo",    "--no-alternatives",
    "--json"};

Json whatif_with(std::vector<std::string> extra) {
  auto args = kPoint;
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out);
}

}  // namespace

TEST_CASE("SGLang's --ep-size and --expert-parallel-size are --ep", "[cli][sglang-words]") {
  const Json ep = whatif_with({"--ep", "32"});
  for (const char* alias : {"--ep-size", "--expert-parallel-size"}) {
    const Json j = whatif_with({alias, "32"});
    CHECK(j["speedup"] == ep["speedup"]);
    CHECK(j["ep"] == 32);
  }
}

TEST_CASE("Hugging Face ids name the shipped models", "[cli][sglang-words]") {
  const Json by_name = whatif_with({"--ep", "32", "--model", "deepseek-v3"});
  for (const char* id : {"deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1"}) {
    const Json j = whatif_with({"--ep", "32", "--model", id});
    CHECK(j["model"] == "deepseek-v3");
    CHECK(j["speedup"] == by_name["speedup"]);
  }
  auto args = kPoint;
  args.insert(args.end(), {"--ep", "32", "--model", "deepseek-ai/DeepSeek-V9"});
  const CliResult r = cli(args);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nor a Hugging Face id of a shipped model"));
}

TEST_CASE("An unknown flag is named even with no flag near it", "[cli][sglang-words]") {
  auto args = kPoint;
  args.insert(args.end(), {"--ep", "32", "--frobnicate", "3"});
  const CliResult r = cli(args);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown flag '--frobnicate' for 'whatif'"));
}

TEST_CASE("Open bounds print as > 0", "[cli][sglang-words]") {
  const CliResult help = cli({"plan", "--help"});
  CHECK_THAT(help.out, Catch::Contains("--tpot-ms FLOAT:NUMBER>0"));
  CHECK_THAT(help.out, Catch::Contains("--mtp-acceptance FLOAT:NUMBER in (0, 1]"));
  CHECK_THAT(help.out, Catch::Contains("--gpus INT:INT>=1"));
  const CliResult r = cli({"plan", "--gpus", "8", "--tpot-ms", "0"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--tpot-ms: must be a number > 0 (got 0)"));
}
