#pragma once
// Engine time lives on a grid of 2^-20 us (about a picosecond): every duration the engine adds to
// the clock (a host action's cost, a kernel's latency, the time to its next finish) is rounded up
// to the grid. Times up to 2^33 us are then exact multiples of the grid, so a sum of durations
// does not depend on when it started: a period of identical layers takes the same bits of time
// wherever it falls, which is what lets the steady-state fast-forward shift a period exactly.
#include <cmath>

namespace ovs {

inline constexpr double kTimeGridPerUs = 1048576.0;  // 2^20: grid steps per us

// The smallest grid time >= us (0 for us <= 0; infinity stays infinity).
inline double on_time_grid(double us) {
  if (!(us > 0)) return 0;
  return std::ceil(us * kTimeGridPerUs) / kTimeGridPerUs;
}

}  // namespace ovs
