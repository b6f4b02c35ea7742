// report: the best strategy at each x and where the lead changes (any two strategies, not only
// each against the baseline); a row for every value of the other axes in the crossover table,
// "does not fit" where nothing fits; "nice number" ticks whose labels never repeat; no label on
// a marker; --x and --y refused (exit 2, one line naming the flag) before any file is written.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <tuple>

#include "app/sweep/axis_ticks.hpp"
#include "app/sweep/crossover.hpp"
#include "app/sweep/leaders.hpp"
#include "app/sweep/svg_chart.hpp"
#include "helpers.hpp"
#include "sim/io/csv_reader.hpp"
#include "sim/io/svg_parts.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

// One row of a hand-made results table: strategy `s` at tokens_per_gpu = x (and ep), its
// speedup over no-overlap, and whether both sides / the baseline fit in HBM.
ResultRow row(const std::string& s, double x, double speedup, bool fits = true,
              bool baseline_fits = true, const std::string& ep = "16") {
  ResultRow r;
  r.inputs = {{"tokens_per_gpu", fmt::format("{:g}", x)}, {"ep", ep}};
  r.strategy = s;
  r.baseline = "no-overlap";
  r.speedup = fits ? speedup : 0;
  r.fits = fits;
  r.baseline_fits = baseline_fits;
  return r;
}

ResultsTable table(std::vector<ResultRow> rows, std::vector<std::string> varying) {
  ResultsTable t;
  t.input_columns = {"tokens_per_gpu", "ep"};
  t.varying = std::move(varying);
  t.rows = std::move(rows);
  return t;
}

// The exponent k and mantissa m of a tick step m x 10^k.
std::pair<int, double> step_parts(double step) {
  const int k = static_cast<int>(std::floor(std::log10(step) + 1e-9));
  return {k, step / std::pow(10, k)};
}

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

double attr(const std::string& tag, const std::string& name) {
  const size_t at = tag.find(" " + name + "=\"");
  return at == std::string::npos ? NAN : std::stod(tag.substr(at + name.size() + 3));
}

// Every marker a chart draws on its plot: circles (points) and crosses (does not fit).
std::vector<Box> markers(const std::string& svg) {
  std::vector<Box> out;
  const std::regex circle("<circle[^>]*>"),
      cross("<path d=\"M([-0-9.]+),([-0-9.]+) l8,8[^>]*><title>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), circle), end; it != end; ++it) {
    const std::string tag = it->str();
    const double cx = attr(tag, "cx"), cy = attr(tag, "cy"), r = attr(tag, "r");
    out.push_back({cx - r, cy - r, cx + r, cy + r});
  }
  for (std::sregex_iterator it(svg.begin(), svg.end(), cross), end; it != end; ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    out.push_back({x, y, x + 8, y + 8});
  }
  return out;
}

// Start-anchored 12 px texts (legend entries, the break-even label): text, box.
std::vector<std::pair<std::string, Box>> start_texts(const std::string& svg) {
  std::vector<std::pair<std::string, Box>> out;
  const std::regex text("<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\">([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), text), end; it != end; ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    const std::string t = (*it)[3];
    out.push_back({t, {x, y - 12, x + svg::text_width_px(t), y + 3}});
  }
  return out;
}

// The y-axis tick labels: right-anchored texts left of the plot (x = 64).
std::vector<std::string> y_tick_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex tick("<text x=\"64\" y=\"[-0-9.]+\" text-anchor=\"end\">([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it)
    out.push_back((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("ticks step by 1, 2, 2.5 or 5 x 10^k and their labels never repeat", "[report][ticks]") {
  // 0.999..1.001 in about 6 ticks: raw step 0.002 / 6 = 0.00033; the first nice step at least
  // that is 5 x 10^-4 (1, 2 and 2.5 x 10^-4 are smaller), so 4 decimals: 0.9990 ... 1.0010.
  const AxisTicks flat = nice_ticks(0.999, 1.001, 6);
  CHECK(flat.step == Approx(5e-4));
  CHECK(flat.decimals == 4);
  CHECK(flat.labels == std::vector<std::string>{"0.9990", "0.9995", "1.0000", "1.0005", "1.0010"});
  // 0..1 in about 4: raw 0.25 = 2.5 x 10^-1, which needs two decimals (0.25, not 0.2 or 0.3).
  const AxisTicks quarters = nice_ticks(0, 1, 4);
  CHECK(quarters.step == Approx(0.25));
  CHECK(quarters.labels == std::vector<std::string>{"0.00", "0.25", "0.50", "0.75", "1.00"});
  // 0.8..1.3 in about 6: raw 0.083 > 5 x 10^-2, so 1 x 10^-1; 0.1 x 3 stays 0.3, not
  // 0.30000000000000004.
  const AxisTicks tenths = nice_ticks(0.8, 1.3, 6);
  CHECK(tenths.labels == std::vector<std::string>{"0.8", "0.9", "1.0", "1.1", "1.2", "1.3"});
  for (const auto& [lo, hi, n] : std::vector<std::tuple<double, double, int>>{
           {0.999, 1.001, 6}, {0.5, 1.7, 6}, {0, 250, 8}, {4, 512, 8}, {0.98, 1.02, 6}}) {
    const AxisTicks t = nice_ticks(lo, hi, n);
    INFO(lo << ".." << hi);
    const auto [k, m] = step_parts(t.step);
    CHECK((m == Approx(1) || m == Approx(2) || m == Approx(2.5) || m == Approx(5)));
    CHECK(std::set<std::string>(t.labels.begin(), t.labels.end()).size() == t.labels.size());
    for (size_t i = 0; i < t.values.size(); ++i) {
      CHECK(t.values[i] >= lo - t.step * 1e-9);
      CHECK(t.values[i] <= hi + t.step * 1e-9);
      CHECK(std::stod(t.labels[i]) == Approx(t.values[i]).margin(t.step / 1000));
    }
  }
}

TEST_CASE("a flat speedup chart reads distinct y ticks around break-even", "[report][ticks]") {
  // Every speedup within 0.0005 of 1: the old axis read 1.001, 1.001, 1, 1, 0.999.
  LineChart c;
  c.title = "flat";
  c.series.push_back({"tbo-decode", {{8, 0.9995}, {64, 1.0}, {256, 1.0005}}, {}});
  const auto labels = y_tick_labels(render_line_chart(c));
  REQUIRE(labels.size() >= 3);
  CHECK(std::set<std::string>(labels.begin(), labels.end()).size() == labels.size());
  CHECK(std::find(labels.begin(), labels.end(), "1.000") != labels.end());
}

TEST_CASE("no text of a speedup chart sits on a marker; break-even is named in the legend",
          "[report][charts]") {
  // Points at the right edge on the break-even line (where a label at the line's end went),
  // crosses where a side does not fit, and a best band.
  LineChart c;
  c.title = "markers";
  c.series.push_back({"tbo-decode", {{8, 0.9}, {64, 1.0}, {256, 1.0}}, {512}});
  c.series.push_back({"sbo", {{8, 1.0}, {64, 1.05}, {256, 1.02}}, {512}});
  c.best = {{8, "no-overlap"}, {64, "sbo"}, {256, "sbo"}, {512, kNothingFits}};
  c.band_baseline = "no-overlap";
  const std::string svg = render_line_chart(c);
  std::string why;
  CHECK(well_formed_xml(svg, &why));
  const auto texts = start_texts(svg);
  const auto ms = markers(svg);
  REQUIRE(ms.size() == 3 + 3 + 2);
  bool break_even = false;
  for (const auto& [t, box] : texts) {
    break_even = break_even || t == "1 = break-even";
    for (const auto& m : ms) {
      INFO(t);
      CHECK_FALSE(box.overlaps(m));
    }
  }
  CHECK(break_even);
  CHECK(texts.size() >= 4);  // break-even, two series, does not fit, best: no-overlap
}

TEST_CASE("the best strategy at each x, and where the lead changes between any two",
          "[report][leaders]") {
  // Speedups over no-overlap (1.0):      x = 4     8     16    32    64    128
  //   tbo-decode                             0.70  0.80  0.90  1.10  1.30  does not fit
  //   sbo                                    0.98  1.05  1.08  1.06  1.04  does not fit
  // Best: no-overlap at 4 (0.98 < 1), sbo at 8 and 16, tbo-decode at 32 and 64, nothing at 128
  // (the baseline does not fit either).
  const std::vector<double> xs{4, 8, 16, 32, 64};
  const std::vector<double> tbo{0.70, 0.80, 0.90, 1.10, 1.30}, sbo{0.98, 1.05, 1.08, 1.06, 1.04};
  std::vector<ResultRow> rows;
  for (size_t i = 0; i < xs.size(); ++i) {
    rows.push_back(row("tbo-decode", xs[i], tbo[i]));
    rows.push_back(row("sbo", xs[i], sbo[i]));
  }
  rows.push_back(row("tbo-decode", 128, 0, false, false));
  rows.push_back(row("sbo", 128, 0, false, false));
  const auto ls = leaders(table(rows, {"tokens_per_gpu"}), "tokens_per_gpu", "t.csv");
  REQUIRE(ls.size() == 1);
  const Leaders& l = ls[0];
  std::vector<std::string> best;
  for (const auto& lead : l.leads) best.push_back(lead.best);
  CHECK(best == std::vector<std::string>{"no-overlap", "sbo", "sbo", "tbo-decode", "tbo-decode",
                                         kNothingFits});
  CHECK(l.leads[1].speedup == 1.05);
  CHECK(l.leads[1].runner_up == "no-overlap");  // 1.0 beats tbo-decode's 0.80
  CHECK(l.leads[3].runner_up == "sbo");
  REQUIRE(l.changes.size() == 3);
  // The axis spans 4..128, a factor of 32 >= 10: crossings are interpolated in log x, where the
  // chart draws straight lines. sbo over no-overlap between 4 and 8: the gap no-overlap - sbo
  // goes from 1 - 0.98 = 0.02 to 1 - 1.05 = -0.05, zero at f = 0.02 / 0.07 of the way.
  const double f1 = 0.02 / 0.07;
  CHECK(l.changes[0].from == "no-overlap");
  CHECK(l.changes[0].to == "sbo");
  CHECK(l.changes[0].x == Approx(std::exp(std::log(4) + f1 * (std::log(8) - std::log(4)))));
  // tbo-decode over sbo - head to head, not against the baseline - between 16 and 32: the gap
  // sbo - tbo-decode goes from 1.08 - 0.90 = 0.18 to 1.06 - 1.10 = -0.04: f = 0.18 / 0.22.
  const double f2 = 0.18 / 0.22;
  CHECK(l.changes[1].from == "sbo");
  CHECK(l.changes[1].to == "tbo-decode");
  CHECK(l.changes[1].after_x == 16);
  CHECK(l.changes[1].before_x == 32);
  CHECK(l.changes[1].x == Approx(std::exp(std::log(16) + f2 * (std::log(32) - std::log(16)))));
  CHECK(change_words(l.changes[1], false) ==
        fmt::format("tbo-decode overtakes sbo at ~{:.3g} (between 16 and 32)", l.changes[1].x));
  CHECK(l.changes[2].to == kNothingFits);
  CHECK(lead_runs(l, false) ==
        "no-overlap 4, sbo 8-16, tbo-decode 32-64, " + std::string(kNothingFits) + " 128");
}

TEST_CASE("the crossover table keeps a row where nothing fits", "[report][crossover]") {
  // EP 16 fits at both x; at EP 8 neither point fits: its row says so instead of vanishing.
  std::vector<ResultRow> rows{
      row("tbo-decode", 8, 0.9, true, true, "16"), row("tbo-decode", 64, 1.2, true, true, "16"),
      row("tbo-decode", 8, 0, false, true, "8"), row("tbo-decode", 64, 0, false, false, "8")};
  const auto cs = crossovers(table(rows, {"tokens_per_gpu", "ep"}), "tokens_per_gpu", "t.csv");
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].group.at("ep") == "8");  // numeric order
  CHECK(cs[0].status == kDoesNotFit);
  CHECK(cs[1].group.at("ep") == "16");
  CHECK(cs[1].status == "crosses");
}

TEST_CASE("report: head to head and every axis value from a sweep; bad --x/--y write nothing",
          "[report][bad-input]") {
  const fs::path spec = scratch_path("head-to-head", "h2h.yaml");
  const fs::path csv = scratch_path("head-to-head", "h2h.csv");
  std::ofstream(spec) << "name: h2h\nbase: {model: deepseek-v3, phase: decode, context: 2048, "
                         "ep: 16}\naxes:\n  - {field: hw, values: [h800-sxm, h200-sxm]}\n"
                         "  - {field: tokens_per_gpu, values: [8, 64, 256]}\n"
                         "strategies: [tbo-decode, sbo]\n";
  const CliResult sw = cli({"sweep", spec.string(), "--out", csv.string(), "-q"});
  INFO(sw.err);
  REQUIRE(sw.code == 0);

  // Refused before any file is written: one line naming the flag, exit 2, no output directory.
  const fs::path none = scratch_path("head-to-head", "refused");
  for (const auto& [args, flag] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--y", "hw"}, "--y"},               // an input, but not a number
           {{"--y", "nope"}, "--y"},             // no such column
           {{"--x", "hw"}, "--x"},               // not a number
           {{"--y", "tokens_per_gpu"}, "--y"}})  // the same column as --x
  {
    fs::remove_all(none);
    std::vector<std::string> a{"report", csv.string(), "--out-dir", none.string()};
    a.insert(a.end(), args.begin(), args.end());
    const CliResult r = cli(a);
    INFO(args[0] << " " << args[1] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(flag) != std::string::npos);
    CHECK_FALSE(fs::exists(none));
  }

  const fs::path dir = scratch_path("head-to-head", "report");
  fs::remove_all(dir);
  const CliResult r = cli({"report", csv.string(), "--out-dir", dir.string(), "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["files"][1] == "leaders.csv");
  // sweep --report checks the same against the spec, before the sweep runs: no results file.
  const fs::path unwritten = scratch_path("head-to-head", "unwritten.csv");
  fs::remove(unwritten);
  const CliResult early = cli({"sweep", spec.string(), "--out", unwritten.string(), "-q",
                               "--report", none.string(), "--y", "hw"});
  CHECK(early.code == 2);
  CHECK(std::count(early.err.begin(), early.err.end(), '\n') == 1);
  CHECK(early.err.find("--y") != std::string::npos);
  CHECK_FALSE(fs::exists(unwritten));
  CHECK_FALSE(fs::exists(none));

  // The best at each (hw, x) is the highest speedup in the CSV among the rows where both sides
  // fit in HBM; no-overlap (1.0) where it fits and none is higher; "does not fit" where nothing
  // fits (a speedup is written even then: it is not a candidate).
  const CsvTable t = CsvTable::load(csv.string());
  std::map<std::pair<std::string, double>, std::pair<std::string, double>> expect;
  for (size_t i = 0; i < t.rows(); ++i) {
    const auto key = std::make_pair(t.at(i, "hw"), t.number(i, "tokens_per_gpu"));
    if (!expect.count(key)) expect[key] = {kNothingFits, 0.0};
    if (t.at(i, "baseline_fits") == "true" && expect[key].second < 1.0)
      expect[key] = {"no-overlap", 1.0};
    if (t.at(i, "baseline_fits") != "true" || t.at(i, "overlapped_fits") != "true") continue;
    const double s = t.number(i, "speedup");
    if (s > expect[key].second) expect[key] = {t.at(i, "strategy"), s};
  }
  size_t seen = 0;
  for (const auto& l : j["leaders"])
    for (const auto& b : l["best"]) {
      const auto key = std::make_pair(l["group"]["hw"].get<std::string>(), b["x"].get<double>());
      INFO(key.first << " " << key.second);
      REQUIRE(expect.count(key));
      CHECK(b["best"] == expect[key].first);
      ++seen;
    }
  CHECK(seen == expect.size());  // every hw and every x
  // The crossover table has a row for each hw and strategy.
  CHECK(j["crossovers"].size() == 2 * 2);
  const CliResult text = cli({"report", csv.string(), "--out-dir", dir.string()});
  CHECK(text.out.find("Best at each tokens_per_gpu (highest speedup over no-overlap") !=
        std::string::npos);
}
