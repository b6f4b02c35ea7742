#include "sim/engine/share_solver.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace ovs {

int ShareSolver::add(double cap, const double* usage) {
  const size_t R = static_cast<size_t>(num_resources_);
  if (static_cast<size_t>(n_) >= cap_.size() || (n_ + 1) * R > usage_.size()) grow();
  cap_[n_] = cap;
  double* row = usage_.data() + n_ * R;
  if (R == 4) {  // the common case, without a call to memcpy
    row[0] = usage[0];
    row[1] = usage[1];
    row[2] = usage[2];
    row[3] = usage[3];
  } else {
    std::memcpy(row, usage, R * sizeof(double));
  }
  return n_++;
}

void ShareSolver::grow() {
  const size_t n = std::max<size_t>(8, 2 * static_cast<size_t>(n_ + 1));
  if (cap_.size() < n) cap_.resize(n);
  if (usage_.size() < n * static_cast<size_t>(num_resources_))
    usage_.resize(n * static_cast<size_t>(num_resources_));
}

void ShareSolver::solve() {
  // The engine's common problem has the four GPU-wide resources: a fixed count lets the
  // compiler unroll the loops over resources. Both give the same bits.
  if (num_resources_ == 4)
    solve_with<4>();
  else
    solve_with<0>();
}

// R > 0: the number of resources, fixed at compile time; 0: num_resources_.
template <int R>
void ShareSolver::solve_with() {
  const int n = size();
  const int nr = R > 0 ? R : num_resources_;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double* usage = usage_.data();
  const double* cap = cap_.data();
  const double* capacity = capacity_.data();
  slope_.resize(nr);
  double* slope = slope_.data();
  // Fast path: when every consumer at its own ceiling fits in every resource, that is the answer.
  {
#pragma GCC unroll 4
    for (int r = 0; r < nr; ++r) slope[r] = 0.0;
    for (int j = 0; j < n; ++j) {
      const double* u = usage + static_cast<size_t>(j) * nr;
#pragma GCC unroll 4
      for (int r = 0; r < nr; ++r)
        if (u[r] > 0) slope[r] += u[r] * cap[j];
    }
    bool fits = true;
#pragma GCC unroll 4
    for (int r = 0; r < nr; ++r) fits = fits && slope[r] <= capacity[r];
    if (fits) {
      rate_.resize(n);
      for (int j = 0; j < n; ++j) rate_[j] = cap[j];
      return;
    }
  }
  rate_.assign(n, 0.0);
  dominant_.resize(n);
  active_.assign(n, 0);
  remaining_.assign(capacity_.begin(), capacity_.end());
  double* rate = rate_.data();
  double* dominant = dominant_.data();
  char* active = active_.data();
  double* remaining = remaining_.data();

  int num_active = 0;
  for (int j = 0; j < n; ++j) {
    const double* u = usage + static_cast<size_t>(j) * nr;
    double d = 0;
#pragma GCC unroll 4
    for (int r = 0; r < nr; ++r)
      if (u[r] > 0 && capacity[r] > 0) d = std::max(d, u[r] / capacity[r]);
    dominant[j] = d;
    if (d == 0) {
      rate[j] = cap[j];  // uses no shared resource: runs at its own ceiling
    } else {
      active[j] = 1;
      ++num_active;
    }
  }

  // Progressive filling: every active consumer's dominant share rises together from 0.
  double level = 0;
  while (num_active > 0) {
// Consumption of each resource per unit of level increase.
#pragma GCC unroll 4
    for (int r = 0; r < nr; ++r) slope[r] = 0.0;
    for (int j = 0; j < n; ++j) {
      if (!active[j]) continue;
      const double* u = usage + static_cast<size_t>(j) * nr;
#pragma GCC unroll 4
      for (int r = 0; r < nr; ++r) slope[r] += u[r] / dominant[j];
    }
    double step = kInf;
#pragma GCC unroll 4
    for (int r = 0; r < nr; ++r)
      if (slope[r] > 0) step = std::min(step, std::max(0.0, remaining[r]) / slope[r]);
    for (int j = 0; j < n; ++j)
      if (active[j]) step = std::min(step, std::max(0.0, cap[j] * dominant[j] - level));
    level += step;
#pragma GCC unroll 4
    for (int r = 0; r < nr; ++r) remaining[r] -= slope[r] * step;

    // Freeze consumers at their own ceiling and every consumer of a saturated resource.
    int frozen = 0;
    for (int j = 0; j < n; ++j) {
      if (!active[j]) continue;
      const double* u = usage + static_cast<size_t>(j) * nr;
      bool freeze = cap[j] * dominant[j] <= level * (1 + 1e-12);
      for (int r = 0; r < nr && !freeze; ++r)
        freeze = u[r] > 0 && remaining[r] <= capacity[r] * 1e-12;
      if (freeze) {
        rate[j] = std::min(cap[j], level / dominant[j]);
        active[j] = 0;
        ++frozen;
      }
    }
    num_active -= frozen;
    if (frozen == 0) break;  // unreachable in exact arithmetic; guards against a stall
  }
  for (int j = 0; j < n; ++j)
    if (active[j]) rate[j] = std::min(cap[j], level / dominant[j]);
}

template void ShareSolver::solve_with<4>();
template void ShareSolver::solve_with<0>();

}  // namespace ovs
