#include "sim/engine/share_solver.hpp"

#include <algorithm>
#include <limits>

namespace ovs {

int ShareSolver::add(double cap, const double* usage) {
  cap_.push_back(cap);
  usage_.insert(usage_.end(), usage, usage + num_resources_);
  return static_cast<int>(cap_.size()) - 1;
}

void ShareSolver::solve() {
  const int n = size();
  const int R = num_resources_;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  rate_.assign(n, 0.0);
  // Fast path: when every consumer at its own ceiling fits in every resource, that is the answer.
  {
    slope_.assign(R, 0.0);
    bool fits = true;
    for (int j = 0; j < n && fits; ++j)
      for (int r = 0; r < R; ++r)
        if (usage_[j * R + r] > 0) slope_[r] += usage_[j * R + r] * cap_[j];
    for (int r = 0; r < R; ++r) fits = fits && slope_[r] <= capacity_[r];
    if (fits) {
      rate_ = cap_;
      return;
    }
  }
  dominant_.assign(n, 0.0);
  active_.assign(n, 0);
  remaining_ = capacity_;
  slope_.assign(R, 0.0);

  int num_active = 0;
  for (int j = 0; j < n; ++j) {
    double d = 0;
    for (int r = 0; r < R; ++r) {
      const double u = usage_[j * R + r];
      if (u > 0 && capacity_[r] > 0) d = std::max(d, u / capacity_[r]);
    }
    dominant_[j] = d;
    if (d == 0) {
      rate_[j] = cap_[j];  // uses no shared resource: runs at its own ceiling
    } else {
      active_[j] = 1;
      ++num_active;
    }
  }

  // Progressive filling: every active consumer's dominant share rises together from 0.
  double level = 0;
  while (num_active > 0) {
    // Consumption of each resource per unit of level increase.
    std::fill(slope_.begin(), slope_.end(), 0.0);
    for (int j = 0; j < n; ++j) {
      if (!active_[j]) continue;
      for (int r = 0; r < R; ++r) slope_[r] += usage_[j * R + r] / dominant_[j];
    }
    double step = kInf;
    for (int r = 0; r < R; ++r)
      if (slope_[r] > 0) step = std::min(step, std::max(0.0, remaining_[r]) / slope_[r]);
    for (int j = 0; j < n; ++j)
      if (active_[j]) step = std::min(step, std::max(0.0, cap_[j] * dominant_[j] - level));
    level += step;
    for (int r = 0; r < R; ++r) remaining_[r] -= slope_[r] * step;

    // Freeze consumers at their own ceiling and every consumer of a saturated resource.
    int frozen = 0;
    for (int j = 0; j < n; ++j) {
      if (!active_[j]) continue;
      bool freeze = cap_[j] * dominant_[j] <= level * (1 + 1e-12);
      for (int r = 0; r < R && !freeze; ++r)
        freeze = usage_[j * R + r] > 0 && remaining_[r] <= capacity_[r] * 1e-12;
      if (freeze) {
        rate_[j] = std::min(cap_[j], level / dominant_[j]);
        active_[j] = 0;
        ++frozen;
      }
    }
    num_active -= frozen;
    if (frozen == 0) break;  // unreachable in exact arithmetic; guards against a stall
  }
  for (int j = 0; j < n; ++j)
    if (active_[j]) rate_[j] = std::min(cap_[j], level / dominant_[j]);
}

}  // namespace ovs
