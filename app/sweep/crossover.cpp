#include "app/sweep/crossover.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "app/sweep/chart_words.hpp"

namespace ovs {

Crossover crossover_of(std::vector<std::pair<double, double>> s, bool discrete) {
  Crossover c;
  std::sort(s.begin(), s.end());
  if (s.empty()) {
    c.status = "no data";
    return c;
  }
  c.min_speedup = c.max_speedup = s.front().second;
  for (const auto& [x, v] : s) {
    c.min_speedup = std::min(c.min_speedup, v);
    c.max_speedup = std::max(c.max_speedup, v);
  }
  const bool log = s.front().first > 0 && s.back().first / s.front().first >= 10;
  auto tx = [&](double x) { return log ? std::log(x) : x; };
  if (s.front().second >= 1.0) {
    c.status = "always in range";
    return c;
  }
  for (size_t i = 1; i < s.size(); ++i) {
    const auto [x0, v0] = s[i - 1];
    const auto [x1, v1] = s[i];
    if (v0 < 1.0 && v1 >= 1.0) {
      c.status = "crosses";
      if (discrete) {
        c.x = x1;
        return c;
      }
      const double f = (1.0 - v0) / (v1 - v0);
      const double t = tx(x0) + f * (tx(x1) - tx(x0));
      c.x = log ? std::exp(t) : t;
      c.status = "crosses";
      return c;
    }
  }
  c.status = "never";
  return c;
}

std::vector<Crossover> crossovers(const ResultsTable& t, const std::string& x_column,
                                  const std::string& file) {
  struct KeyLess {
    bool operator()(const std::pair<Inputs, std::string>& a,
                    const std::pair<Inputs, std::string>& b) const {
      if (a.first != b.first) return InputsLess{}(a.first, b.first);
      return a.second < b.second;
    }
  };
  std::map<std::pair<Inputs, std::string>, std::vector<std::pair<double, double>>, KeyLess> groups;
  std::map<std::string, std::string> baselines;
  for (const auto& r : t.rows) {
    if (!r.ok) continue;
    std::map<std::string, std::string> g;
    for (const auto& c : t.varying)
      if (c != x_column) g[c] = r.inputs.at(c);
    auto& samples = groups[{g, r.strategy}];  // a group where nothing fits keeps its row
    baselines[r.strategy] = r.baseline;
    // No speedup where a side does not fit in HBM.
    if (r.fits) samples.emplace_back(input_number(r, x_column, file), r.speedup);
  }
  std::vector<Crossover> out;
  for (auto& [key, samples] : groups) {
    Crossover c = crossover_of(samples, discrete_axis(x_column));
    if (samples.empty()) c.status = kDoesNotFit;
    c.group = key.first;
    c.strategy = key.second;
    c.baseline = baselines[key.second];
    out.push_back(c);
  }
  return out;
}

}  // namespace ovs
