#pragma once
// A sweep's results CSV read back for reports: rows grouped by the inputs that vary.
#include <map>
#include <string>
#include <vector>

#include "sim/io/csv_reader.hpp"

namespace ovs {

struct ResultRow {
  std::map<std::string, std::string> inputs;  // input column -> value
  std::string strategy;
  std::string baseline;  // the strategy it is compared against
  double speedup = 0;
  bool ok = true;  // false: the point had an error
  bool fits =
      true;  // both sides fit in HBM (columns baseline_fits, overlapped_fits); else no speedup
  bool baseline_fits = true;  // the baseline alone fits (column baseline_fits)
};

struct ResultsTable {
  std::vector<std::string> input_columns;  // in file order
  std::vector<std::string> varying;        // input columns with more than one value
  std::vector<ResultRow> rows;
};

ResultsTable load_results(const std::string& path);

// Numeric value of an input (x axes); InputError if not a number.
double input_number(const ResultRow& r, const std::string& column, const std::string& file);

}  // namespace ovs
