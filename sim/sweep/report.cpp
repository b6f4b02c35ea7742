#include "sim/sweep/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/csv_reader.hpp"
#include "sim/sweep/crossover.hpp"
#include "sim/sweep/svg_chart.hpp"

namespace ovs {
namespace {

std::string group_text(const std::map<std::string, std::string>& g) {
  std::string s;
  for (const auto& [k, v] : g) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s.empty() ? "all points" : s;
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  AtomicFile f(p.string());
  f.stream() << text;
  f.commit();
}

}  // namespace

int write_report(const ReportOptions& o, std::ostream& out) {
  namespace fs = std::filesystem;
  const ResultsTable t = load_results(o.results);
  if (std::find(t.input_columns.begin(), t.input_columns.end(), o.x) == t.input_columns.end())
    throw InputError(o.results, 1, o.x, "no such input column for --x");
  if (!o.y.empty() &&
      std::find(t.input_columns.begin(), t.input_columns.end(), o.y) == t.input_columns.end())
    throw InputError(o.results, 1, o.y, "no such input column for --y");
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw InputError(o.out_dir, 0, "", "cannot create the output directory: " + ec.message());

  // Crossover table.
  const auto cs = crossovers(t, o.x, o.results);
  std::string csv = "strategy";
  std::set<std::string> gcols;
  for (const auto& c : cs)
    for (const auto& [k, v] : c.group) gcols.insert(k);
  for (const auto& k : gcols) csv += "," + csv_field(k);
  csv += ",status,crossover_" + o.x + ",min_speedup,max_speedup\n";
  out << fmt::format("Where each strategy starts to beat the baseline along {}:\n", o.x);
  for (const auto& c : cs) {
    csv += csv_field(c.strategy);
    for (const auto& k : gcols) csv += "," + csv_field(c.group.count(k) ? c.group.at(k) : "");
    csv += "," + c.status + "," + (c.status == "crosses" ? fmt::format("{:.4g}", c.x) : "") +
           fmt::format(",{:.4g},{:.4g}\n", c.min_speedup, c.max_speedup);
    out << fmt::format(
        "  {:<28} {:<44} {}\n", c.strategy, group_text(c.group),
        c.status == "crosses"
            ? fmt::format("pays from {} = {:.0f}", o.x, c.x)
            : c.status + fmt::format(" (speedup {:.2f}-{:.2f})", c.min_speedup, c.max_speedup));
  }
  write_file(fs::path(o.out_dir) / "crossover.csv", csv);

  // Speedup against x: one chart per combination of the other varying inputs.
  std::map<std::map<std::string, std::string>, std::map<std::string, Series>> charts;
  for (const auto& r : t.rows) {
    if (!r.ok) continue;
    std::map<std::string, std::string> g;
    for (const auto& c : t.varying)
      if (c != o.x) g[c] = r.inputs.at(c);
    auto& series = charts[g][r.strategy];
    series.name = r.strategy;
    if (r.fits)
      series.points.emplace_back(input_number(r, o.x, o.results), r.speedup);
    else
      series.no_fit_xs.push_back(input_number(r, o.x, o.results));
  }
  int n = 0;
  for (const auto& [g, series] : charts) {
    LineChart c;
    c.title = "Speedup over baseline - " + group_text(g);
    c.x_label = o.x;
    for (const auto& [name, s] : series) c.series.push_back(s);
    write_file(fs::path(o.out_dir) / fmt::format("speedup-{:03}.svg", n++), render_line_chart(c));
  }
  // Break-even heatmaps over (x, y), one per strategy and combination of the rest.
  if (!o.y.empty()) {
    // NaN marks a point where a side does not fit in HBM (drawn as such).
    std::map<std::pair<std::map<std::string, std::string>, std::string>,
             std::map<std::pair<double, double>, double>>
        maps;
    std::set<std::pair<std::pair<std::map<std::string, std::string>, std::string>,
                       std::pair<double, double>>>
        no_fit;
    for (const auto& r : t.rows) {
      if (!r.ok) continue;
      std::map<std::string, std::string> g;
      for (const auto& c : t.varying)
        if (c != o.x && c != o.y) g[c] = r.inputs.at(c);
      const std::pair<double, double> yx{input_number(r, o.y, o.results),
                                         input_number(r, o.x, o.results)};
      maps[{g, r.strategy}][yx] = r.fits ? r.speedup : std::numeric_limits<double>::quiet_NaN();
      if (!r.fits) no_fit.insert({{g, r.strategy}, yx});
    }
    int m = 0;
    for (const auto& [key, cells] : maps) {
      Heatmap h;
      h.title = "Speedup of " + key.second + " - " + group_text(key.first);
      h.x_label = o.x;
      h.y_label = o.y;
      std::set<double> xs, ys;
      for (const auto& [yx, v] : cells) ys.insert(yx.first), xs.insert(yx.second);
      for (double x : xs) h.xs.push_back(fmt::format("{:g}", x));
      for (double y : ys) h.ys.push_back(fmt::format("{:g}", y));
      for (double y : ys) {
        std::vector<double> row;
        std::vector<bool> row_no_fit;
        for (double x : xs) {
          auto it = cells.find({y, x});
          row.push_back(it == cells.end() ? std::numeric_limits<double>::quiet_NaN() : it->second);
          row_no_fit.push_back(no_fit.count({key, {y, x}}) > 0);
        }
        h.values.push_back(row);
        h.no_fit.push_back(row_no_fit);
      }
      write_file(fs::path(o.out_dir) / fmt::format("heatmap-{:03}.svg", m++), render_heatmap(h));
      ++n;
    }
  }
  out << fmt::format("wrote {} and {} chart(s) to {}\n", "crossover.csv", n, o.out_dir);
  return n;
}

}  // namespace ovs
