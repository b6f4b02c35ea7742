#pragma once
// The report of a sweep: crossover table (stdout and CSV) and SVG charts.
#include <ostream>
#include <string>

namespace ovs {

struct ReportOptions {
  std::string results;
  std::string x = "tokens_per_gpu";
  std::string y;        // heatmaps over (x, y) when set
  std::string out_dir;  // crossover.csv and the charts
};

// Returns the number of charts written.
int write_report(const ReportOptions& o, std::ostream& out);

}  // namespace ovs
