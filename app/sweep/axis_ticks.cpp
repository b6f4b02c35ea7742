#include "app/sweep/axis_ticks.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ovs {

AxisTicks nice_ticks(double lo, double hi, int n) {
  AxisTicks t;
  if (!(hi > lo) || n < 1) {
    t.values = {lo};
    t.labels = {fmt::format("{:g}", lo)};
    return t;
  }
  const double raw = (hi - lo) / n;
  int exponent = static_cast<int>(std::floor(std::log10(raw)));
  double mantissa = 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * std::pow(10, exponent) * (1 + 1e-12)) {
      mantissa = m;
      break;
    }
  if (mantissa == 10) mantissa = 1, ++exponent;
  t.step = mantissa * std::pow(10, exponent);
  // 2.5 x 10^k needs one decimal more than 10^k (0.25 has two, 0.1 one).
  t.decimals = std::max(0, -exponent + (mantissa == 2.5 ? 1 : 0));
  // Multiples k x step, k whole: no sum of steps drifting to 0.30000000000000004.
  const long long first = static_cast<long long>(std::ceil(lo / t.step - 1e-9));
  const long long last = static_cast<long long>(std::floor(hi / t.step + 1e-9));
  for (long long k = first; k <= last; ++k) {
    const double v = k == 0 ? 0.0 : static_cast<double>(k) * t.step;
    t.values.push_back(v);
    t.labels.push_back(fmt::format("{:.{}f}", v, t.decimals));
  }
  return t;
}

}  // namespace ovs
