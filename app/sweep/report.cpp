#include "app/sweep/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "app/sweep/chart_words.hpp"
#include "app/sweep/svg_chart.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/csv_reader.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {
namespace {

std::string group_text(const Inputs& g) {
  std::string s;
  for (const auto& [k, v] : g) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s.empty() ? "all points" : s;
}

// The inputs every row shares (one value in the whole file).
Inputs constant_inputs(const ResultsTable& t) {
  Inputs c;
  if (t.rows.empty()) return c;
  for (const auto& col : t.input_columns)
    if (std::find(t.varying.begin(), t.varying.end(), col) == t.varying.end())
      c[col] = t.rows.front().inputs.at(col);
  return c;
}

Inputs merged(Inputs a, const Inputs& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

// What a chart's title names: model, phase, GPU, EP, context and batch, plus whatever varies
// between the charts; the other shared settings go to its subtitle.
bool title_key(const std::string& k) {
  return k == "model" || k == "phase" || k == "hw" || k == "ep" || k == "context" ||
         k == "tokens_per_gpu";
}
std::pair<Inputs, Inputs> title_and_detail(const Inputs& constants, const Inputs& group) {
  Inputs title = group, detail;
  for (const auto& [k, v] : constants) (title_key(k) ? title : detail)[k] = v;
  return {title, detail};
}

std::string phase_of(const Inputs& in) {
  auto it = in.find("phase");
  return it == in.end() ? std::string() : it->second;
}

// Model, phase and GPU always (they say what a chart is of), then the other varying inputs.
std::string file_part(const Inputs& all, const Inputs& group) {
  std::string s;
  for (const char* k : {"model", "phase", "hw"})
    if (all.count(k)) s += "--" + slug(all.at(k));
  for (const auto& [k, v] : group)
    if (k != "model" && k != "phase" && k != "hw") s += "--" + slug(k + "-" + v);
  return s;
}

bool is_number(const std::string& s) {
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end != s.c_str() && !*end;
}

// What --x and --y are checked against: the input columns, and the values known for each (every
// row's for a results file; a sweep spec's base and axis values before it runs).
struct AxisChoices {
  std::string file;
  std::vector<std::string> columns;
  std::map<std::string, std::set<std::string>> values;
};

// An input column with a number in every known value - checked before any file is written, the
// error naming the flag and the columns that would do.
void check_axis(const AxisChoices& a, const std::string& flag, const std::string& column) {
  auto numeric = [&](const std::string& c) {
    const auto it = a.values.find(c);
    return it == a.values.end() || std::all_of(it->second.begin(), it->second.end(), is_number);
  };
  std::vector<std::string> usable;
  for (const auto& [c, vs] : a.values)
    if (vs.size() > 1 && numeric(c)) usable.push_back(c);
  const std::string choose = usable.empty() ? "no input that varies here is a number"
                                            : "numeric inputs that vary: " + yaml::join(usable);
  if (std::find(a.columns.begin(), a.columns.end(), column) == a.columns.end())
    throw flag_error(flag,
                     fmt::format("no such input column '{}' in {}; {}", column, a.file, choose));
  if (!numeric(column))
    for (const auto& v : a.values.at(column))
      if (!is_number(v))
        throw flag_error(flag, fmt::format("'{}' is not a numeric input ({} = '{}' in {}); {}",
                                           column, column, v, a.file, choose));
}

void check_axes(const AxisChoices& a, const std::string& x, const std::string& y) {
  check_axis(a, "--x", x);
  if (y.empty()) return;
  if (y == x) throw flag_error("--y", "names the same column as --x ('" + x + "')");
  check_axis(a, "--y", y);
}

std::string speedup_field(const Crossover& c) {
  return c.status == kDoesNotFit ? "," : fmt::format("{:.4g},{:.4g}", c.min_speedup, c.max_speedup);
}

class ChartFiles {
 public:
  explicit ChartFiles(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::string write(const std::string& stem, const std::string& text) {
    std::string name = stem + ".svg";
    for (int n = 2; used_.count(name); ++n) name = stem + "-" + std::to_string(n) + ".svg";
    used_.insert(name);
    AtomicFile f((dir_ / name).string());
    f.stream() << text;
    f.commit();
    return name;
  }

 private:
  std::filesystem::path dir_;
  std::set<std::string> used_;
};

}  // namespace

void check_report_axes(const SweepSpec& spec, const std::string& x, const std::string& y) {
  AxisChoices a{spec.file, spec.input_columns(), {}};
  for (const auto& [field, v] : spec.base) a.values[field].insert(v);
  for (const auto& axis : spec.axes) {
    a.values[axis.field].clear();
    a.values[axis.field].insert(axis.values.begin(), axis.values.end());
  }
  check_axes(a, x, y);
}

ReportSummary write_report(const ReportOptions& o) {
  namespace fs = std::filesystem;
  const ResultsTable t = load_results(o.results);
  {
    AxisChoices a{o.results, t.input_columns, {}};
    for (const auto& r : t.rows)
      for (const auto& [c, v] : r.inputs) a.values[c].insert(v);
    check_axes(a, o.x, o.y);
  }
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw InputError(o.out_dir, 0, "", "cannot create the output directory: " + ec.message());
  ReportSummary sum;
  sum.x = o.x;
  const Inputs constants = constant_inputs(t);
  std::string baseline;
  for (const auto& r : t.rows)
    if (!r.baseline.empty()) baseline = r.baseline;
  if (baseline.empty()) baseline = "the baseline";

  // Crossover table.
  sum.crossovers = crossovers(t, o.x, o.results);
  std::string csv = "strategy";
  std::set<std::string> gcols;
  for (const auto& c : sum.crossovers)
    for (const auto& [k, v] : c.group) gcols.insert(k);
  for (const auto& k : gcols) csv += "," + csv_field(k);
  csv += ",status,crossover_" + o.x + ",min_speedup,max_speedup\n";
  for (const auto& c : sum.crossovers) {
    csv += csv_field(c.strategy);
    for (const auto& k : gcols) csv += "," + csv_field(c.group.count(k) ? c.group.at(k) : "");
    csv += "," + c.status + "," + (c.status == "crosses" ? fmt::format("{:.4g}", c.x) : "") + "," +
           speedup_field(c) + "\n";
  }
  {
    AtomicFile f((fs::path(o.out_dir) / "crossover.csv").string());
    f.stream() << csv;
    f.commit();
  }
  sum.files.push_back("crossover.csv");
  // Head to head: the best at each x and where the lead changes.
  sum.leaders = leaders(t, o.x, o.results);
  {
    AtomicFile f((fs::path(o.out_dir) / "leaders.csv").string());
    f.stream() << leaders_csv(sum.leaders, o.x);
    f.commit();
  }
  sum.files.push_back("leaders.csv");
  ChartFiles files(o.out_dir);

  // Speedup against x: one chart per combination of the other varying inputs, in numeric order.
  std::map<Inputs, std::map<std::string, Series>, InputsLess> charts;
  for (const auto& r : t.rows) {
    if (!r.ok) continue;
    Inputs g;
    for (const auto& c : t.varying)
      if (c != o.x) g[c] = r.inputs.at(c);
    auto& series = charts[g][r.strategy];
    series.name = r.strategy;
    if (r.fits)
      series.points.emplace_back(input_number(r, o.x, o.results), r.speedup);
    else
      series.no_fit_xs.push_back(input_number(r, o.x, o.results));
  }
  for (const auto& [g, series] : charts) {
    const Inputs all = merged(constants, g);
    const std::string x_words = axis_label(o.x, phase_of(all));
    LineChart c;
    const auto [title_in, detail_in] = title_and_detail(constants, g);
    c.title = fmt::format("Speedup over {} - {}", baseline, setting_words(title_in, o.x));
    c.subtitle = detail_in.empty() ? "" : "with " + setting_words(detail_in, o.x);
    c.x_label = x_words;
    c.y_label = fmt::format("speedup over {} (x)", baseline);
    c.discrete_x = discrete_axis(o.x);
    for (const auto& [name, s] : series) c.series.push_back(s);
    for (const auto& l : sum.leaders)
      if (l.group == g) {
        c.band_baseline = l.baseline;
        for (const auto& lead : l.leads) c.best.emplace_back(lead.x, lead.best);
        for (const auto& change : l.changes)
          if (change.interpolated) c.lead_change_xs.push_back(change.x);
      }
    sum.files.push_back(
        files.write("speedup-vs-" + slug(x_words) + file_part(all, g), render_line_chart(c)));
    ++sum.charts;
  }
  // Break-even heatmaps over (x, y), one per strategy and combination of the rest.
  if (!o.y.empty()) {
    struct KeyLess {
      bool operator()(const std::pair<Inputs, std::string>& a,
                      const std::pair<Inputs, std::string>& b) const {
        if (a.first != b.first) return InputsLess{}(a.first, b.first);
        return a.second < b.second;
      }
    };
    // NaN marks a point where a side does not fit in HBM (drawn as such).
    std::map<std::pair<Inputs, std::string>, std::map<std::pair<double, double>, double>, KeyLess>
        maps;
    std::set<std::pair<std::pair<Inputs, std::string>, std::pair<double, double>>> no_fit;
    for (const auto& r : t.rows) {
      if (!r.ok) continue;
      Inputs g;
      for (const auto& c : t.varying)
        if (c != o.x && c != o.y) g[c] = r.inputs.at(c);
      const std::pair<double, double> yx{input_number(r, o.y, o.results),
                                         input_number(r, o.x, o.results)};
      maps[{g, r.strategy}][yx] = r.fits ? r.speedup : std::numeric_limits<double>::quiet_NaN();
      if (!r.fits) no_fit.insert({{g, r.strategy}, yx});
    }
    for (const auto& [key, cells] : maps) {
      const Inputs all = merged(constants, key.first);
      Heatmap h;
      const auto [title_in, detail_in] = title_and_detail(constants, key.first);
      h.title = fmt::format("Speedup of {} over {} - {}", key.second, baseline,
                            setting_words(title_in, o.x, o.y));
      h.subtitle = detail_in.empty() ? "" : "with " + setting_words(detail_in, o.x, o.y);
      h.x_label = axis_label(o.x, phase_of(all));
      h.y_label = axis_label(o.y, phase_of(all));
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
      sum.files.push_back(files.write("heatmap-" + slug(key.second) + "-over-" + slug(h.x_label) +
                                          "-and-" + slug(h.y_label) + file_part(all, key.first),
                                      render_heatmap(h)));
      ++sum.charts;
    }
  }
  return sum;
}

void print_report(std::ostream& out, const ReportSummary& s, const std::string& out_dir) {
  out << fmt::format("Where each strategy starts to beat the baseline along {}:\n", s.x);
  for (const auto& c : s.crossovers)
    out << fmt::format(
        "  {:<28} {:<44} {}\n", c.strategy, group_text(c.group),
        c.status == "crosses" ? fmt::format("pays from {} = {}", s.x,
                                            discrete_axis(s.x) ? fmt::format("{:g}", c.x)
                                                               : fmt::format("{:.0f}", c.x))
        : c.status == kDoesNotFit
            ? std::string("does not fit in HBM at any ") + s.x
            : c.status + fmt::format(" (speedup {:.2f}-{:.2f})", c.min_speedup, c.max_speedup));
  const bool discrete = discrete_axis(s.x);
  if (!s.leaders.empty()) {
    const std::string& b = s.leaders.front().baseline;
    out << fmt::format("Best at each {0} (highest speedup over {1}; {1} where nothing beats it):\n",
                       s.x, b.empty() ? "the baseline" : b);
  }
  for (const auto& l : s.leaders) {
    out << fmt::format("  {:<28} {}\n", group_text(l.group), lead_runs(l, discrete));
    for (const auto& c : l.changes)
      out << fmt::format("  {:<28} {}\n", "", change_words(c, discrete));
  }
  out << fmt::format("wrote {}, {} and {} chart(s) to {}\n", "crossover.csv", "leaders.csv",
                     s.charts, out_dir);
}

nlohmann::ordered_json report_json(const ReportSummary& s) {
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  for (const auto& c : s.crossovers) {
    const bool fits = c.status != kDoesNotFit;
    nlohmann::ordered_json g = nlohmann::ordered_json::object();
    for (const auto& [k, v] : c.group) g[k] = v;
    cs.push_back({{"strategy", c.strategy},
                  {"baseline", c.baseline},
                  {"group", g},
                  {"status", c.status},
                  {"crossover", c.status == "crosses" ? nlohmann::ordered_json(c.x)
                                                      : nlohmann::ordered_json(nullptr)},
                  {"min_speedup", fits ? nlohmann::ordered_json(c.min_speedup) : nullptr},
                  {"max_speedup", fits ? nlohmann::ordered_json(c.max_speedup) : nullptr}});
  }
  return {{"x", s.x},
          {"crossovers", cs},
          {"leaders", leaders_json(s.leaders)},
          {"files", s.files},
          {"charts", s.charts}};
}

void print_report_json(std::ostream& out, const ReportSummary& s) {
  out << report_json(s).dump(2) << "\n";
}

}  // namespace ovs
