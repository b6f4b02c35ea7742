#pragma once
// "Nice number" ticks for a linear chart axis: steps of 1, 2, 2.5 or 5 x 10^k, each tick an
// exact multiple of the step, and every label written with the decimals the step needs - so
// two ticks never read the same (a speedup axis from 0.999 to 1.001 reads 0.9990, 0.9995, 1.0000,
// ..., not 0.999, 1, 1, 1.001, 1.001).
#include <string>
#include <vector>

namespace ovs {

struct AxisTicks {
  double step = 0;
  int decimals = 0;  // of every label
  std::vector<double> values;
  std::vector<std::string> labels;
};

// About `n` ticks over [lo, hi] (lo < hi; otherwise the one tick lo).
AxisTicks nice_ticks(double lo, double hi, int n);

}  // namespace ovs
