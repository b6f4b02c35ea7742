// overlapsim plan, item 35.2-3: hosts apart from NVLink domains (SGLang's --nnodes counts hosts;
// the EP grid steps by hosts inside a domain), the best point always in the printed frontier
// (SGLang's strategies first), a strategy's chart style keyed by its name, and an infeasible
// request naming the smallest GPU count that would meet the target. Expected numbers come from
// the profiles (gpus_per_host, nvlink_domain_gpus) and the arithmetic shown.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "app/plan/plan.hpp"
#include "app/strategy/strategy_style.hpp"
#include "helpers.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/io/data_paths.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

// The flag "--nnodes N" among the best point's SGLang flags; 1 when absent (SGLang's default).
int nnodes_of(const Json& j) {
  for (const auto& f : j["best"]["sglang_flags"]) {
    const std::string s = f.get<std::string>();
    if (s.rfind("--nnodes ", 0) == 0) return std::stoi(s.substr(9));
  }
  return 1;
}

// The stroke of the polyline whose <title> is `name` in a plan chart.
std::string stroke_of(const std::string& svg, const std::string& name) {
  const auto t = svg.find("<title>" + name + "</title></polyline>");
  if (t == std::string::npos) return {};
  const auto open = svg.rfind("<polyline", t);
  const auto s = svg.find("stroke=\"", open) + 8;
  return svg.substr(s, svg.find('"', s) - s);
}

}  // namespace

TEST_CASE("every shipped profile gives GPUs per host with a source, tiling its NVLink domain",
          "[profiles][hosts]") {
  // Published: an HGX board is one host of 8 GPUs, its NVLink domain; a GB200 NVL72 compute tray
  // is one host of 4 GPUs, 72 / 4 = 18 of them in the rack's NVLink domain (gpus.csv).
  for (const auto& name : shipped_names("hw_profiles")) {
    INFO(name);
    const HwProfile p = load_hw_profile(name);
    const int expected = name == "gb200" ? 4 : p.nvlink_domain_gpus;
    CHECK(p.gpus_per_host == expected);
    CHECK(p.nvlink_domain_gpus % p.gpus_per_host == 0);
    bool sourced = false;
    for (const auto& f : p.fields)
      if (f.path == "gpus_per_host") sourced = !f.source.empty();
    CHECK(sourced);
  }
}

TEST_CASE("GPUs per host that do not tile the NVLink domain are a located error",
          "[hosts][bad-input]") {
  std::ifstream in(source_path("hw_profiles/gb200.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), {}), kept;
  std::istringstream lines(text);
  int line_no = 0, host_line = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    if (line.rfind("gpus_per_host:", 0) == 0) {
      line = "gpus_per_host: {value: 5, source: \"test\"}";  // 72 % 5 = 2: not whole hosts
      host_line = line_no;
    }
    kept += line + "\n";
  }
  REQUIRE(host_line > 0);
  const fs::path path = scratch_path("plan-hosts", "gb200-bad-hosts.yaml");
  std::ofstream(path) << kept;
  const CliResult r = cli({"plan", "--hw", path.string(), "--gpus", "8", "--tpot-ms", "50"});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("gpus_per_host") != std::string::npos);
  CHECK(r.err.find("gb200-bad-hosts.yaml:" + std::to_string(host_line)) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("the EP grid steps by hosts inside an NVLink domain and by domains beyond it",
          "[plan][hosts]") {
  const HwProfile gb = load_hw_profile("gb200");
  const int host = gb.gpus_per_host, domain = gb.nvlink_domain_gpus;  // 4, 72
  // 72 GPUs, one domain: the divisors of 72 that are whole hosts (multiples of 4).
  std::vector<int> want;
  for (int ep = host; ep <= 72; ep += host)
    if (72 % ep == 0) want.push_back(ep);
  CHECK(want == std::vector<int>{4, 8, 12, 24, 36, 72});
  CHECK(plan_eps(72, domain, host) == want);
  // 48 GPUs (SGLang's published GB200 decode: EP 48) are part of one domain: EP 48 is offered,
  // and 256 routed experts need 48 - 256 % 48 = 48 - 16 = 32 redundant ones to divide.
  const auto eps48 = plan_eps(48, domain, host);
  CHECK(std::find(eps48.begin(), eps48.end(), 48) != eps48.end());
  CHECK(min_redundant_experts(256, 48) == 48 - 256 % 48);
  CHECK((256 + min_redundant_experts(256, 48)) % 48 == 0);
  // 144 GPUs are two domains: an instance below 72 must tile the domain (EP 48 would straddle
  // two racks: 72 % 48 != 0), and 144 is two whole domains.
  const auto eps144 = plan_eps(144, domain, host);
  CHECK(std::find(eps144.begin(), eps144.end(), 48) == eps144.end());
  CHECK(std::find(eps144.begin(), eps144.end(), 36) != eps144.end());
  CHECK(std::find(eps144.begin(), eps144.end(), 144) != eps144.end());
  // HGX: the host is the domain, so the grid is what it was (whole nodes of 8).
  CHECK(plan_eps(64, 8, 8) == plan_eps(64, 8));
  // The suggestion's ladder: hosts up to the domain, then domains.
  const auto up = larger_eps(8, domain, host, 216);
  CHECK(up.front() == 8 + host);
  CHECK(up.back() == 216);
  CHECK(std::find(up.begin(), up.end(), 144) != up.end());
  CHECK(std::find(up.begin(), up.end(), 76) == up.end());  // 76 is not whole domains
}

TEST_CASE("plan's SGLang flags: --nnodes = GPUs of the instance / GPUs per host",
          "[plan][hosts][sglang]") {
  struct Case {
    const char* hw;
    int ep;
  };
  for (const Case c : {Case{"gb200", 8}, Case{"gb200", 48}, Case{"h200-sxm", 16}}) {
    INFO(c.hw << " EP " << c.ep);
    const CliResult r = cli({"plan",
                             "--model",
                             "deepseek-v3",
                             "--hw",
                             c.hw,
                             "--phase",
                             "decode",
                             "--gpus",
                             std::to_string(c.ep),
                             "--ep",
                             std::to_string(c.ep),
                             "--tokens-per-gpu",
                             "32",
                             "--mtp",
                             "off",
                             "--strategies",
                             "sbo",
                             "--tpot-ms",
                             "1000",
                             "--json",
                             "-j",
                             "2"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const Json j = Json::parse(r.out);
    REQUIRE(!j["best"].is_null());
    const int host = load_hw_profile(c.hw).gpus_per_host;
    CHECK(j["gpus_per_host"] == host);
    // gb200: 8 / 4 = 2 and 48 / 4 = 12 hosts inside one NVLink domain; h200: 16 / 8 = 2.
    CHECK(nnodes_of(j) == c.ep / host);
    CHECK(j["best"]["ep"] == c.ep);
  }
}

TEST_CASE("the best point is in the printed frontier, SGLang's strategies first",
          "[plan][frontier]") {
  // The best point SGLang runs is on the frontier of SGLang's points (a point dominating it would
  // run in SGLang, meet the target and be chosen instead): the table's first part holds its row,
  // and the JSON's best is on sglang_frontier; strategies SGLang does not ship come after.
  const std::vector<std::string> base = {
      "plan",    "--model",          "deepseek-v3", "--hw", "h800-sxm",
      "--phase", "decode",           "--gpus",      "16",   "--tpot-ms",
      "40",      "--tokens-per-gpu", "8,64,128",    "-j",   "2"};
  auto json_args = base;
  json_args.push_back("--json");
  const CliResult rj = cli(json_args);
  REQUIRE(rj.code == 0);
  const Json j = Json::parse(rj.out);
  REQUIRE(!j["best"].is_null());
  bool on = false;
  for (const auto& p : j["sglang_frontier"]) {
    CHECK(p["sglang_runs_it"] == true);
    if (p["strategy"] == j["best"]["strategy"] &&
        p["tokens_per_gpu"] == j["best"]["tokens_per_gpu"] && p["ep"] == j["best"]["ep"] &&
        p["mtp"] == j["best"]["mtp"])
      on = true;
  }
  CHECK(on);
  for (const auto& p : j["beyond_sglang"]) CHECK(p["sglang_runs_it"] == false);
  const CliResult rt = cli(base);
  REQUIRE(rt.code == 0);
  const auto best_row = rt.out.find("<- best");
  const auto first_table = rt.out.find("Pareto frontier of the strategies SGLang ships");
  const auto second_table = rt.out.find("not shipped by SGLang");
  CHECK(best_row != std::string::npos);
  CHECK(first_table < best_row);
  if (second_table != std::string::npos) CHECK(best_row < second_table);
}

TEST_CASE("a strategy's chart style is keyed by its name: the same on every chart",
          "[plan][charts]") {
  // Shipped strategies: one style each (a name shared by V3 and V4 is one strategy).
  std::set<std::string> names;
  for (const char* dir : {"strategies/deepseek-v3", "strategies/deepseek-v4"})
    for (const auto& n : shipped_names(dir)) names.insert(n);
  std::set<std::pair<std::string, std::string>> styles;
  for (const auto& n : names) {
    INFO(n);
    const SeriesStyle st = strategy_style(n);
    CHECK(st.color != kTargetColor);  // the target line is black, dash-dot: no strategy's
    CHECK(st.dash != kTargetDash);
    styles.insert({st.color, st.dash});
    CHECK(strategy_style(n).color == st.color);  // a function of the name alone
  }
  CHECK(styles.size() == names.size());
  // A user's own name: dashed (never a shipped strategy's solid line), the same on every call.
  CHECK(!strategy_style("my-own").dash.empty());
  CHECK(strategy_style("my-own").color == strategy_style("my-own").color);

  // Two plan charts with the strategies in different orders and company: 'sbo' is drawn in the
  // same colour on both, its own.
  auto chart = [](const std::string& strategies, const std::string& file) {
    const fs::path svg = scratch_path("plan-hosts", file);
    const CliResult r = cli({"plan", "--model", "deepseek-v3", "--hw", "h800-sxm", "--gpus", "16",
                             "--tpot-ms", "50", "--tokens-per-gpu", "8,64", "--mtp", "off",
                             "--strategies", strategies, "--chart", svg.string(), "-j", "2"});
    REQUIRE(r.code == 0);
    return file_bytes(svg);
  };
  const std::string a = chart("sbo,no-overlap", "order-a.svg");
  const std::string b = chart("tbo-decode,no-overlap,sbo", "order-b.svg");
  CHECK(stroke_of(a, "sbo") == strategy_style("sbo").color);
  CHECK(stroke_of(b, "sbo") == strategy_style("sbo").color);
  CHECK(stroke_of(b, "tbo-decode") == strategy_style("tbo-decode").color);
  // The target line has its own style.
  CHECK(a.find(std::string("stroke=\"") + kTargetColor +
               "\" stroke-width=\"1.5\" "
               "stroke-dasharray=\"" +
               kTargetDash + "\"") != std::string::npos);
}

TEST_CASE("an infeasible plan names the smallest GPU count (and EP) that fits and meets the target",
          "[plan][hosts]") {
  // DeepSeek-V3 on 4 H800s: the weights alone do not fit. The answer is the first count of the
  // ladder (larger_eps: whole hosts of 8, then whole domains) whose one-instance plan has a best
  // point; the counts before it have none.
  const std::vector<std::string> common = {"--model",
                                           "deepseek-v3",
                                           "--hw",
                                           "h800-sxm",
                                           "--phase",
                                           "decode",
                                           "--tpot-ms",
                                           "50",
                                           "--tokens-per-gpu",
                                           "16,64",
                                           "--mtp",
                                           "off",
                                           "--strategies",
                                           "sbo",
                                           "-j",
                                           "2",
                                           "--json"};
  auto plan = [&](int gpus) {
    std::vector<std::string> a = {"plan", "--gpus", std::to_string(gpus)};
    a.insert(a.end(), common.begin(), common.end());
    const CliResult r = cli(a);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return Json::parse(r.out);
  };
  const Json j = plan(4);
  CHECK(j["best"].is_null());
  const Json& s = j["smallest_gpus_that_meet_target"];
  REQUIRE(!s.is_null());
  const int gpus = s["gpus"];
  CHECK(s["ep"] == gpus);  // one EP group of that size
  const auto ladder = larger_eps(4, 8, 8, 64);
  REQUIRE(std::find(ladder.begin(), ladder.end(), gpus) != ladder.end());
  for (int g : ladder) {
    if (g >= gpus) break;
    INFO("smaller count " << g);
    CHECK(plan(g)["best"].is_null());
  }
  const Json at = plan(gpus);
  REQUIRE(!at["best"].is_null());
  CHECK(at["best"]["tokens_per_s_per_gpu"] == s["tokens_per_s_per_gpu"]);
  // In words, too.
  std::vector<std::string> words = {"plan", "--gpus", "4"};
  words.insert(words.end(), common.begin(), common.end() - 1);  // without --json
  const CliResult t = cli(words);
  CHECK(t.out.find("smallest deployment that fits and meets TPOT <= 50 ms: " +
                   std::to_string(gpus) + " GPUs") != std::string::npos);
}
