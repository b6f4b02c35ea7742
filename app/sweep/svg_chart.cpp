#include "app/sweep/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "app/strategy/strategy_style.hpp"
#include "app/sweep/axis_ticks.hpp"
#include "sim/io/svg_parts.hpp"

namespace ovs {

std::string xml_escape(const std::string& s) {
  return svg::escape(s);
}

namespace {

std::string svg_open(int w, int h) {
  return svg::open(w, h);
}
std::string label(double v) {
  return svg::number(v);
}

}  // namespace

namespace {

// A speedup axis spans at least this much around break-even, so a flat chart (every speedup
// within a fraction of a percent of 1) reads 0.99, 1.00, 1.01 rather than ticks a hair apart.
constexpr double kMinYSpan = 0.02;
constexpr const char* kBaselineColor = "#bbbbbb";
constexpr const char* kNothingFitsColor = "#eeeeee";

struct LegendRow {
  std::string swatch;  // SVG drawn at (0, 0) = the row's left end, centre line
  std::string text;
};

// The band under the plot: runs of the same best strategy, each from the midpoint before its
// first x to the midpoint after its last, with the name inside when it fits.
std::string best_band(const LineChart& c, double top, double left, double right,
                      const std::function<double(double)>& px,
                      const std::function<std::string(const std::string&)>& color_of) {
  const double h = 16;
  std::string s = fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">best</text>\n",
      left - 6, top + 12);
  // The edge between the runs ending at best[i] and starting at best[i + 1].
  auto between = [&](size_t i) {
    const double xa = c.best[i].first, xb = c.best[i + 1].first;
    for (double x : c.lead_change_xs)
      if (x > xa && x < xb) return px(x);
    return (px(xa) + px(xb)) / 2;
  };
  auto edge = [&](size_t i, bool before) {
    if (before) return i == 0 ? left : between(i - 1);
    return i + 1 == c.best.size() ? right : between(i);
  };
  for (size_t i = 0; i < c.best.size();) {
    size_t j = i;
    while (j + 1 < c.best.size() && c.best[j + 1].second == c.best[i].second) ++j;
    const double x0 = edge(i, true), x1 = edge(j, false);
    const std::string& name = c.best[i].second;
    const std::string fill = color_of(name);
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" "
        "stroke=\"#ffffff\"><title>best: {}</title></rect>\n",
        x0, top, x1 - x0, h, fill, xml_escape(name));
    if (svg::text_width_px(name, 11) + 6 <= x1 - x0)
      s += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"11\" "
          "fill=\"{}\">{}</text>\n",
          (x0 + x1) / 2, top + 12,
          fill == kNothingFitsColor || fill == kBaselineColor ? "#000" : "#fff", xml_escape(name));
    i = j + 1;
  }
  return s;
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  const bool band = !c.best.empty();
  auto color_of = [&](const std::string& name) -> std::string {
    for (size_t i = 0; i < c.series.size(); ++i)
      if (c.series[i].name == name) return strategy_style(name).color;
    return name == c.band_baseline ? kBaselineColor : kNothingFitsColor;
  };
  bool any_no_fit = false;
  for (const auto& sr : c.series) any_no_fit = any_no_fit || !sr.no_fit_xs.empty();
  // The legend: break-even first (a label at the end of its line would sit on the legend's
  // markers), then the series, then what the crosses and the band mean.
  std::vector<LegendRow> legend;
  legend.push_back(
      {"<line x1=\"0\" y1=\"0\" x2=\"20\" y2=\"0\" stroke=\"#000\" "
       "stroke-dasharray=\"6 4\"/>",
       label(c.reference_y) + " = break-even"});
  for (size_t i = 0; i < c.series.size(); ++i)
    legend.push_back({fmt::format("<line x1=\"0\" y1=\"0\" x2=\"20\" y2=\"0\" stroke=\"{}\" "
                                  "stroke-width=\"3\"{}/>",
                                  strategy_style(c.series[i].name).color,
                                  dash_attribute(strategy_style(c.series[i].name))),
                      c.series[i].name});
  if (any_no_fit)
    legend.push_back(
        {"<path d=\"M6,-4 l8,8 m0,-8 l-8,8\" stroke=\"#000\" stroke-width=\"2\" "
         "fill=\"none\"/>",
         "does not fit in HBM"});
  const bool baseline_leads = std::any_of(c.best.begin(), c.best.end(), [&](const auto& b) {
    return !c.band_baseline.empty() && b.second == c.band_baseline;
  });
  if (baseline_leads)
    legend.push_back({fmt::format("<rect x=\"0\" y=\"-6\" width=\"20\" height=\"12\" fill=\"{}\"/>",
                                  kBaselineColor),
                      "best: " + c.band_baseline});
  double legend_w = 0;
  for (const auto& row : legend) legend_w = std::max(legend_w, 36 + svg::text_width_px(row.text));
  const int L = 70, T = 52, B = band ? 80 : 55, H = band ? 497 : 472, plot_w = 510;
  const int R = 16 + static_cast<int>(legend_w) + 10;
  const int W =
      std::max({L + plot_w + R, 20 + static_cast<int>(svg::text_width_px(c.title, 15, true)),
                20 + static_cast<int>(svg::text_width_px(c.subtitle, 11))});
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = c.reference_y,
         y1 = c.reference_y;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
    for (double x : s.no_fit_xs) x0 = std::min(x0, x), x1 = std::max(x1, x);
  }
  for (const auto& [x, name] : c.best) x0 = std::min(x0, x), x1 = std::max(x1, x);
  if (!std::isfinite(x0)) x0 = 0, x1 = 1;
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 - y0 < kMinYSpan) {
    const double mid = (y0 + y1) / 2;
    y0 = mid - kMinYSpan / 2;
    y1 = mid + kMinYSpan / 2;
  }
  const double pad = (y1 - y0) * 0.08;
  y0 -= pad;
  y1 += pad;
  // Log spacing over a factor of ten, or of four on a discrete axis (EP sizes double).
  const bool log = x0 > 0 && (x1 / x0 >= 10 || (c.discrete_x && x1 / x0 >= 4));
  auto tx = [&](double x) { return log ? std::log(x) : x; };
  auto px = [&](double x) { return L + (tx(x) - tx(x0)) / (tx(x1) - tx(x0)) * (W - L - R); };
  std::vector<double> measured_xs;
  for (const auto& sr : c.series) {
    for (const auto& pt : sr.points) measured_xs.push_back(pt.first);
    for (double x : sr.no_fit_xs) measured_xs.push_back(x);
  }
  std::sort(measured_xs.begin(), measured_xs.end());
  measured_xs.erase(std::unique(measured_xs.begin(), measured_xs.end()), measured_xs.end());
  auto py = [&](double y) { return T + (y1 - y) / (y1 - y0) * (H - T - B); };
  std::string s = svg_open(W, H);
  s += fmt::format("<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
                   xml_escape(c.title));
  if (!c.subtitle.empty())
    s += fmt::format("<text x=\"10\" y=\"40\" font-size=\"11\" fill=\"#444\">{}</text>\n",
                     xml_escape(c.subtitle));
  // Axes and grid.
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", L, T,
      W - L - R, H - T - B);
  const AxisTicks yt = nice_ticks(y0, y1, 6);
  for (size_t i = 0; i < yt.values.size(); ++i) {
    const double v = yt.values[i];
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", L,
                     py(v), W - R, py(v));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", L - 6,
                     py(v) + 4, yt.labels[i]);
  }
  // A discrete axis (EP) ticks only the values that exist.
  std::vector<double> xt;
  std::vector<std::string> xl;
  if (c.discrete_x || log) {
    xt = c.discrete_x ? measured_xs : svg::log_ticks(x0, x1);
    for (double v : xt) xl.push_back(label(v));
  } else {
    const AxisTicks t = nice_ticks(x0, x1, 8);
    xt = t.values;
    xl = t.labels;
  }
  for (size_t i = 0; i < xt.size(); ++i) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#eee\"/>\n",
                     px(xt[i]), T, px(xt[i]), H - B);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(xt[i]),
                     H - B + 16, xl[i]);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n",
                   L + (W - L - R) / 2, H - 15, xml_escape(c.x_label), log ? " (log scale)" : "");
  s += fmt::format(
      "<text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{}</text>\n",
      T + (H - T - B) / 2, T + (H - T - B) / 2, xml_escape(c.y_label));
  if (band) s += best_band(c, H - B + 24, L, W - R, px, color_of);
  // Break-even.
  s += fmt::format(
      "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#000\" stroke-dasharray=\"6 "
      "4\"/>\n",
      L, py(c.reference_y), W - R, py(c.reference_y));
  for (size_t i = 0; i < c.series.size(); ++i) {
    auto pts = c.series[i].points;
    std::sort(pts.begin(), pts.end());
    // Each strategy in its own style, keyed by its name (the same as on plan's chart).
    const SeriesStyle style = strategy_style(c.series[i].name);
    const std::string& color = style.color;
    std::string poly;
    for (const auto& [x, y] : pts) poly += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n",
                     color, dash_attribute(style), poly);
    for (const auto& [x, y] : pts)
      s += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {} -> "
          "{}</title></circle>\n",
          px(x), py(y), color, xml_escape(c.series[i].name), label(x), label(y));
    // Points where a side does not fit in HBM have no speedup: a cross on the break-even line.
    for (double x : c.series[i].no_fit_xs)
      s += fmt::format(
          "<path d=\"M{0:.1f},{1:.1f} l8,8 m0,-8 l-8,8\" stroke=\"{2}\" stroke-width=\"2\" "
          "fill=\"none\"><title>{3}: {4} -> does not fit in HBM</title></path>\n",
          px(x) - 4, py(c.reference_y) - 4, color, xml_escape(c.series[i].name), label(x));
  }
  for (size_t i = 0; i < legend.size(); ++i) {
    const int ly = T + 20 + 20 * static_cast<int>(i);
    s +=
        fmt::format("<g transform=\"translate({},{})\">{}</g>\n", W - R + 10, ly, legend[i].swatch);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", W - R + 36, ly + 4,
                     xml_escape(legend[i].text));
  }
  return s + "</svg>\n";
}

std::string render_heatmap(const Heatmap& h) {
  const int cell_w = 70, cell_h = 30, L = 110, T = 66, B = 60, R = 30;
  const std::string y_words = h.y_label + " (green outline: pays; grey: does not fit in HBM)";
  const int W = std::max({L + cell_w * static_cast<int>(h.xs.size()) + R,
                          20 + static_cast<int>(svg::text_width_px(h.title, 15, true)),
                          20 + static_cast<int>(svg::text_width_px(h.subtitle, 11)),
                          20 + static_cast<int>(svg::text_width_px(y_words))});
  const int H = T + cell_h * static_cast<int>(h.ys.size()) + B;
  double lo = h.center, hi = h.center;
  for (const auto& row : h.values)
    for (double v : row)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  auto color = [&](double v) {
    if (!std::isfinite(v)) return std::string("#cccccc");
    double t;
    int r, g, b;
    if (v >= h.center) {
      t = hi > h.center ? (v - h.center) / (hi - h.center) : 0;
      r = static_cast<int>(255 - t * 200), g = static_cast<int>(255 - t * 60),
      b = static_cast<int>(255 - t * 200);
    } else {
      t = lo < h.center ? (h.center - v) / (h.center - lo) : 0;
      r = 255, g = static_cast<int>(255 - t * 190), b = static_cast<int>(255 - t * 190);
    }
    return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
  };
  std::string s = svg_open(W, H);
  s += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", 10,
                   xml_escape(h.title));
  if (!h.subtitle.empty())
    s += fmt::format("<text x=\"10\" y=\"40\" font-size=\"11\" fill=\"#444\">{}</text>\n",
                     xml_escape(h.subtitle));
  for (size_t yi = 0; yi < h.ys.size(); ++yi) {
    const int y = T + cell_h * static_cast<int>(yi);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", L - 6,
                     y + cell_h / 2 + 4, xml_escape(h.ys[yi]));
    for (size_t xi = 0; xi < h.xs.size(); ++xi) {
      const int x = L + cell_w * static_cast<int>(xi);
      const double v = h.values[yi][xi];
      const bool no_fit = yi < h.no_fit.size() && xi < h.no_fit[yi].size() && h.no_fit[yi][xi];
      if (no_fit) {
        s += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#888888\" "
            "stroke=\"#ffffff\"/>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
            "fill=\"#ffffff\">no fit</text>\n",
            x, y, cell_w, cell_h, x + cell_w / 2, y + cell_h / 2 + 4);
        continue;
      }
      s += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" "
          "stroke-width=\"{}\"/>\n",
          x, y, cell_w, cell_h, color(v), std::isfinite(v) && v >= h.center ? "#1a7f37" : "#ffffff",
          std::isfinite(v) && v >= h.center ? 2 : 1);
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x + cell_w / 2,
                       y + cell_h / 2 + 4, std::isfinite(v) ? fmt::format("{:.2f}", v) : "-");
    }
  }
  for (size_t xi = 0; xi < h.xs.size(); ++xi)
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     L + cell_w * static_cast<int>(xi) + cell_w / 2,
                     T + cell_h * static_cast<int>(h.ys.size()) + 16, xml_escape(h.xs[xi]));
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                   L + cell_w * static_cast<int>(h.xs.size()) / 2, H - 15, xml_escape(h.x_label));
  s += fmt::format("<text x=\"10\" y=\"{}\">{}</text>\n", T - 10, xml_escape(y_words));
  return s + "</svg>\n";
}

}  // namespace ovs
