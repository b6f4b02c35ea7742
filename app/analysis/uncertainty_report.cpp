// whatif --uncertainty: the band, the probability that the strategy pays and the numbers that
// decide it, as a table, JSON fields and an SVG tornado.
#include <fmt/format.h>

#include <algorithm>

#include "app/analysis/uncertainty.hpp"
#include "sim/io/svg_parts.hpp"

namespace ovs {
namespace {

std::string pct(double speedup) {
  return fmt::format("{:+.1f} %", (speedup - 1) * 100);
}

size_t shown(const UncertaintyResult& u, int top) {
  return std::min(u.sensitivity.size(), static_cast<size_t>(std::max(0, top)));
}

}  // namespace

void write_uncertainty_table(std::ostream& out, const UncertaintyResult& u, int top) {
  out << fmt::format(
      "\nHow sure: {} draws of the {} uncertain numbers (Latin hypercube, seed {}; each number's "
      "spread from its file)\n",
      u.draws, u.uncertain, u.seed);
  out << fmt::format("  {:<26} {:>10} {:>10} {:>10}   {:>10}\n", "", "P10", "P50", "P90",
                     "as given");
  out << fmt::format("  {:<26} {:>10.4f} {:>10.4f} {:>10.4f}   {:>10.4f}\n",
                     "speedup '" + u.strategy + "'", u.speedup.p10, u.speedup.p50, u.speedup.p90,
                     u.nominal_speedup);
  out << fmt::format("  {:<26} {:>10.3f} {:>10.3f} {:>10.3f}   {:>10.3f}\n",
                     "'" + u.baseline + "' ms", u.baseline_us.p10 / 1000, u.baseline_us.p50 / 1000,
                     u.baseline_us.p90 / 1000, u.nominal_baseline_us / 1000);
  out << fmt::format("  {:<26} {:>10.3f} {:>10.3f} {:>10.3f}   {:>10.3f}\n",
                     "'" + u.strategy + "' ms", u.overlapped_us.p10 / 1000,
                     u.overlapped_us.p50 / 1000, u.overlapped_us.p90 / 1000,
                     u.nominal_overlapped_us / 1000);
  // "Whatever the numbers" only when every draw agrees; a verdict 9 draws in 10 hold is said so.
  const char* holds = u.uncertain == 0  ? "no number of these files states a spread: one answer"
                      : u.p_pays == 1   ? "it pays in every draw of the uncertain numbers"
                      : u.p_pays == 0   ? "it does not pay in any draw of the uncertain numbers"
                      : u.p_pays >= 0.9 ? "it pays in at least 9 draws of 10"
                      : u.p_pays <= 0.1 ? "it does not pay in at least 9 draws of 10"
                                        : "the verdict depends on numbers we do not know";
  out << fmt::format("  '{}' pays in {:.0f} % of the draws ({} .. {} from P10 to P90): {}.\n",
                     u.strategy, u.p_pays * 100, pct(u.speedup.p10), pct(u.speedup.p90), holds);
  if (!u.exact_unstated.empty())
    out << fmt::format("  {} numbers state no spread and count as exact (a user's file): {}{}\n",
                       u.exact_unstated.size(), u.exact_unstated.front(),
                       u.exact_unstated.size() > 1 ? ", ..." : "");
  const size_t n = shown(u, top);
  if (n == 0) return;
  out << fmt::format(
      "\nWhat decides it: the speedup with one number at its P10 and at its P90, the others as "
      "given ({} largest)\n",
      n);
  for (size_t i = 0; i < n; ++i) {
    const SensitivityRow& s = u.sensitivity[i];
    out << fmt::format("  {}. {}  {:g} (P10 {:.4g} .. P90 {:.4g}): speedup {:.4f} .. {:.4f}\n",
                       i + 1, s.name, s.value, s.low_value, s.high_value, s.low, s.high);
    out << fmt::format("     source: {}\n", s.source);
    if (!s.how_to_measure.empty()) out << fmt::format("     pin it down: {}\n", s.how_to_measure);
  }
}

void add_uncertainty_json(nlohmann::ordered_json& j, const UncertaintyResult& u, int top) {
  j["speedup_p10"] = u.speedup.p10;
  j["speedup_p50"] = u.speedup.p50;
  j["speedup_p90"] = u.speedup.p90;
  j["p_pays"] = u.p_pays;
  j["baseline_us_p10"] = u.baseline_us.p10;
  j["baseline_us_p50"] = u.baseline_us.p50;
  j["baseline_us_p90"] = u.baseline_us.p90;
  j["overlapped_us_p10"] = u.overlapped_us.p10;
  j["overlapped_us_p50"] = u.overlapped_us.p50;
  j["overlapped_us_p90"] = u.overlapped_us.p90;
  j["uncertainty_draws"] = u.draws;
  j["uncertainty_seed"] = u.seed;
  j["uncertain_numbers"] = u.uncertain;
  j["exact_unstated"] = u.exact_unstated;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < shown(u, top); ++i) {
    const SensitivityRow& s = u.sensitivity[i];
    list.push_back({{"name", s.name},
                    {"source", s.source},
                    {"low", s.low},
                    {"high", s.high},
                    {"value", s.value},
                    {"low_value", s.low_value},
                    {"high_value", s.high_value},
                    {"how_to_measure", s.how_to_measure}});
  }
  j["sensitivity"] = list;
}

std::string tornado_svg(const UncertaintyResult& u, int top) {
  const size_t n = shown(u, top);
  constexpr int kBarPx = 26, kTopPx = 56, kPlotPx = 420;
  double label_px = 120;
  for (size_t i = 0; i < n; ++i)
    label_px = std::max(label_px, svg::text_width_px(u.sensitivity[i].name) + 16);
  double lo = u.nominal_speedup, hi = u.nominal_speedup;
  for (size_t i = 0; i < n; ++i)
    for (double v : {u.sensitivity[i].low, u.sensitivity[i].high}) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  lo = std::min(lo, 1.0);
  hi = std::max(hi, 1.0);
  const double pad = (hi - lo) * 0.05 + 1e-9;
  lo -= pad;
  hi += pad;
  const int width = static_cast<int>(label_px) + kPlotPx + 40;
  const int height = kTopPx + static_cast<int>(n) * kBarPx + 50;
  auto x = [&](double v) { return label_px + (v - lo) / (hi - lo) * kPlotPx; };
  std::string s = svg::open(width, height);
  s += fmt::format(
      "<text x=\"10\" y=\"20\" font-weight=\"bold\">{}</text>\n",
      svg::escape(fmt::format("'{}' against '{}': speedup with one number at its P10 / P90",
                              u.strategy, u.baseline)));
  s += fmt::format("<text x=\"10\" y=\"38\" fill=\"#555\">{}</text>\n",
                   svg::escape(fmt::format("as given {:.4f}; band of {} joint draws P10 {:.4f} "
                                           "P90 {:.4f}; pays in {:.0f} %",
                                           u.nominal_speedup, u.draws, u.speedup.p10, u.speedup.p90,
                                           u.p_pays * 100)));
  for (size_t i = 0; i < n; ++i) {
    const SensitivityRow& r = u.sensitivity[i];
    const double y = kTopPx + double(i) * kBarPx;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                     label_px - 8, y + 16, svg::escape(r.name));
    // The part of the bar from the number's P10 in blue, from its P90 in orange.
    const double xl = x(r.low), xh = x(r.high), xn = x(u.nominal_speedup);
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"18\" fill=\"#4c78a8\"/>\n",
        std::min(xl, xn), y + 3, std::abs(xl - xn));
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"18\" fill=\"#f58518\"/>\n",
        std::min(xh, xn), y + 3, std::abs(xh - xn));
  }
  const double y0 = kTopPx - 4, y1 = kTopPx + double(n) * kBarPx + 4;
  for (double v : svg::linear_ticks(lo, hi, 6)) {
    s += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
        "stroke=\"#ddd\"/>\n",
        x(v), y0, y1);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x(v),
                     y1 + 16, svg::number(v));
  }
  s += fmt::format(
      "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
      "stroke=\"black\"/>\n",
      x(u.nominal_speedup), y0, y1);
  s += fmt::format(
      "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
      "stroke=\"#c00\" stroke-dasharray=\"4 3\"/>\n",
      x(1.0), y0, y1);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555\">{}</text>\n", label_px, y1 + 34,
                   svg::escape("blue: the number at its P10; orange: at its P90; dashed: "
                               "speedup 1 (pays to the right)"));
  return s + "</svg>\n";
}

}  // namespace ovs
