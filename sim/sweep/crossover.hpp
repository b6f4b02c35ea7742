#pragma once
// Where a strategy starts to beat its baseline along an axis (tokens per GPU by default): the
// first upward crossing of speedup 1, interpolated between the points around it (in log space
// when the axis spans a factor of ten or more), or "never" / "always in range".
#include <string>
#include <vector>

#include "sim/sweep/results_table.hpp"

namespace ovs {

struct Crossover {
  std::map<std::string, std::string> group;  // the other varying inputs
  std::string strategy;
  std::string status;  // "crosses", "never", "always in range"
  double x = 0;        // where it crosses (status "crosses")
  double min_speedup = 0, max_speedup = 0;
};

// Speedup samples (x, speedup), any order. Status and crossing point.
Crossover crossover_of(std::vector<std::pair<double, double>> samples);

std::vector<Crossover> crossovers(const ResultsTable& t, const std::string& x_column,
                                  const std::string& file);

}  // namespace ovs
