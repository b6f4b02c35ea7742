#include "app/sweep/results_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "app/sweep/sweep_point.hpp"
#include "sim/core/error.hpp"

namespace ovs {

ResultsTable load_results(const std::string& path) {
  const CsvTable t = CsvTable::load(path);
  ResultsTable r;
  const auto& outs = output_columns();
  for (const auto& c : t.header())
    if (c != "point" && std::find(outs.begin(), outs.end(), c) == outs.end() &&
        std::find(uncertainty_columns().begin(), uncertainty_columns().end(), c) ==
            uncertainty_columns().end())
      r.input_columns.push_back(c);
  for (const char* need : {"point", "strategy", "speedup", "error"})
    if (!t.has(need)) throw InputError(path, 1, need, "missing column: not a sweep's results");
  std::map<std::string, std::set<std::string>> values;
  for (size_t i = 0; i < t.rows(); ++i) {
    ResultRow row;
    for (const auto& c : r.input_columns) {
      row.inputs[c] = t.at(i, c);
      values[c].insert(t.at(i, c));
    }
    row.strategy = t.at(i, "strategy");
    if (t.has("baseline")) row.baseline = t.at(i, "baseline");
    row.ok = t.at(i, "error").empty();
    for (const char* side : {"baseline_fits", "overlapped_fits"})
      if (t.has(side)) {
        const std::string& v = t.at(i, side);
        if (row.ok && v != "true" && v != "false")
          throw InputError(path, t.line_of(i), side, "expected true or false, got '" + v + "'");
        row.fits = row.fits && v != "false";
        if (std::string(side) == "baseline_fits") row.baseline_fits = v != "false";
      }
    if (row.ok && row.fits) row.speedup = t.number(i, "speedup");
    r.rows.push_back(std::move(row));
  }
  for (const auto& c : r.input_columns)
    if (values[c].size() > 1) r.varying.push_back(c);
  return r;
}

double input_number(const ResultRow& r, const std::string& column, const std::string& file) {
  auto it = r.inputs.find(column);
  if (it == r.inputs.end()) throw InputError(file, 1, column, "no such input column");
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end)
    throw InputError(file, 0, column, "'" + it->second + "' is not a number");
  return v;
}

}  // namespace ovs
