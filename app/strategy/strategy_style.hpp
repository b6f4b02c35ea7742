#pragma once
// How a strategy is drawn on every chart (plan's Pareto chart, report's speedup charts and head-
// to-head band): its colour and dash follow from its name alone, never from its place in a
// chart's list, so 'sbo' is the same blue wherever it appears. The target and break-even lines
// use a style no strategy gets (kTargetColor, kTargetDash).
#include <string>

namespace ovs {

struct SeriesStyle {
  std::string color;  // "#rrggbb"
  std::string dash;   // an SVG stroke-dasharray; empty: solid
};

// The shipped strategies have fixed styles (one table, strategy_style.cpp); any other name gets
// one from a hash of its name (FNV-1a): the same in every chart and every run.
SeriesStyle strategy_style(const std::string& name);

// Reference lines (plan's latency target): black, dash-dot; no strategy is black or dash-dot.
inline constexpr const char* kTargetColor = "#000000";
inline constexpr const char* kTargetDash = "9 3 2 3";

// ` stroke-dasharray="..."` for a dashed style, empty for a solid one.
std::string dash_attribute(const SeriesStyle& s);

}  // namespace ovs
