#include "app/sweep/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/io/svg_parts.hpp"

namespace ovs {

std::string xml_escape(const std::string& s) {
  return svg::escape(s);
}

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string svg_open(int w, int h) {
  return svg::open(w, h);
}
std::string label(double v) {
  return svg::number(v);
}
std::vector<double> ticks(double lo, double hi, int n) {
  return svg::linear_ticks(lo, hi, n);
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  // The legend column is as wide as its longest entry (measured, so nothing is clipped).
  double legend_w = svg::text_width_px(label(c.reference_y) + " = break-even");
  for (const auto& sr : c.series) legend_w = std::max(legend_w, 36 + svg::text_width_px(sr.name));
  legend_w = std::max(legend_w, 36 + svg::text_width_px("does not fit in HBM"));
  const int L = 70, T = 52, B = 55, H = 472, plot_w = 510;
  const int R = 16 + static_cast<int>(legend_w) + 10;
  const int W =
      std::max({L + plot_w + R, 20 + static_cast<int>(svg::text_width_px(c.title, 15, true)),
                20 + static_cast<int>(svg::text_width_px(c.subtitle, 11))});
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = c.reference_y,
         y1 = c.reference_y;
  bool any_no_fit = false;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
    for (double x : s.no_fit_xs) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      any_no_fit = true;
    }
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1;
  if (x1 <= x0) x1 = x0 + 1;
  const double pad = (y1 - y0) * 0.08 + 1e-3;
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
  for (double v : ticks(y0, y1, 6)) {
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", L,
                     py(v), W - R, py(v));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", L - 6,
                     py(v) + 4, label(v));
  }
  // A discrete axis (EP) ticks only the values that exist.
  const std::vector<double> xt =
      c.discrete_x ? measured_xs : (log ? svg::log_ticks(x0, x1) : ticks(x0, x1, 8));
  for (double v : xt) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#eee\"/>\n",
                     px(v), T, px(v), H - B);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(v),
                     H - B + 16, label(v));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n",
                   L + (W - L - R) / 2, H - 15, xml_escape(c.x_label), log ? " (log scale)" : "");
  s += fmt::format(
      "<text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{}</text>\n",
      T + (H - T - B) / 2, T + (H - T - B) / 2, xml_escape(c.y_label));
  // Break-even.
  s += fmt::format(
      "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#000\" stroke-dasharray=\"6 "
      "4\"/>\n"
      "<text x=\"{}\" y=\"{:.1f}\">{} = break-even</text>\n",
      L, py(c.reference_y), W - R, py(c.reference_y), W - R + 6, py(c.reference_y) + 4,
      label(c.reference_y));
  for (size_t i = 0; i < c.series.size(); ++i) {
    auto pts = c.series[i].points;
    std::sort(pts.begin(), pts.end());
    const char* color = kPalette[i % 8];
    std::string poly;
    for (const auto& [x, y] : pts) poly += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
                     color, poly);
    for (const auto& [x, y] : pts)
      s += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {} -> "
          "{}</title></circle>\n",
          px(x), py(y), color, xml_escape(c.series[i].name), label(x), label(y));
    const int ly = T + 20 + 20 * static_cast<int>(i);
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>\n",
        W - R + 10, ly, W - R + 30, ly, color);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", W - R + 36, ly + 4,
                     xml_escape(c.series[i].name));
    // Points where a side does not fit in HBM have no speedup: a cross on the break-even line.
    for (double x : c.series[i].no_fit_xs)
      s += fmt::format(
          "<path d=\"M{0:.1f},{1:.1f} l8,8 m0,-8 l-8,8\" stroke=\"{2}\" stroke-width=\"2\" "
          "fill=\"none\"><title>{3}: {4} -> does not fit in HBM</title></path>\n",
          px(x) - 4, py(c.reference_y) - 4, color, xml_escape(c.series[i].name), label(x));
  }
  if (any_no_fit) {
    const int ly = T + 20 + 20 * static_cast<int>(c.series.size());
    s += fmt::format(
        "<path d=\"M{0},{1} l8,8 m0,-8 l-8,8\" stroke=\"#000\" stroke-width=\"2\" "
        "fill=\"none\"/>\n<text x=\"{2}\" y=\"{3}\">does not fit in HBM</text>\n",
        W - R + 16, ly - 4, W - R + 36, ly + 4);
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
