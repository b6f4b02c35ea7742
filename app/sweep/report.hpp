#pragma once
// The report of a sweep: crossover table (stdout and CSV), the best strategy at each x and where
// the lead changes (stdout and leaders.csv), and SVG charts.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "app/sweep/crossover.hpp"
#include "app/sweep/leaders.hpp"
#include "app/sweep/sweep_spec.hpp"

namespace ovs {

struct ReportOptions {
  std::string results;
  std::string x = "tokens_per_gpu";
  std::string y;        // heatmaps over (x, y) when set
  std::string out_dir;  // crossover.csv and the charts
};

struct ReportSummary {
  std::string x;
  std::vector<Crossover> crossovers;  // groups in numeric order
  std::vector<Leaders> leaders;       // groups in numeric order
  std::vector<std::string> files;     // written, crossover.csv first, then leaders.csv
  int charts = 0;
};

// Writes crossover.csv, leaders.csv and the charts into out_dir. --x and --y are checked first
// (input columns of the results, numbers in every row, not the same column): InputError naming
// the flag before any file is written.
ReportSummary write_report(const ReportOptions& o);
// The same checks of --x and --y against a sweep spec's columns and values, for sweep --report:
// refused before the sweep runs (a column no base or axis sets is checked after, on the rows).
void check_report_axes(const SweepSpec& spec, const std::string& x, const std::string& y);
void print_report(std::ostream& out, const ReportSummary& s, const std::string& out_dir);
nlohmann::ordered_json report_json(const ReportSummary& s);
void print_report_json(std::ostream& out, const ReportSummary& s);

}  // namespace ovs
