#pragma once
// Honest bands: over a table's rows, how often the measured time falls inside the P10-P90 band
// the profile's spreads predict (validate --uncertainty). A band should hold about 80 % of the
// rows: far more means the spreads are wider than the errors, far fewer that they are too narrow.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "calibrate/fit/measurements.hpp"

namespace ovs {

struct Coverage {
  int rows = 0;
  int inside = 0, below = 0, above = 0;  // measured within, under P10, over P90
  double width_sum = 0;                  // sum of (P90 - P10) / P50
  double share() const { return rows ? double(inside) / rows : 0; }
  double mean_width() const { return rows ? width_sum / rows : 0; }
};

struct CoverageReport {
  int draws = 0;
  Coverage all;
  std::map<std::string, Coverage> by_family, in_sample, held_back;
};

// Predicts every row of `set` with `draws` profiles drawn from `hw` (a name or path).
CoverageReport band_coverage(const std::string& hw, const MeasurementSet& set, int draws,
                             std::uint64_t seed);
void write_coverage(std::ostream& out, const CoverageReport& r);

}  // namespace ovs
