#include "app/sweep/leaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "app/sweep/chart_words.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {
namespace {

// Speedup over the baseline of each side that fits at one x; the baseline's own is 1.
using Speedups = std::map<std::string, double>;

std::string x_text(double x, bool discrete) {
  if (discrete || x == std::round(x)) return fmt::format("{:g}", x);
  return x >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}

Lead lead_at(double x, const Speedups& s, const std::string& baseline) {
  // Highest speedup first; a tie goes to the baseline (nothing to gain), then by name.
  std::vector<std::pair<std::string, double>> order(s.begin(), s.end());
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first == baseline && b.first != baseline;
  });
  Lead l;
  l.x = x;
  l.best = order.empty() ? kNothingFits : order[0].first;
  l.speedup = order.empty() ? 0 : order[0].second;
  if (order.size() > 1) l.runner_up = order[1].first, l.runner_up_speedup = order[1].second;
  return l;
}

// Where `to` overtakes `from` between x0 and x1: the crossing of the two straight lines the chart
// draws between the points (in log x when the axis is log).
LeadChange change_between(const std::string& from, const std::string& to, double x0, double x1,
                          const Speedups& s0, const Speedups& s1, bool log, bool discrete) {
  LeadChange c{from, to, x0, x1, x1, false, from != kNothingFits && !s1.count(from)};
  if (discrete || !s0.count(from) || !s0.count(to) || !s1.count(from) || !s1.count(to)) return c;
  const double d0 = s0.at(from) - s0.at(to);  // >= 0: `from` leads at x0
  const double d1 = s1.at(from) - s1.at(to);  // < 0: `to` leads at x1
  if (!(d0 > d1)) return c;
  const double f = d0 / (d0 - d1);
  auto tx = [&](double x) { return log ? std::log(x) : x; };
  const double t = tx(x0) + f * (tx(x1) - tx(x0));
  c.x = log ? std::exp(t) : t;
  c.interpolated = true;
  return c;
}

}  // namespace

std::vector<Leaders> leaders(const ResultsTable& t, const std::string& x_column,
                             const std::string& file) {
  std::map<Inputs, std::map<double, Speedups>, InputsLess> groups;
  std::map<Inputs, std::string, InputsLess> baselines;
  for (const auto& r : t.rows) {
    if (!r.ok) continue;
    Inputs g;
    for (const auto& c : t.varying)
      if (c != x_column) g[c] = r.inputs.at(c);
    Speedups& at = groups[g][input_number(r, x_column, file)];
    if (!r.baseline.empty()) {
      baselines[g] = r.baseline;
      if (r.baseline_fits) at[r.baseline] = 1.0;
    }
    if (r.fits && r.strategy != r.baseline) at[r.strategy] = r.speedup;
  }
  const bool discrete = discrete_axis(x_column);
  std::vector<Leaders> out;
  for (const auto& [g, by_x] : groups) {
    Leaders l;
    l.group = g;
    l.baseline = baselines.count(g) ? baselines.at(g) : "";
    const double lo = by_x.begin()->first, hi = by_x.rbegin()->first;
    const bool log = lo > 0 && hi / lo >= 10;
    const Speedups* prev = nullptr;
    for (const auto& [x, s] : by_x) {
      l.leads.push_back(lead_at(x, s, l.baseline));
      const size_t n = l.leads.size();
      if (n > 1 && l.leads[n - 2].best != l.leads[n - 1].best)
        l.changes.push_back(change_between(l.leads[n - 2].best, l.leads[n - 1].best,
                                           l.leads[n - 2].x, x, *prev, s, log, discrete));
      prev = &s;
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::string leaders_csv(const std::vector<Leaders>& ls, const std::string& x_column) {
  std::set<std::string> cols;
  for (const auto& l : ls)
    for (const auto& [k, v] : l.group) cols.insert(k);
  std::string csv;
  for (const auto& k : cols) csv += csv_field(k) + ",";
  csv += csv_field(x_column) + ",best,speedup,runner_up,runner_up_speedup\n";
  for (const auto& l : ls)
    for (const auto& lead : l.leads) {
      for (const auto& k : cols) csv += csv_field(l.group.count(k) ? l.group.at(k) : "") + ",";
      const bool fits = lead.best != kNothingFits;
      csv +=
          fmt::format("{:g},{},{},{},{}\n", lead.x, csv_field(lead.best),
                      fits ? fmt::format("{:.4g}", lead.speedup) : "", csv_field(lead.runner_up),
                      lead.runner_up.empty() ? "" : fmt::format("{:.4g}", lead.runner_up_speedup));
    }
  return csv;
}

nlohmann::ordered_json leaders_json(const std::vector<Leaders>& ls) {
  using Json = nlohmann::ordered_json;
  Json out = Json::array();
  for (const auto& l : ls) {
    Json g = Json::object();
    for (const auto& [k, v] : l.group) g[k] = v;
    Json best = Json::array(), changes = Json::array();
    for (const auto& lead : l.leads)
      best.push_back({{"x", lead.x},
                      {"best", lead.best},
                      {"speedup", lead.best == kNothingFits ? Json(nullptr) : Json(lead.speedup)},
                      {"runner_up", lead.runner_up.empty() ? Json(nullptr) : Json(lead.runner_up)},
                      {"runner_up_speedup",
                       lead.runner_up.empty() ? Json(nullptr) : Json(lead.runner_up_speedup)}});
    for (const auto& c : l.changes)
      changes.push_back({{"from", c.from},
                         {"to", c.to},
                         {"after_x", c.after_x},
                         {"before_x", c.before_x},
                         {"x", c.x},
                         {"interpolated", c.interpolated},
                         {"from_stops_fitting", c.from_stops_fitting}});
    out.push_back({{"group", g}, {"baseline", l.baseline}, {"best", best}, {"changes", changes}});
  }
  return out;
}

std::string lead_runs(const Leaders& l, bool discrete) {
  std::string out;
  for (size_t i = 0; i < l.leads.size();) {
    size_t j = i;
    while (j + 1 < l.leads.size() && l.leads[j + 1].best == l.leads[i].best) ++j;
    const std::string range =
        i == j ? x_text(l.leads[i].x, discrete)
               : x_text(l.leads[i].x, discrete) + "-" + x_text(l.leads[j].x, discrete);
    out += (out.empty() ? "" : ", ") + l.leads[i].best + " " + range;
    i = j + 1;
  }
  return out;
}

std::string change_words(const LeadChange& c, bool discrete) {
  if (c.to == kNothingFits)
    return fmt::format("nothing fits from {} on", x_text(c.before_x, discrete));
  if (c.from == kNothingFits)
    return fmt::format("{} leads from {}, where it first fits", c.to, x_text(c.before_x, discrete));
  if (c.from_stops_fitting)
    return fmt::format("{} leads from {}, where {} does not fit", c.to,
                       x_text(c.before_x, discrete), c.from);
  if (!c.interpolated)
    return fmt::format("{} overtakes {} at {} (after {})", c.to, c.from,
                       x_text(c.before_x, discrete), x_text(c.after_x, discrete));
  return fmt::format("{} overtakes {} at ~{} (between {} and {})", c.to, c.from,
                     x_text(c.x, discrete), x_text(c.after_x, discrete),
                     x_text(c.before_x, discrete));
}

}  // namespace ovs
