// overlapsim sglang-check (issue 34.1): an SGLang launch command read as SGLang reads it, the
// overlap it runs against SGLang's other strategies, the flag diff, limits, located errors; and
// plan's printed launches read back to the deployment plan simulated (one flag table for both).
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/plan/plan.hpp"
#include "app/plan/sglang_command.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;
using Json = nlohmann::json;

namespace {

const std::vector<std::string> kLaunch = {"python",
                                          "-m",
                                          "sglang.launch_server",
                                          "--model-path",
                                          "deepseek-ai/DeepSeek-V3",
                                          "--tp-size",
                                          "32",
                                          "--dp-size",
                                          "32",
                                          "--enable-dp-attention",
                                          "--ep-size",
                                          "32",
                                          "--moe-a2a-backend",
                                          "deepep",
                                          "--deepep-mode",
                                          "low_latency",
                                          "--enable-two-batch-overlap",
                                          "--cuda-graph-max-bs",
                                          "64",
                                          "--nnodes",
                                          "4"};

CliResult check(const std::vector<std::string>& ours, const std::vector<std::string>& launch) {
  std::vector<std::string> args = {"sglang-check"};
  args.insert(args.end(), ours.begin(), ours.end());
  args.push_back("--");
  args.insert(args.end(), launch.begin(), launch.end());
  return cli(args);
}

std::vector<std::string> words(const Json& flags) {
  std::vector<std::string> out;
  for (const auto& f : flags) {
    std::istringstream in(f.get<std::string>());
    for (std::string w; in >> w;) out.push_back(w);
  }
  return out;
}

}  // namespace

TEST_CASE("sglang-check: the issue's launch, understood and judged", "[sglang-check]") {
  auto launch = kLaunch;
  launch.insert(launch.end(), {"--trust-remote-code", "--port", "30000"});
  const CliResult r = check({"--hw", "h800-sxm", "--context", "4096", "--json"}, launch);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  const Json& d = j["deployment"];
  CHECK(d["model"] == "deepseek-v3");
  CHECK(d["ep"] == 32);
  CHECK(d["dp"] == 32);
  CHECK(d["dp_attention"] == true);
  CHECK(d["strategy"] == "tbo-decode");
  CHECK(d["cuda_graph_max_bs"] == 64);
  CHECK(d["tokens_per_gpu"] == 64);  // the decode batch the graphs were captured for
  CHECK(d["nnodes"] == 4);
  CHECK(j["ignored"] == Json::array({"--trust-remote-code", "--port 30000"}));
  REQUIRE(j["verdicts"].size() >= 2);
  CHECK(j["verdicts"][0]["strategy"] == "tbo-decode");
  CHECK(j["verdicts"][0]["launch"] == true);
  // The flag diff turns the launch's strategy into the best: the launch strategy's SGLang flags
  // that the best lacks out, the best's that the launch lacks in (each strategy's flags as
  // `describe strategy` gives them).
  const std::string best = j["best_strategy"];
  auto flags_of = [](const std::string& name) {
    const CliResult d = cli({"describe", "strategy", name, "--model", "deepseek-v3", "--json"});
    REQUIRE(d.code == 0);
    return Json::parse(d.out)["strategies"][0]["sglang"]["flags"];
  };
  Json drop = Json::array(), add = Json::array();
  if (best != "tbo-decode") {
    const Json now = flags_of("tbo-decode");
    const Json then = best == "no-overlap" ? Json::array() : flags_of(best);
    for (const auto& f : now)
      if (std::find(then.begin(), then.end(), f) == then.end()) drop.push_back(f);
    for (const auto& f : then)
      if (std::find(now.begin(), now.end(), f) == now.end()) add.push_back(f);
    CHECK(j["flag_diff"]["gain"].get<double>() > 0);
  }
  CHECK(j["flag_diff"]["drop"] == drop);
  CHECK(j["flag_diff"]["add"] == add);
  // One entry per batch of plan's decode grid (15 sizes, 1 to 512), each of which runs or fits
  // here.
  CHECK(j["best_by_batch"].size() == default_plan_tokens(Phase::decode).size());
}

TEST_CASE("sglang-check reads flags as argparse does", "[sglang-check]") {
  const SglangDeployment d = parse_sglang_command(
      {"sglang", "serve", "deepseek-ai/DeepSeek-V3", "--tp", "16", "--dp=16",
       "--enable-dp-attention", "--enable-deepep-moe", "--mem-frac", "0.8", "--ep", "16",
       "--speculative-algo", "NEXTN", "--speculative-num-draft-tokens", "2", "--some-new-flag",
       "x"},
      {"SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256", "SGLANG_OTHER=1"});
  CHECK(d.model == "deepseek-ai/DeepSeek-V3");  // sglang serve's positional model
  CHECK(d.tp == 16);                            // --tp: a unique prefix of --tp-size
  CHECK(d.dp == 16);                            // --dp=16
  CHECK(d.a2a == "deepep");                     // the deprecated spelling, noted
  CHECK(d.mem_fraction_static == "0.8");
  CHECK(d.ep == 16);
  CHECK(d.decode_q_len() == 2);
  CHECK(d.deepep_ll_max_tokens == 256);
  CHECK(d.ignored == std::vector<std::string>{"--some-new-flag x", "SGLANG_OTHER=1"});
  bool deprecated_noted = false;
  for (const auto& n : d.notes) deprecated_noted |= n.find("--enable-deepep-moe") == 0;
  CHECK(deprecated_noted);
}

TEST_CASE("sglang-check: malformed values are located errors", "[sglang-check]") {
  auto launch = kLaunch;
  launch[6] = "thirty-two";  // --tp-size's value, the 7th word
  const CliResult r = check({}, launch);
  CHECK(r.code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("field '--tp-size (argument 6)': 'thirty-two' is not an integer"));
  const CliResult mode = check({}, {"--model-path", "deepseek-v3", "--deepep-mode", "fast"});
  CHECK(mode.code == 2);
  CHECK_THAT(mode.err, Catch::Contains("'fast' is not one of auto, normal, low_latency"));
  const CliResult none = check({}, {"--tp-size", "8"});
  CHECK(none.code == 2);
  CHECK_THAT(none.err, Catch::Contains("names no model"));
}

TEST_CASE("sglang-check: DeepEP's low-latency buffer limit", "[sglang-check]") {
  // 256 requests per GPU without TBO: 256 tokens per rank per dispatch > SGLang's default 128.
  const CliResult r = check({"--hw", "h800-sxm", "--tokens-per-gpu", "256", "--json", "--env",
                             "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128"},
                            {"--model-path", "deepseek-v3", "--tp-size", "32", "--dp-size", "32",
                             "--enable-dp-attention", "--moe-a2a-backend", "deepep",
                             "--deepep-mode", "low_latency", "--mem-fraction-static", "0.9"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  bool ll = false;
  for (const auto& l : j["limits"])
    ll |= l.get<std::string>().find("256 tokens per rank") != std::string::npos;
  CHECK(ll);
}

TEST_CASE("plan's launches read back through sglang-check to the same deployment",
          "[sglang-check][plan]") {
  const std::vector<std::vector<std::string>> plans = {
      {"--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "decode", "--gpus", "64",
       "--tpot-ms", "50"},
      {"--model", "deepseek-v4-pro", "--hw", "h200-sxm", "--phase", "decode", "--gpus", "8",
       "--tpot-ms", "50"},
      {"--model", "deepseek-v3", "--hw", "gb200", "--phase", "decode", "--gpus", "72", "--tpot-ms",
       "50"},
      {"--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "prefill", "--gpus", "32",
       "--ttft-ms", "2000", "--prompt-len", "4096"}};
  for (const auto& p : plans) {
    std::vector<std::string> args = {"plan", "--json"};
    args.insert(args.end(), p.begin(), p.end());
    const CliResult planned = cli(args);
    INFO(planned.err);
    REQUIRE(planned.code == 0);
    const Json best = Json::parse(planned.out)["best"];
    std::vector<std::string> launch = {"python", "-m", "sglang.launch_server", "--model-path",
                                       p[1]};
    const auto flags = words(best["sglang_flags"]);
    launch.insert(launch.end(), flags.begin(), flags.end());
    std::vector<std::string> ours = {"--hw", p[3], "--json", "--context", "4096"};
    for (const auto& e : best["sglang_env"])
      ours.insert(ours.end(), {"--env", e.get<std::string>()});
    const CliResult r = check(ours, launch);
    INFO(p[1] << " on " << p[3] << ": " << r.err);
    REQUIRE(r.code == 0);
    const Json d = Json::parse(r.out)["deployment"];
    CHECK(d["ep"] == best["ep"]);
    CHECK(d["dp"] == best["ep"]);
    CHECK(d["strategy"] == best["strategy"]);
    CHECK(d["tokens_per_gpu"] == best["tokens_per_gpu"]);
    CHECK(d["mtp"] == best["mtp"]);
    CHECK(d["redundant_experts"] == best["redundant_experts"]);
    if (p[5] == "decode") CHECK(d["cuda_graph_max_bs"] == best["tokens_per_gpu"]);
  }
}
