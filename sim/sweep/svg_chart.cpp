#include "sim/sweep/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ovs {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string svg_open(int w, int h) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" "
      "fill=\"white\"/>\n",
      w, h);
}

std::string label(double v) {
  if (std::fabs(v) >= 1000 || (std::fabs(v) < 0.01 && v != 0)) return fmt::format("{:.3g}", v);
  return fmt::format("{:g}", std::round(v * 1000) / 1000);
}

// "Nice" ticks over [lo, hi].
std::vector<double> ticks(double lo, double hi, int n) {
  const double span = hi - lo;
  if (span <= 0) return {lo};
  const double raw = span / n, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
  return t;
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  const int W = 760, H = 460, L = 70, R = 180, T = 40, B = 55;
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
  const bool log = x0 > 0 && x1 / x0 >= 10;
  auto tx = [&](double x) { return log ? std::log(x) : x; };
  auto px = [&](double x) { return L + (tx(x) - tx(x0)) / (tx(x1) - tx(x0)) * (W - L - R); };
  auto py = [&](double y) { return T + (y1 - y) / (y1 - y0) * (H - T - B); };
  std::string s = svg_open(W, H);
  s += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", L,
                   xml_escape(c.title));
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
  std::vector<double> xt;
  if (log) {
    for (double d = std::pow(10, std::floor(std::log10(x0))); d <= x1 * 1.0001; d *= 10)
      for (double m : {1.0, 2.0, 5.0})
        if (d * m >= x0 * 0.9999 && d * m <= x1 * 1.0001) xt.push_back(d * m);
  } else {
    xt = ticks(x0, x1, 8);
  }
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
  const int cell_w = 70, cell_h = 30, L = 110, T = 50, B = 60, R = 30;
  const int W = L + cell_w * static_cast<int>(h.xs.size()) + R,
            H = T + cell_h * static_cast<int>(h.ys.size()) + B;
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
  s += fmt::format("<text x=\"10\" y=\"{}\">{}</text>\n", T - 10,
                   xml_escape(h.y_label + " (green outline: pays; grey: does not fit in HBM)"));
  return s + "</svg>\n";
}

}  // namespace ovs
