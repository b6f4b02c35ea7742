#pragma once
// Charts a user would rather look at than read, written by overlapsim itself as SVG: speedup
// against an axis (one line per strategy, 1.0 marked) and a break-even heatmap over two axes.
#include <string>
#include <utility>
#include <vector>

namespace ovs {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
  std::vector<double> no_fit_xs;  // x where a side does not fit in HBM: a cross on the 1.0 line
};

struct LineChart {
  std::string title;
  std::string subtitle;  // the settings every point shares beyond the title's
  std::string x_label;
  std::string y_label = "speedup over baseline";
  std::vector<Series> series;
  double reference_y = 1.0;  // drawn as a dashed line (break-even), named in the legend
  bool discrete_x = false;   // ticks at the measured x values only (EP sizes)
  // Head to head, drawn as a band under the plot: the best strategy at each x (a series' name,
  // band_baseline where nothing beats the baseline, or anything else where nothing fits).
  std::vector<std::pair<double, std::string>> best;
  std::string band_baseline;
  // Where two lines cross between measured xs (LeadChange::x): the band changes colour there,
  // under the crossing; elsewhere halfway between the two points.
  std::vector<double> lead_change_xs;
};

struct Heatmap {
  std::string title;
  std::string subtitle;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> xs;              // column labels
  std::vector<std::string> ys;              // row labels
  std::vector<std::vector<double>> values;  // [y][x]; NaN where missing
  std::vector<std::vector<bool>> no_fit;    // [y][x]; true: does not fit in HBM (may be empty)
  double center = 1.0;                      // white; above green, below red
};

std::string render_line_chart(const LineChart& c);
std::string render_heatmap(const Heatmap& h);
std::string xml_escape(const std::string& s);

}  // namespace ovs
