// whatif --uncertainty: spreads in the YAML files, joint draws, bands and the tornado ranking.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "app/analysis/uncertainty.hpp"
#include "helpers.hpp"
#include "sim/core/error.hpp"
#include "sim/io/csv_reader.hpp"
#include "sim/io/data_paths.hpp"

using namespace ovs;
using namespace ovs::test;
using Json = nlohmann::json;

namespace {

// The V3 decode point of the issue, kept small: 64 tokens per GPU, context 4096, EP 32.
std::vector<std::string> decode_point(const std::string& hw, const std::string& model) {
  return {
      "whatif", "--model",   model,  "--hw", hw,   "--phase",    "decode",     "--tokens-per-gpu",
      "64",     "--context", "4096", "--ep", "32", "--strategy", "tbo-decode", "--no-alternatives",
      "--json"};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A shipped file as a user's own copy with every spread set to zero.
std::string zero_spreads(const std::string& text) {
  std::string out = std::regex_replace(text, std::regex("spread: [0-9.eE+-]+"), "spread: 0");
  return std::regex_replace(out, std::regex("range: \\[[^\\]]*\\]"), "spread: 0");
}

// `text` with the spread of the field `key` (the first line naming it) replaced by `spread`.
std::string set_spread(const std::string& text, const std::string& key, const std::string& spread) {
  return std::regex_replace(text, std::regex("(\\b" + key + ": \\{value: [^,]+, )spread: [0-9.]+"),
                            "$1" + spread, std::regex_constants::format_first_only);
}

std::string write(const std::string& name, const std::string& text) {
  const auto p = scratch_path("uncertainty", name);
  std::ofstream(p) << text;
  return p.string();
}

Json run_json(std::vector<std::string> args) {
  const CliResult r = cli(std::move(args));
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out);
}

}  // namespace

TEST_CASE("A normal spread's P10 and P90 are the value times 1 -/+ 1.2816 sigma", "[uncertainty]") {
  // Phi^-1(0.9) = 1.28155...; a 10 % spread on 100 puts P90 at 112.8155.
  Spread s;
  s.kind = Spread::Kind::relative;
  s.relative = 0.1;
  CHECK(s.quantile(100, 0.9, yaml::kNonNegative) == Approx(112.8155).epsilon(1e-6));
  CHECK(s.quantile(100, 0.1, yaml::kNonNegative) == Approx(87.1845).epsilon(1e-6));
  CHECK(s.quantile(100, 0.5, yaml::kNonNegative) == Approx(100));
  // The distribution is truncated to the legal range, not clamped to it. A fraction of 1 with
  // a 10 % spread keeps the lower half of its normal: the median is at Phi^-1(0.75) = 0.67449
  // sigma below, 1 - 0.1 x 0.67449 = 0.932551, and even the 99th percentile stays under 1.
  CHECK(s.quantile(1.0, 0.5, yaml::kFraction) == Approx(0.932551).epsilon(1e-5));
  CHECK(s.quantile(1.0, 0.99, yaml::kFraction) < 1.0);
  CHECK(s.quantile(1.0, 0.99, yaml::kFraction) == Approx(1 - 0.1 * 0.012533).epsilon(1e-4));
  // A range reaching past the legal range draws over its legal part.
  Spread past;
  past.kind = Spread::Kind::range;
  past.lo = -1;
  past.hi = 1;
  CHECK(past.quantile(0, 0.5, yaml::kNonNegative) == Approx(0.5));
  // A range is a uniform: its P10 is a tenth of the way from lo to hi.
  Spread r;
  r.kind = Spread::Kind::range;
  r.lo = 1;
  r.hi = 4;
  CHECK(r.quantile(2, 0.1, yaml::kNonNegative) == Approx(1.3));
}

TEST_CASE("Every number of every shipped profile and model config states a spread",
          "[uncertainty]") {
  for (const auto& hw : shipped_names("hw_profiles")) {
    const HwProfile p = load_hw_profile(hw);  // throws at a number without one
    for (const auto& f : p.fields) CHECK((f.list || f.spread.stated()));
  }
  for (const auto& m : shipped_names("models/configs")) {
    const ModelConfig c = load_model_config(m);
    CHECK(!c.fields.empty());
    for (const auto& f : c.fields) CHECK(f.spread.stated());
  }
}

TEST_CASE("A profile with every spread zero gives P10 = P50 = P90 = the plain what-if",
          "[uncertainty]") {
  const std::string hw =
      write("zero-hw.yaml", zero_spreads(read_text(source_path("hw_profiles/h800-sxm.yaml"))));
  const std::string model = write(
      "zero-model.yaml", zero_spreads(read_text(source_path("models/configs/deepseek-v3.yaml"))));
  const Json plain = run_json(decode_point(hw, model));
  auto args = decode_point(hw, model);
  args.insert(args.end(), {"--uncertainty", "8"});
  const Json u = run_json(args);
  CHECK(u["uncertain_numbers"] == 0);
  // Every draw is the what-if as given, so every quantile is its speedup, to the bit.
  CHECK(u["speedup_p10"].get<double>() == plain["speedup"].get<double>());
  CHECK(u["speedup_p50"].get<double>() == plain["speedup"].get<double>());
  CHECK(u["speedup_p90"].get<double>() == plain["speedup"].get<double>());
  CHECK(u["overlapped_us_p50"].get<double>() == plain["overlapped_us"].get<double>());
  CHECK(u["baseline_us_p90"].get<double>() == plain["baseline_us"].get<double>());
  CHECK(u["p_pays"].get<double>() == (plain["speedup"].get<double>() > 1 ? 1.0 : 0.0));
  CHECK(u["sensitivity"].empty());
}

TEST_CASE("Widening one number's spread widens the band and puts that number first",
          "[uncertainty]") {
  // Two numbers uncertain, both by 5 %: the low-latency dispatch/combine's fixed latency and
  // HBM bandwidth. Widening the first to 40 % must widen the speedup's P10..P90 and rank it first.
  const std::string base = zero_spreads(read_text(source_path("hw_profiles/h800-sxm.yaml")));
  const std::string two = set_spread(set_spread(base, "ll_latency_us", "spread: 0.05"),
                                     "achievable_gbps", "spread: 0.05");
  const std::string model = write(
      "zero-model-2.yaml", zero_spreads(read_text(source_path("models/configs/deepseek-v3.yaml"))));
  auto band = [&](const std::string& text, const std::string& name) {
    auto args = decode_point(write(name, text), model);
    args.insert(args.end(), {"--uncertainty", "16"});
    return run_json(args);
  };
  const Json narrow = band(two, "two-narrow.yaml");
  const Json wide = band(set_spread(two, "ll_latency_us", "spread: 0.4"), "two-wide.yaml");
  REQUIRE(narrow["uncertain_numbers"] == 2);
  REQUIRE(wide["uncertain_numbers"] == 2);
  const double narrow_width =
      narrow["speedup_p90"].get<double>() - narrow["speedup_p10"].get<double>();
  const double wide_width = wide["speedup_p90"].get<double>() - wide["speedup_p10"].get<double>();
  CHECK(narrow_width > 0);
  CHECK(wide_width > 1.5 * narrow_width);
  REQUIRE(wide["sensitivity"].size() == 2);
  CHECK(wide["sensitivity"][0]["name"] == "hw.kernels.comm.ll_latency_us");
  const auto& top = wide["sensitivity"][0];
  CHECK(top["low"].get<double>() != top["high"].get<double>());
  CHECK(!top["source"].get<std::string>().empty());
}

TEST_CASE("The same seed gives the same bytes for any -j", "[uncertainty]") {
  auto args = decode_point("h800-sxm", "deepseek-v3");
  args.insert(args.end(), {"--uncertainty", "6"});
  auto with_j = [&](const std::string& j) {
    auto a = args;
    a.insert(a.end(), {"-j", j});
    const CliResult r = cli(a);
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string one = with_j("1");
  CHECK(one == with_j("2"));
  CHECK(one == with_j("3"));
  const Json j = Json::parse(one);
  CHECK(j["sensitivity"].size() == 5);
  CHECK(j["speedup_p10"].get<double>() <= j["speedup_p50"].get<double>());
  CHECK(j["speedup_p50"].get<double>() <= j["speedup_p90"].get<double>());
  // Another seed draws other points.
  auto other = args;
  other.insert(other.end(), {"--uncertainty-seed", "7"});
  CHECK(cli(other).out != one);
}

TEST_CASE("The text report names the band, the probability and how to pin each number down",
          "[uncertainty]") {
  auto args = decode_point("h800-sxm", "deepseek-v3");
  args.pop_back();  // no --json
  const auto chart = scratch_path("uncertainty", "tornado.svg");
  args.insert(args.end(), {"--uncertainty", "4", "--chart", chart.string()});
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("How sure: 4 draws") != std::string::npos);
  CHECK(r.out.find("pays in") != std::string::npos);
  CHECK(r.out.find("pin it down:") != std::string::npos);
  const std::string svg = file_bytes(chart);
  std::string why;
  CHECK(well_formed_xml(svg, &why));
  CHECK(svg_texts(svg).size() > 5);
}

TEST_CASE("A bad spread is the file's error at its line, exit 2", "[uncertainty]") {
  const std::string text = read_text(source_path("hw_profiles/h800-sxm.yaml"));
  SECTION("a negative spread") {
    const std::string bad = write("neg.yaml", set_spread(text, "ll_latency_us", "spread: -0.1"));
    const CliResult r = cli(decode_point(bad, "deepseek-v3"));
    CHECK(r.code == 2);
    CHECK(r.err.find("neg.yaml") != std::string::npos);
    CHECK(r.err.find("kernels.comm.ll_latency_us.spread") != std::string::npos);
  }
  SECTION("a range that misses the value") {
    const std::string bad = write(
        "miss.yaml", std::regex_replace(text, std::regex("range: \\[1, 4\\]"), "range: [3, 4]"));
    const CliResult r = cli(decode_point(bad, "deepseek-v3"));
    CHECK(r.code == 2);
    CHECK(r.err.find("must contain the value 2") != std::string::npos);
    CHECK(r.err.find("links.nvlink.latency_us.range") != std::string::npos);
  }
  SECTION("a whole number of the architecture with a spread") {
    // A draw of 7168 +- 5 % would not be a whole number of channels: counts are exact.
    const std::string v3 = read_text(source_path("models/configs/deepseek-v3.yaml"));
    const std::string bad =
        write("whole.yaml", std::regex_replace(v3, std::regex("hidden: \\{value: 7168, spread: 0,"),
                                               "hidden: {value: 7168, spread: 0.05,"));
    auto args = decode_point("h800-sxm", bad);
    const CliResult r = cli(args);
    CHECK(r.code == 2);
    CHECK(r.err.find("whole.yaml") != std::string::npos);
    CHECK(r.err.find("hidden.spread") != std::string::npos);
    CHECK(r.err.find("exact") != std::string::npos);
  }
  SECTION("a shipped profile's number without a spread") {
    // A data folder of its own whose h800-sxm lacks one spread: shipped files must state them;
    // the same file given by path (a user's own) loads, counting that number exact.
    const auto root = scratch_path("uncertainty", "home");
    std::filesystem::create_directories(root / "hw_profiles");
    const std::string lacking = std::regex_replace(
        text, std::regex("(event_us: \\{value: 1, )range: \\[[^\\]]*\\], "), "$1");
    REQUIRE(lacking != text);
    std::ofstream(root / "hw_profiles" / "h800-sxm.yaml") << lacking;
    const std::string user = write("user-h800.yaml", lacking);
    const char* old = std::getenv("OVERLAPSIM_HOME");
    const std::string saved = old ? old : "";
    setenv("OVERLAPSIM_HOME", root.c_str(), 1);
    std::string what;
    try {
      load_hw_profile("h800-sxm");
    } catch (const InputError& e) {
      what = e.what();
    }
    setenv("OVERLAPSIM_HOME", saved.c_str(), 1);
    CHECK(what.find("host.event_us") != std::string::npos);
    CHECK(what.find("states no spread") != std::string::npos);
    const HwProfile p = load_hw_profile(user);
    CHECK(contains(unstated_numbers(load_model_config("deepseek-v3"), p), "hw.host.event_us"));
  }
}

TEST_CASE("A sweep with uncertainty: N adds each point's band, as whatif --uncertainty N gives it",
          "[uncertainty][sweep]") {
  // Two points differing in an hw.* axis: the axis's field is set, not drawn, so each row's band
  // is the what-if's band on a profile with that field fixed.
  const std::string spec = write("band-sweep.yaml", R"(name: band-sweep
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 4096, ep: 32, tokens_per_gpu: 64}
axes:
  - {field: hw.links.rdma.latency_us, values: [5, 8]}
strategies: [tbo-decode]
uncertainty: 4
)");
  const auto out = scratch_path("uncertainty", "band-sweep.csv");
  const CliResult r = cli({"sweep", spec, "--out", out.string(), "-j", "2", "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const CsvTable t = CsvTable::load(out.string());
  REQUIRE(t.rows() == 2);
  for (size_t i = 0; i < t.rows(); ++i) {
    CHECK(t.at(i, "error").empty());
    CHECK(t.number(i, "speedup_p10") <= t.number(i, "speedup_p50"));
    CHECK(t.number(i, "speedup_p50") <= t.number(i, "speedup_p90"));
  }
  // The first point is the shipped profile with its RDMA latency set to 5 (its value): the same
  // draws as whatif --uncertainty 4 there, less the one number the axis fixes.
  UncertaintyRequest u;
  u.what.model = "deepseek-v3";
  u.what.hw = "h800-sxm";
  u.what.strategy = "tbo-decode";
  WorkloadWords words;
  words.phase = "decode";
  words.tokens_per_gpu = 64;
  words.context = 4096;
  words.ep = 32;
  u.what.workload = resolve_workload(words, RequestSource{});
  u.hw_overrides = {{"links.rdma.latency_us", "5"}};
  u.draws = 4;
  u.sensitivity = false;
  const UncertaintyResult band = run_uncertainty(u);
  CHECK(t.number(0, "speedup_p50") == band.speedup.p50);
  CHECK(t.number(0, "p_pays") == band.p_pays);
  CHECK(t.number(1, "speedup_p50") != t.number(0, "speedup_p50"));

  // sweep --uncertainty N on the same spec without the key gives the same rows; a file of one
  // count does not resume with another (the count is part of the sweep's identity).
  std::string plain = read_text(spec);
  plain = plain.substr(0, plain.find("uncertainty: 4"));
  const std::string spec2 = write("band-sweep-flag.yaml", plain);
  const auto out2 = scratch_path("uncertainty", "band-sweep-flag.csv");
  const CliResult f =
      cli({"sweep", spec2, "--out", out2.string(), "-j", "2", "-q", "--uncertainty", "4"});
  INFO(f.err);
  REQUIRE(f.code == 0);
  const CsvTable t2 = CsvTable::load(out2.string());
  REQUIRE(t2.rows() == 2);
  for (size_t i = 0; i < t2.rows(); ++i) {
    CHECK(t2.number(i, "speedup_p10") == t.number(i, "speedup_p10"));
    CHECK(t2.number(i, "speedup_p90") == t.number(i, "speedup_p90"));
    CHECK(t2.number(i, "p_pays") == t.number(i, "p_pays"));
  }
  const CliResult again =
      cli({"sweep", spec2, "--out", out2.string(), "-q", "--resume", "--uncertainty", "8"});
  CHECK(again.code == 2);
  CHECK(again.err.find("another sweep") != std::string::npos);
  const CliResult bad = cli({"sweep", spec2, "--out", out2.string(), "--uncertainty", "zero"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--uncertainty") != std::string::npos);
}

TEST_CASE("plan --uncertainty marks a best point whose target is met in fewer than 80 % of draws",
          "[uncertainty][plan]") {
  // V3 decode on 32 H800s: the best point runs at about 37.2 ms per token as given, its draws
  // spread about 36-40 ms. A 38 ms target is then met in some draws only; 45 ms in all.
  auto best = [](const std::string& target) {
    const CliResult r = cli({"plan", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase",
                             "decode", "--gpus", "32", "--context", "4096", "--tpot-ms", target,
                             "--uncertainty", "16", "-j", "2", "--json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    return Json::parse(r.out)["best"];
  };
  const Json tight = best("38"), loose = best("45");
  REQUIRE(tight.is_object());
  REQUIRE(loose.is_object());
  CHECK(tight["latency_ms"].get<double>() <= 38);
  CHECK(tight["latency_ms_p90"].get<double>() > 38);
  CHECK(tight["target_met_share"].get<double>() < 0.8);
  CHECK(tight["robust"] == false);
  CHECK(loose["target_met_share"].get<double>() == 1.0);
  CHECK(loose["robust"] == true);
  // Without --uncertainty the plan's JSON is as before.
  const CliResult plain =
      cli({"plan", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "decode", "--gpus",
           "32", "--context", "4096", "--tpot-ms", "38", "-j", "2", "--json"});
  REQUIRE(plain.code == 0);
  CHECK(!Json::parse(plain.out)["best"].contains("target_met_share"));
}

TEST_CASE("validate --uncertainty counts the rows inside the P10-P90 band", "[uncertainty]") {
  const std::string table = source_path("calibrate/published/deepgemm.csv");
  const CliResult r = cli({"validate", table, "--hw", "h800-sxm", "--uncertainty", "16"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m,
                            std::regex("all rows +20 rows +inside +([0-9.]+) % +below +([0-9]+) "
                                       "+above +([0-9]+) +width +([0-9.]+) %")));
  // inside + below + above = every row; the spreads give the bands a width.
  CHECK(std::stod(m[1]) / 100 * 20 + std::stoi(m[2]) + std::stoi(m[3]) == Approx(20));
  CHECK(std::stod(m[4]) > 0);
  // A profile with every spread zero predicts one time per row: bands of no width, and a row is
  // inside only where the prediction is exact.
  const std::string zero = write("zero-validate.yaml",
                                 zero_spreads(read_text(source_path("hw_profiles/h800-sxm.yaml"))));
  const CliResult z = cli({"validate", table, "--hw", zero, "--uncertainty", "4"});
  REQUIRE(z.code == 0);
  CHECK(z.out.find("all rows                             20 rows") != std::string::npos);
  CHECK(z.out.find("width   0.0 %") != std::string::npos);
}

TEST_CASE("validate --uncertainty bands every row of a layer breakdown", "[uncertainty]") {
  const std::string table = source_path("calibrate/published/sglang_h100_layer_breakdown.csv");
  const Json j = run_json({"validate", table, "--uncertainty", "8", "--json"});
  REQUIRE(j["draws"] == 8);
  int inside_fit = 0, inside_check = 0, rows = 0;
  for (const auto& r : j["rows"]) {
    const double p10 = r["p10_ms"], p90 = r["p90_ms"], measured = r["measured_ms"];
    CHECK(p10 <= p90);
    CHECK(r["inside"].get<bool>() == (measured >= p10 && measured <= p90));
    if (measured <= 0) continue;
    ++rows;
    (r["use"] == "fit" ? inside_fit : inside_check) += r["inside"].get<bool>() ? 1 : 0;
  }
  CHECK(rows == j["rows_fit"].get<int>() + j["rows_check"].get<int>());
  CHECK(j["inside_fit"] == inside_fit);
  CHECK(j["inside_check"] == inside_check);
  // The model config's numbers are drawn too: the prefill rows' hottest rank moves with
  // moe.sequence_expert_cv, so the default placement's combine has a band of some width.
  bool combine_wide = false;
  for (const auto& r : j["rows"])
    if (r["category"] == "Combine Core" && r["run"] == "in_run")
      combine_wide = combine_wide || r["p90_ms"].get<double>() > r["p10_ms"].get<double>() * 1.05;
  CHECK(combine_wide);
  // Without --uncertainty the JSON is as before.
  const Json plain = run_json({"validate", table, "--json"});
  CHECK(!plain.contains("draws"));
  CHECK(!plain["rows"][0].contains("p10_ms"));
}

TEST_CASE("validate --uncertainty bands a microbenchmark folder's rows and refuses the rest",
          "[uncertainty]") {
  const std::string dir = source_path("calibrate/data/nvidia-h200-20261204T153324Z");
  const CliResult r = cli({"validate", dir, "--hw", "h200-sxm", "--uncertainty", "4"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m,
                            std::regex("all rows +([0-9]+) rows +inside +([0-9.]+) % +below +"
                                       "([0-9]+) +above +([0-9]+)")));
  const int rows = std::stoi(m[1]);
  CHECK(rows > 0);
  // The share is printed to 0.1 %: over `rows` rows that is within rows x 0.0005.
  CHECK(std::stod(m[2]) / 100 * rows + std::stoi(m[3]) + std::stoi(m[4]) ==
        Approx(rows).margin(rows * 0.0005));
  // Printed as text only; a trace is not banded.
  const CliResult j = cli({"validate", dir, "--hw", "h200-sxm", "--uncertainty", "4", "--json"});
  CHECK(j.code == 2);
  CHECK(j.err.find("--uncertainty") != std::string::npos);
  const std::string trace = write("trace.json", "{\"traceEvents\": []}\n");
  const CliResult t = cli({"validate", trace, "--hw", "h800-sxm", "--uncertainty", "4"});
  CHECK(t.code == 2);
  CHECK(t.err.find("not traces") != std::string::npos);
}

TEST_CASE("A sweep axis may set a number outside its file's range; shards of drawn sweeps merge",
          "[uncertainty][sweep]") {
  // h800-sxm's host.event_us is a guess of 1 us with range [0.3, 2]: an axis value of 5 is the
  // caller's exact number, not a draw the range must hold.
  const std::string spec = write("outside-range.yaml", R"(name: outside-range
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 4096, ep: 32, tokens_per_gpu: 64}
axes:
  - {field: hw.host.event_us, values: [1, 5]}
strategies: [tbo-decode]
)");
  const auto out = scratch_path("uncertainty", "outside-range.csv");
  const CliResult r = cli({"sweep", spec, "--out", out.string(), "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const CsvTable t = CsvTable::load(out.string());
  REQUIRE(t.rows() == 2);
  for (size_t i = 0; i < t.rows(); ++i) CHECK(t.at(i, "error").empty());

  // Two shards of a sweep with draws merge into the file the whole sweep writes.
  const auto whole = scratch_path("uncertainty", "drawn-whole.csv");
  REQUIRE(cli({"sweep", spec, "--out", whole.string(), "-q", "--uncertainty", "2"}).code == 0);
  std::vector<std::string> parts;
  for (const char* shard : {"0/2", "1/2"}) {
    const auto p = scratch_path("uncertainty", std::string("drawn-") + shard[0] + ".csv");
    REQUIRE(cli({"sweep", spec, "--out", p.string(), "-q", "--uncertainty", "2", "--shard", shard})
                .code == 0);
    parts.push_back(p.string());
  }
  const auto merged = scratch_path("uncertainty", "drawn-merged.csv");
  const CliResult m = cli({"merge", merged.string(), parts[0], parts[1]});
  INFO(m.err);
  REQUIRE(m.code == 0);
  const CsvTable a = CsvTable::load(whole.string()), b = CsvTable::load(merged.string());
  REQUIRE(a.rows() == b.rows());
  for (size_t i = 0; i < a.rows(); ++i)
    for (const char* c : {"speedup_p10", "speedup_p50", "speedup_p90", "p_pays"})
      CHECK(a.at(i, c) == b.at(i, c));
}

TEST_CASE("The draws' own flags are refused without --uncertainty", "[uncertainty]") {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--uncertainty-seed", "3"}, {"-j", "2"}, {"--chart", "t.svg"}}) {
    std::vector<std::string> args = decode_point("h800-sxm", "deepseek-v3");
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = cli(args);
    CHECK(r.code == 2);
    CHECK(r.err.find("goes with --uncertainty") != std::string::npos);
  }
}
