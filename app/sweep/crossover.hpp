#pragma once
// Where a strategy starts to beat its baseline along an axis (tokens per GPU by default): the
// first upward crossing of speedup 1, interpolated between the points around it (in log space
// when the axis spans a factor of ten or more) - or, on a discrete axis such as EP, the first
// measured value that pays - or "never" / "always in range", or "does not fit" where no point
// of the group fits in HBM (kept, so every value of the other axes has its row). Groups in
// numeric order.
#include <string>
#include <vector>

#include "app/sweep/results_table.hpp"

namespace ovs {

// The status of a group where no point fits in HBM (no speedup to cross with).
inline constexpr const char* kDoesNotFit = "does not fit";

struct Crossover {
  std::map<std::string, std::string> group;  // the other varying inputs
  std::string baseline;
  std::string strategy;
  std::string status;  // "crosses", "never", "always in range", kDoesNotFit
  double x = 0;        // where it crosses (status "crosses")
  double min_speedup = 0, max_speedup = 0;
};

// Speedup samples (x, speedup), any order. Status and crossing point. On a discrete axis (EP
// sizes) the crossing is the first measured value that pays: nothing between two sizes exists.
Crossover crossover_of(std::vector<std::pair<double, double>> samples, bool discrete = false);

std::vector<Crossover> crossovers(const ResultsTable& t, const std::string& x_column,
                                  const std::string& file);

}  // namespace ovs
