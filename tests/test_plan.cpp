// overlapsim plan: the Pareto frontier leaves out exactly the dominated points, the best point
// is the highest throughput within the target, points that do not fit in HBM or break SGLang's
// limits are left out and counted, and the SGLang flags follow the strategy and the point.
// Expectations come from the run itself (physics numbers change as the models improve): the
// frontier is checked against every point of the CSV, the best against every point that meets
// the target.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/plan/plan.hpp"
#include "app/plan/sglang_flags.hpp"
#include "app/strategy/strategy.hpp"
#include "helpers.hpp"
#include "models/config/model_config.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/io/csv_reader.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

// A small decode plan: DeepSeek-V3 on 32 H800s, EP 8 (does not fit: the weights alone), 16 and
// 32, three batch sizes, MTP off and on.
std::vector<std::string> small_plan(const std::string& tpot_ms) {
  return {"plan",
          "--model",
          "deepseek-v3",
          "--hw",
          "h800-sxm",
          "--phase",
          "decode",
          "--gpus",
          "32",
          "--tpot-ms",
          tpot_ms,
          "--ep",
          "8,16,32",
          "--tokens-per-gpu",
          "8,64,128",
          "--strategies",
          "no-overlap,tbo-decode,sbo",
          "-j",
          "2"};
}

struct Ran {
  double latency, tput;
  bool deployable;
};

}  // namespace

TEST_CASE("the Pareto frontier keeps exactly the points no other point dominates", "[plan]") {
  // (latency ms, tokens/s): B (2, 20) dominates C (2, 15) and D (3, 18); F repeats E; G is the
  // fastest. Walking up in latency the throughput must rise: G 5, A 10, B 20, E 30.
  const std::vector<std::pair<double, double>> pts{{1, 10}, {2, 20}, {2, 15}, {3, 18},
                                                   {4, 30}, {4, 30}, {0.5, 5}};
  CHECK(pareto_frontier(pts) == std::vector<size_t>{6, 0, 1, 4});
  CHECK(pareto_frontier({}).empty());
}

TEST_CASE("the plan grid: EP sizes span whole nodes, redundant experts let EP divide the experts",
          "[plan]") {
  CHECK(plan_eps(72, 8) == std::vector<int>{8, 24, 72});
  CHECK(plan_eps(64, 8) == std::vector<int>{8, 16, 32, 64});
  CHECK(plan_eps(4, 8) == std::vector<int>{4});  // fewer GPUs than a node: all of them
  // 256 routed experts: EP 72 needs 32 more (288 = 4 x 72), as SGLang's 72-GPU decode runs
  // with --ep-num-redundant-experts 32; EP 24 needs 8 (264 = 11 x 24); EP 32 none.
  CHECK(min_redundant_experts(256, 72) == 32);
  CHECK(min_redundant_experts(256, 24) == 8);
  CHECK(min_redundant_experts(256, 32) == 0);
}

TEST_CASE("plan: frontier, best within the target, non-fitting points left out and counted",
          "[plan]") {
  const fs::path csv = scratch_path("plan", "small.csv");
  const CliResult r = cli([&] {
    auto a = small_plan("40");
    a.insert(a.end(), {"--json", "--csv", csv.string()});
    return a;
  }());
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  const CsvTable t = CsvTable::load(csv.string());
  // 3 EP x 3 batches x MTP off/on (the model config gives an acceptance rate) x 3 strategies.
  REQUIRE(t.rows() == 3 * 3 * 2 * 3);
  CHECK(j["counts"]["points"] == 54);

  // EP 8 does not fit (DeepSeek-V3's weights on 8 H800s): every EP-8 point is left out,
  // counted, and has no latency; no frontier point is EP 8.
  int no_fit = 0, ep8 = 0;
  std::vector<Ran> ran;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "ep") == "8") {
      ++ep8;
      CHECK(t.at(i, "fits") == "0");
      CHECK(t.at(i, "latency_ms").empty());
      CHECK(t.at(i, "excluded").rfind("does not fit in HBM", 0) == 0);
    }
    if (t.at(i, "fits") == "0") ++no_fit;
    if (t.at(i, "excluded").empty())
      ran.push_back({t.number(i, "latency_ms"), t.number(i, "tokens_per_s_per_gpu"),
                     t.at(i, "sglang_runs_it") == "1"});
  }
  CHECK(ep8 == 18);
  CHECK(j["counts"]["excluded_no_fit"] == no_fit);
  CHECK(j["counts"]["simulated"] == int(ran.size()));
  REQUIRE(ran.size() >= 6);

  // Frontier: sorted by latency with rising throughput; no point that ran beats a frontier
  // point on both axes; every point that ran is matched or beaten by a frontier point.
  const Json& f = j["frontier"];
  REQUIRE(f.size() >= 2);
  for (size_t k = 0; k < f.size(); ++k) {
    CHECK(f[k]["ep"] != 8);
    if (k > 0) {
      CHECK(f[k]["latency_ms"].get<double>() >= f[k - 1]["latency_ms"].get<double>());
      CHECK(f[k]["tokens_per_s_per_gpu"].get<double>() >
            f[k - 1]["tokens_per_s_per_gpu"].get<double>());
    }
    for (const auto& q : ran) {
      const double fl = f[k]["latency_ms"], ft = f[k]["tokens_per_s_per_gpu"];
      CHECK_FALSE((q.latency <= fl && q.tput >= ft && (q.latency < fl || q.tput > ft)));
    }
  }
  for (const auto& q : ran) {
    bool covered = false;
    for (const auto& p : f)
      covered = covered || (p["latency_ms"].get<double>() <= q.latency &&
                            p["tokens_per_s_per_gpu"].get<double>() >= q.tput);
    CHECK(covered);
  }
  // The dominated points are really left out (the grid has some).
  CHECK(f.size() < ran.size());

  // Best: meets the target, and no point SGLang runs within the target has more throughput.
  REQUIRE(j["best"].is_object());
  const double best_lat = j["best"]["latency_ms"], best_tput = j["best"]["tokens_per_s_per_gpu"];
  CHECK(best_lat <= 40);
  CHECK(j["best"]["meets_target"] == true);
  for (const auto& q : ran)
    if (q.deployable && q.latency <= 40) CHECK(q.tput <= best_tput);
}

TEST_CASE("plan: a tighter target moves the best point; an impossible one names the fastest",
          "[plan]") {
  auto run = [](const std::string& tpot) {
    auto a = small_plan(tpot);
    a.push_back("--json");
    const CliResult r = cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return Json::parse(r.out);
  };
  const Json loose = run("1000");
  REQUIRE(loose["best"].is_object());
  const double loose_lat = loose["best"]["latency_ms"];
  // Halfway between the fastest frontier point and the loose best: the best must get faster.
  const double fastest = loose["frontier"][0]["latency_ms"];
  REQUIRE(fastest < loose_lat);
  const double mid = (fastest + loose_lat) / 2;
  const Json tight = run(std::to_string(mid));
  REQUIRE(tight["best"].is_object());
  CHECK(tight["best"]["latency_ms"].get<double>() <= mid);
  CHECK(tight["best"]["tokens_per_s_per_gpu"].get<double>() <
        loose["best"]["tokens_per_s_per_gpu"].get<double>());
  const Json none = run("0.001");
  CHECK(none["best"].is_null());
  REQUIRE(none["fastest"].is_object());
  CHECK(none["fastest"]["latency_ms"].get<double>() == Approx(fastest));
}

TEST_CASE("plan: MTP adds 1 + acceptance tokens a step and charges the draft", "[plan]") {
  const CliResult r = cli({"plan",      "--model",      "deepseek-v3",
                           "--hw",      "h800-sxm",     "--phase",
                           "decode",    "--gpus",       "16",
                           "--tpot-ms", "1000",         "--tokens-per-gpu",
                           "64",        "--strategies", "no-overlap",
                           "--mtp",     "on",           "--mtp-acceptance",
                           "0.5",       "--json",       "--kv-cache-dtype",
                           "fp8_e4m3"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["mtp_acceptance"] == 0.5);
  const Json& b = j["best"];
  REQUIRE(b.is_object());
  CHECK(b["mtp"] == true);
  const double step = b["step_us"], fwd = b["forward_us"];
  CHECK(step > fwd);  // the draft module runs every step
  // 64 requests x (1 + 0.5) tokens per step of `step` us; the latency is the step per token.
  CHECK(b["tokens_per_s_per_gpu"].get<double>() == Approx(64 * 1.5 / (step * 1e-6)));
  CHECK(b["latency_ms"].get<double>() == Approx(step / 1.5 / 1000));
  const auto flags = b["sglang_flags"].get<std::vector<std::string>>();
  CHECK(contains(flags, "--speculative-algorithm EAGLE"));
  CHECK(contains(flags, "--speculative-num-draft-tokens 2"));
  // 64 requests of 4096 tokens need 18.4 GB of KV in BF16, more than SGLang's default fraction
  // leaves the pool at EP 16 beside 57 GB of weights; in FP8 (9.2 GB) they fit, and the launch
  // says so.
  CHECK(contains(flags, "--kv-cache-dtype fp8_e4m3"));
}

TEST_CASE("plan: prefill TTFT counts the chunks a long prompt needs", "[plan]") {
  const CliResult r = cli({"plan",
                           "--model",
                           "deepseek-v3",
                           "--hw",
                           "h800-sxm",
                           "--phase",
                           "prefill",
                           "--gpus",
                           "32",
                           "--ep",
                           "32",
                           "--ttft-ms",
                           "100000",
                           "--prompt-len",
                           "8192",
                           "--tokens-per-gpu",
                           "2048,8192",
                           "--strategies",
                           "no-overlap,tbo-prefill",
                           "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["target"]["metric"] == "ttft");
  CHECK(j["mtp_acceptance"].is_null());  // no MTP in prefill
  int checked = 0;
  for (const auto& p : j["frontier_by_strategy"]["no-overlap"]) {
    // 8192-token prompt: 4 chunks of 2048, or one forward of 8192.
    const double chunks = p["tokens_per_gpu"] == 2048 ? 4 : 1;
    CHECK(p["step_us"].get<double>() == Approx(chunks * p["forward_us"].get<double>()));
    CHECK(p["latency_ms"].get<double>() == Approx(p["step_us"].get<double>() / 1000));
    ++checked;
  }
  CHECK(checked >= 1);
  REQUIRE(j["best"].is_object());
  const auto flags = j["best"]["sglang_flags"].get<std::vector<std::string>>();
  CHECK(contains(flags, "--disaggregation-mode prefill"));
  CHECK(contains(flags, "--deepep-mode normal"));
}

TEST_CASE("SGLang flags follow the strategy and the point", "[plan][sglang]") {
  const ModelConfig v3 = load_model_config("deepseek-v3");
  const HwProfile h800 = load_hw_profile("h800-sxm");
  PlanRequest req;
  req.gpus = 72;
  req.gpus_per_node = 8;
  PlanPoint p;
  p.tokens_per_gpu = 64;
  p.ep = 72;
  p.redundant_experts = 32;
  p.deepep_mode = "low_latency";
  p.cuda_graphs = true;
  p.split = true;
  auto flags_of = [&](const std::string& strategy, const PlanPoint& pt) {
    return sglang_launch(pt, load_strategy(strategy, ModelFamily::v3), v3, h800, req);
  };
  const SglangLaunch tbo = flags_of("tbo-decode", p);
  CHECK(contains(tbo.flags, "--enable-two-batch-overlap"));
  CHECK_FALSE(contains(tbo.flags, "--enable-single-batch-overlap"));
  CHECK(contains(tbo.flags, "--ep-num-redundant-experts 32"));
  CHECK(contains(tbo.flags, "--moe-a2a-backend deepep"));
  CHECK(contains(tbo.flags, "--deepep-mode low_latency"));
  CHECK(contains(tbo.flags, "--ep-size 72"));
  // SGLang counts hosts: 72 GPUs / the profile's 8 per host = 9.
  REQUIRE(72 % h800.gpus_per_host == 0);
  CHECK(contains(tbo.flags, "--nnodes " + std::to_string(72 / h800.gpus_per_host)));
  CHECK(contains(tbo.flags, "--cuda-graph-max-bs 64"));
  CHECK(contains(tbo.flags, "--max-running-requests 4608"));  // 64 x 72
  p.split = false;
  const SglangLaunch sbo = flags_of("sbo", p);
  CHECK(contains(sbo.flags, "--enable-single-batch-overlap"));
  CHECK_FALSE(contains(sbo.flags, "--enable-two-batch-overlap"));
  const SglangLaunch none = flags_of("no-overlap", p);
  CHECK_FALSE(contains(none.flags, "--enable-two-batch-overlap"));
  CHECK_FALSE(contains(none.flags, "--enable-single-batch-overlap"));
  CHECK(none.env.empty());
  // A micro-batch past the profile's low-latency buffer (SGLang's default 128 tokens per rank)
  // raises it: 512 requests unsplit.
  PlanPoint big = p;
  big.tokens_per_gpu = 512;
  const SglangLaunch b = flags_of("no-overlap", big);
  REQUIRE(h800.memory.deepep_ll_max_tokens_per_rank < 512);
  CHECK(contains(b.env, "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=512"));
  // Prefill TBO: DeepGEMM on all SMs but DeepEP's (132 - 20 on the H800 profile), set by SGLang
  // itself - a note, not a flag.
  PlanRequest preq = req;
  preq.phase = Phase::prefill;
  PlanPoint pp = p;
  pp.deepep_mode = "normal";
  pp.cuda_graphs = false;
  pp.tokens_per_gpu = 8192;
  const SglangLaunch pre =
      sglang_launch(pp, load_strategy("tbo-prefill", ModelFamily::v3), v3, h800, preq);
  CHECK(contains(pre.flags, "--enable-two-batch-overlap"));
  // A 4096-token prompt fits the 8192-token batch: no chunked prefill, so that SGLang's default
  // --mem-fraction-static counts one rank's 8192 tokens (models/memory/sglang_server.hpp).
  CHECK(contains(pre.flags, "--chunked-prefill-size -1"));
  CHECK(contains(pre.flags, "--max-prefill-tokens 8192"));
  // A longer prompt is chunked over the instance: 1024 x 72.
  pp.tokens_per_gpu = 1024;
  const SglangLaunch chunked =
      sglang_launch(pp, load_strategy("tbo-prefill", ModelFamily::v3), v3, h800, preq);
  CHECK(contains(chunked.flags, "--chunked-prefill-size 73728"));
  const int dg = h800.engine.sm_count - h800.kernels.comm.deepep_normal_sms;
  bool noted = false;
  for (const auto& n : pre.notes)
    noted = noted || n.find("DeepGEMM on " + std::to_string(dg) + " of 132 SMs") == 0;
  CHECK(noted);
  // V4's multi-stream plan is an environment variable in SGLang.
  const ModelConfig v4 = load_model_config("deepseek-v4-flash");
  const SglangLaunch ms =
      sglang_launch(p, load_strategy("multistream", ModelFamily::v4), v4, h800, req);
  CHECK(contains(ms.env, "SGLANG_OPT_USE_MULTI_STREAM_OVERLAP=1"));
}

TEST_CASE("plan respects SGLang's limits: V4's multi-stream plan only up to 64 tokens on Hopper",
          "[plan][sglang]") {
  const fs::path csv = scratch_path("plan", "v4.csv");
  const CliResult r = cli({"plan",
                           "--model",
                           "deepseek-v4-flash",
                           "--hw",
                           "h800-sxm",
                           "--phase",
                           "decode",
                           "--gpus",
                           "16",
                           "--ep",
                           "16",
                           "--tpot-ms",
                           "1000",
                           "--tokens-per-gpu",
                           "32,128",
                           "--strategies",
                           "no-overlap,multistream",
                           "--mtp",
                           "off",
                           "--json",
                           "--csv",
                           csv.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["counts"]["excluded_sglang_limit"] == 1);
  const CsvTable t = CsvTable::load(csv.string());
  for (size_t i = 0; i < t.rows(); ++i) {
    const bool over = t.at(i, "strategy") == "multistream" && t.at(i, "tokens_per_gpu") == "128";
    INFO(t.at(i, "excluded"));
    CHECK((t.at(i, "excluded").find("<= 64 tokens per GPU on hopper") != std::string::npos) ==
          over);
  }
}

TEST_CASE("plan output is the same for any -j", "[plan][determinism]") {
  auto run = [](const std::string& jobs) {
    auto a = small_plan("40");
    a.back() = jobs;
    a.push_back("--json");
    return cli(a).out;
  };
  CHECK(run("1") == run("2"));
}

TEST_CASE("plan's chart: frontier per strategy, the target and the chosen point, in words",
          "[plan][charts]") {
  const fs::path svg = scratch_path("plan", "plan.svg");
  auto a = small_plan("40");
  a.insert(a.end(), {"--chart", svg.string(), "--json"});
  const CliResult r = cli(a);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  const std::string text = file_bytes(svg);
  std::string why;
  INFO(why);
  CHECK(well_formed_xml(text, &why));
  const auto texts = svg_texts(text);
  CHECK(contains(texts, "deepseek-v3 decode on 32 x h800-sxm: tokens/s per GPU against TPOT"));
  CHECK(contains(texts, "time per output token, TPOT (ms)"));
  CHECK(contains(texts, "output tokens/s per GPU"));
  CHECK(contains(texts, "TPOT target 40 ms"));
  for (const char* s : {"no-overlap", "tbo-decode", "sbo"}) CHECK(contains(texts, s));
  const Json& b = j["best"];
  const std::string label = "best: " + b["strategy"].get<std::string>() + ", " +
                            std::to_string(b["tokens_per_gpu"].get<int>()) + " req/GPU, EP " +
                            std::to_string(b["ep"].get<int>()) + (b["mtp"] == true ? ", MTP" : "");
  CHECK(contains(texts, label));
  // One frontier line per strategy.
  size_t lines = 0;
  for (size_t i = 0; (i = text.find("<polyline", i)) != std::string::npos; ++i) ++lines;
  CHECK(lines == 3);
}

TEST_CASE("plan: GPUs per node default to the profile's NVLink domain", "[plan]") {
  // gb200.yaml: nvlink_domain_gpus 72 (an NVL72 rack), so 144 GPUs are two domains and the EP
  // grid spans whole domains: 72 and 144 (plan_eps(144, 72)); h800: 8 per node.
  const CliResult gb =
      cli({"plan", "--model", "deepseek-v3", "--hw", "gb200", "--phase", "decode", "--gpus", "144",
           "--tokens-per-gpu", "64", "--tpot-ms", "50", "--json"});
  REQUIRE(gb.code == 0);
  const auto j = nlohmann::json::parse(gb.out);
  CHECK(j["gpus_per_node"] == 72);
  CHECK(plan_eps(144, 72) == std::vector<int>{72, 144});
  const CliResult h =
      cli({"plan", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "decode", "--gpus",
           "16", "--tokens-per-gpu", "64", "--tpot-ms", "50", "--json"});
  REQUIRE(h.code == 0);
  CHECK(nlohmann::json::parse(h.out)["gpus_per_node"] == 8);
}

TEST_CASE("plan: bad flags are one located line and exit code 2", "[plan][bad-input]") {
  auto bad = [](std::vector<std::string> args, const std::string& needle) {
    const CliResult r = cli(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(needle) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  };
  bad({"plan", "--phase", "decode", "--gpus", "8"}, "--tpot-ms");
  bad({"plan", "--phase", "prefill", "--gpus", "8", "--ttft-ms", "100"}, "--prompt-len");
  bad({"plan", "--phase", "decode", "--gpus", "8", "--tpot-ms", "50", "--prompt-len", "10"},
      "--prompt-len");
  bad({"plan", "--gpus", "32", "--tpot-ms", "50", "--ep", "7"}, "EP 7 does not divide");
  bad({"plan", "--phase", "prefill", "--gpus", "8", "--ttft-ms", "100", "--prompt-len", "10",
       "--mtp", "on"},
      "--mtp");
  bad({"plan", "--gpus", "8", "--tpot-ms", "50", "--strategies", "tbo-decod"},
      "did you mean 'tbo-decode'");
  bad({"plan", "--gpus", "0", "--tpot-ms", "50"}, "--gpus");
}
