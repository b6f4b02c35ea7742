// The plan's SVG chart: tokens/s per GPU against latency, each strategy's Pareto frontier as a
// line over its points in the strategy's own style (strategy_style: keyed by name, the same on
// every chart), the latency target in black dash-dot (no strategy's style) labelled at its top,
// the chosen point labelled, and the legend outside the plot: SGLang's strategies, then the
// ones it does not ship (thinner lines, hollow markers).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/plan/plan.hpp"
#include "app/strategy/strategy_style.hpp"
#include "sim/io/svg_parts.hpp"

namespace ovs {
namespace {

std::string point_label(const PlanResult& r, const PlanPoint& p) {
  return fmt::format("{}, {} {}/GPU, EP {}{}", p.strategy, p.tokens_per_gpu,
                     r.request.phase == Phase::decode ? "req" : "tok", p.ep, p.mtp ? ", MTP" : "");
}

}  // namespace

std::string plan_chart_svg(const PlanResult& r) {
  const bool decode = r.request.phase == Phase::decode;
  const double target = r.request.target_ms;
  const std::string metric = decode ? "TPOT" : "TTFT";
  const std::string title =
      fmt::format("{} {} on {} x {}: tokens/s per GPU against {}", r.model,
                  decode ? "decode" : "prefill", r.request.gpus, r.hw, metric);
  std::vector<std::string> eps;
  for (int e : r.eps) eps.push_back(std::to_string(e));
  const std::string subtitle = fmt::format(
      "Pareto frontier per strategy (dominated points faint); {} {}; EP {}; {} point(s) do not "
      "fit in HBM and {} are outside SGLang's limits (left out)",
      decode ? "context" : "prompt", r.request.context, fmt::join(eps, ", "), r.no_fit,
      r.sglang_limit);
  const std::string x_label =
      decode
          ? "time per output token, TPOT (ms)"
          : fmt::format("time to first token, TTFT, of a {}-token prompt (ms)", r.request.context);
  const std::string y_label = decode ? "output tokens/s per GPU" : "prompt tokens/s per GPU";

  // The strategies in legend order: SGLang's first, then the ones it does not ship.
  struct Series {
    std::string name;
    const std::vector<size_t>* frontier;
    bool deployable;
    SeriesStyle style;
  };
  std::vector<Series> series;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& [name, idx] : r.frontier_by_strategy) {
      bool deployable = false;
      for (const auto& p : r.points)
        if (p.strategy == name) deployable = deployable || p.deployable;
      if (deployable == (pass == 0))
        series.push_back({name, &idx, deployable, strategy_style(name)});
    }
  const std::string beyond_heading = "not shipped by SGLang:";
  double legend_w = svg::text_width_px(fmt::format("{} target {:g} ms", metric, target));
  legend_w = std::max(legend_w, svg::text_width_px(beyond_heading));
  for (const auto& sr : series) legend_w = std::max(legend_w, svg::text_width_px(sr.name));
  legend_w = std::max(legend_w, svg::text_width_px("best within the target"));
  const int L = 80, T = 62, B = 58, plot_w = 620, plot_h = 400;
  const int R = 46 + static_cast<int>(legend_w) + 12;
  int W = L + plot_w + R;
  W = std::max(W, 20 + static_cast<int>(std::max(svg::text_width_px(title, 15, true),
                                                 svg::text_width_px(subtitle, 11))));
  const int H = T + plot_h + B;
  const int plot_right = L + plot_w;

  // Axis ranges: every point that ran and the target.
  double x0 = target, x1 = target, y1 = 0;
  for (const auto& p : r.points) {
    if (!p.excluded.empty()) continue;
    x0 = std::min(x0, p.latency_ms);
    x1 = std::max(x1, p.latency_ms);
    y1 = std::max(y1, p.tokens_per_s_per_gpu);
  }
  if (!(x0 > 0)) x0 = 0.001;
  if (x1 <= x0) x1 = x0 * 2;
  if (y1 <= 0) y1 = 1;
  const bool log_x = x1 / x0 >= 10;
  if (log_x) {
    x0 /= 1.15;
    x1 *= 1.15;
  } else {
    const double pad = (x1 - x0) * 0.05;
    x0 = std::max(0.0, x0 - pad);
    x1 += pad;
  }
  y1 *= 1.08;
  auto tx = [&](double x) { return log_x ? std::log(x) : x; };
  auto px = [&](double x) { return L + (tx(x) - tx(x0)) / (tx(x1) - tx(x0)) * plot_w; };
  auto py = [&](double y) { return T + (y1 - y) / y1 * plot_h; };

  std::string s = svg::open(W, H);
  s += fmt::format("<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
                   svg::escape(title));
  s += fmt::format("<text x=\"10\" y=\"42\" font-size=\"11\" fill=\"#444\">{}</text>\n",
                   svg::escape(subtitle));
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", L, T,
      plot_w, plot_h);
  for (double v : svg::linear_ticks(0, y1, 6)) {
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", L,
                     py(v), plot_right, py(v));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", L - 6,
                     py(v) + 4, svg::number(v));
  }
  const auto xt = log_x ? svg::log_ticks(x0, x1) : svg::linear_ticks(x0, x1, 8);
  for (double v : xt) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#eee\"/>\n",
                     px(v), T, px(v), T + plot_h);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(v),
                     T + plot_h + 16, svg::number(v));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n", L + plot_w / 2,
                   H - 16, svg::escape(x_label), log_x ? " (log scale)" : "");
  s += fmt::format(
      "<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
      "{0})\">{1}</text>\n",
      T + plot_h / 2, svg::escape(y_label));

  // The target, labelled at its top inside the plot.
  s += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" "
      "stroke-width=\"1.5\" stroke-dasharray=\"{4}\"/>\n",
      px(target), T, T + plot_h, kTargetColor, kTargetDash);
  {
    const std::string text = fmt::format("{} {:g} ms", metric, target);
    const bool left = px(target) + 6 + svg::text_width_px(text, 11) > plot_right;
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"{}\" font-size=\"11\" stroke=\"white\" "
        "stroke-width=\"3\" paint-order=\"stroke\">{}</text>\n",
        left ? px(target) - 5 : px(target) + 5, T + 13, left ? "end" : "start", svg::escape(text));
  }

  // Strategies, the ones SGLang does not ship first (under), SGLang's on top: faint points, then
  // the frontier line.
  for (size_t n = series.size(); n-- > 0;) {
    const Series& sr = series[n];
    const std::string& color = sr.style.color;
    for (const auto& p : r.points)
      if (p.excluded.empty() && p.strategy == sr.name)
        s += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\" fill-opacity=\"0.3\"/>\n",
            px(p.latency_ms), py(p.tokens_per_s_per_gpu), color);
    std::string poly;
    for (size_t i : *sr.frontier)
      poly += fmt::format("{:.1f},{:.1f} ", px(r.points[i].latency_ms),
                          py(r.points[i].tokens_per_s_per_gpu));
    s += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"><title>{}"
        "</title></polyline>\n",
        color, sr.deployable ? "2.5" : "1.5", dash_attribute(sr.style), poly, svg::escape(sr.name));
    for (size_t i : *sr.frontier) {
      const PlanPoint& p = r.points[i];
      s += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" {}><title>{}: {:.2f} ms, {:.0f} "
          "tokens/s per GPU</title></circle>\n",
          px(p.latency_ms), py(p.tokens_per_s_per_gpu),
          sr.deployable ? fmt::format("fill=\"{}\"", color)
                        : fmt::format("fill=\"white\" stroke=\"{}\" stroke-width=\"1.5\"", color),
          svg::escape(point_label(r, p)), p.latency_ms, p.tokens_per_s_per_gpu);
    }
  }

  // The chosen point, labelled on the side with room.
  if (r.best) {
    const PlanPoint& b = r.points[*r.best];
    const double bx = px(b.latency_ms), by = py(b.tokens_per_s_per_gpu);
    const std::string text = "best: " + point_label(r, b);
    const double w = svg::text_width_px(text, 12, true);
    const bool left = bx + 12 + w > plot_right;
    const double ty = by < T + 30 ? by + 22 : by - 12;
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"8\" fill=\"none\" stroke=\"#000\" "
        "stroke-width=\"2\"/>\n",
        bx, by);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" font-weight=\"bold\" "
        "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>\n",
        left ? bx - 10 : bx + 10, ty, left ? "end" : "start", svg::escape(text));
  }

  // Legend outside the plot, sized to its longest entry: SGLang's strategies, then the others
  // under a heading.
  int ly = T + 14;
  const int lx = plot_right + 14;
  for (size_t k = 0; k < series.size(); ++k, ly += 20) {
    const Series& sr = series[k];
    if (!sr.deployable && (k == 0 || series[k - 1].deployable)) {
      s += fmt::format("<text x=\"{}\" y=\"{}\" font-style=\"italic\" fill=\"#444\">{}</text>\n",
                       lx, ly + 8, svg::escape(beyond_heading));
      ly += 24;
    }
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", lx,
        ly, lx + 24, ly, sr.style.color, sr.deployable ? 3 : 2, dash_attribute(sr.style));
    if (!sr.deployable)
      s += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"white\" stroke=\"{}\" "
          "stroke-width=\"1.5\"/>\n",
          lx + 12, ly, sr.style.color);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 32, ly + 4, svg::escape(sr.name));
  }
  s += fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\" "
      "stroke-dasharray=\"{}\"/>\n<text x=\"{}\" y=\"{}\">{} target {:g} ms</text>\n",
      lx, ly, lx + 24, ly, kTargetColor, kTargetDash, lx + 32, ly + 4, metric, target);
  ly += 20;
  if (r.best)
    s += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n"
        "<text x=\"{}\" y=\"{}\">best within the target</text>\n",
        lx + 12, ly, lx + 32, ly + 4);
  return s + "</svg>\n";
}

}  // namespace ovs
