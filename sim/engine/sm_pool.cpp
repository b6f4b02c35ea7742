#include "sim/engine/sm_pool.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ovs {

SmPool::SmPool(int sm_count, int kernels)
    : share_(static_cast<size_t>(std::max(0, kernels))),
      max_per_sm_(static_cast<size_t>(std::max(0, kernels)), 1),
      sms_(static_cast<size_t>(std::max(0, kernels)), 0) {
  if (sm_count > 0) groups_.push_back(Group{sm_count, {}, {}});
}

void SmPool::grow(int kernels) {
  share_.resize(static_cast<size_t>(kernels));
  max_per_sm_.resize(static_cast<size_t>(kernels), 1);
  sms_.resize(static_cast<size_t>(kernels), 0);
}

int SmPool::ctas_of(const Group& g, int kernel) {
  for (const auto& r : g.residents)  // a few residents: a scan beats a binary search
    if (r.kernel == kernel) return r.ctas;
  return 0;
}

void SmPool::add_resident(Group& g, int kernel, int ctas) {
  auto it = std::lower_bound(g.residents.begin(), g.residents.end(), kernel,
                             [](const Resident& r, int k) { return r.kernel < k; });
  if (it != g.residents.end() && it->kernel == kernel) {
    it->ctas += ctas;
  } else {
    g.residents.insert(it, Resident{kernel, ctas});
    sms_[kernel] += g.count;  // splits and merges move SMs between groups: the sum holds
  }
  for (int d = 0; d < 4; ++d) g.used[d] += ctas * share_[kernel][d];
}

// Used capacity from the residents, summed in kernel order: the same residents always give the
// same bits, so groups can be compared and merged exactly.
void SmPool::recompute_used(Group& g) const {
  g.used = {};
  for (const auto& r : g.residents)
    for (int d = 0; d < 4; ++d) g.used[d] += r.ctas * share_[r.kernel][d];
}

int SmPool::place(int kernel, int want) {
  if (want <= 0) return 0;
  const CtaShare& s = share_[kernel];
  order_.clear();
  long long total = 0;
  int max_fit = 0;
  bool grew = false;  // groups can only become equal when the kernel was already resident
  for (size_t g = 0; g < groups_.size(); ++g) {
    int fit = ctas_that_fit(groups_[g].used, s);
    if (fit <= 0) continue;
    const int have = ctas_of(groups_[g], kernel);
    fit = std::min(fit, max_per_sm_[kernel] - have);
    if (fit <= 0) continue;
    grew |= have > 0;
    order_.emplace_back(static_cast<int>(g), fit);
    total += static_cast<long long>(fit) * groups_[g].count;
    max_fit = std::max(max_fit, fit);
  }
  if (order_.empty()) return 0;
  // Most room first; ties by group order (deterministic). A handful of groups: insertion sort.
  for (size_t i = 1; i < order_.size(); ++i)
    for (size_t j = i; j > 0 && order_[j].second > order_[j - 1].second; --j)
      std::swap(order_[j], order_[j - 1]);
  if (want >= total) {
    for (const auto& [g, fit] : order_) add_resident(groups_[g], kernel, fit);
    if (grew) merge_equal_groups();
    return static_cast<int>(total);
  }
  // Breadth-first: the largest number of full rounds q (one CTA per SM each) that `want` covers,
  // then one more CTA on the first r SMs (most room first).
  auto placed_by = [&](int q) {
    long long n = 0;
    for (const auto& [g, fit] : order_)
      n += static_cast<long long>(std::min(fit, q)) * groups_[g].count;
    return n;
  };
  int lo = 0, hi = max_fit;  // placed_by(lo) <= want < placed_by(hi)
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (placed_by(mid) <= want ? lo : hi) = mid;
  }
  const int q = lo;
  long long extra = want - placed_by(q);
  const size_t n = order_.size();
  for (size_t i = 0; i < n; ++i) {
    const int g = order_[i].first, fit = order_[i].second;
    int c = std::min(fit, q);
    if (fit > q && extra > 0) {
      if (extra >= groups_[g].count) {
        extra -= groups_[g].count;
        ++c;
      } else {
        Group split;
        split.used = groups_[g].used;
        if (!spare_.empty()) {
          split.residents = std::move(spare_.back());
          spare_.pop_back();
        }
        split.residents.assign(groups_[g].residents.begin(), groups_[g].residents.end());
        split.count = static_cast<int>(extra);
        groups_[g].count -= split.count;
        add_resident(split, kernel, c + 1);
        groups_.push_back(std::move(split));
        extra = 0;
      }
    }
    if (c > 0) add_resident(groups_[g], kernel, c);
  }
  if (grew) merge_equal_groups();
  return want;
}

void SmPool::release(int kernel) {
  bool any = false;
  for (auto& g : groups_) {
    auto it = std::lower_bound(g.residents.begin(), g.residents.end(), kernel,
                               [](const Resident& r, int k) { return r.kernel < k; });
    if (it == g.residents.end() || it->kernel != kernel) continue;
    g.residents.erase(it);
    recompute_used(g);
    any = true;
  }
  sms_[kernel] = 0;
  if (any) {
    merge_equal_groups();
  }
}

void SmPool::shift_kernels(int delta) {
  std::vector<int> moved;
  for (auto& g : groups_)
    for (auto& r : g.residents) {
      if (sms_[r.kernel] != 0) moved.push_back(r.kernel);
      r.kernel += delta;
    }
  std::sort(moved.begin(), moved.end());
  moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
  std::vector<int> sms(moved.size());
  for (size_t i = 0; i < moved.size(); ++i) {
    sms[i] = sms_[moved[i]];
    sms_[moved[i]] = 0;
  }
  for (size_t i = 0; i < moved.size(); ++i) sms_[moved[i] + delta] = sms[i];
}

void SmPool::merge_equal_groups() {
  for (size_t i = 0; i < groups_.size(); ++i) {
    for (size_t j = i + 1; j < groups_.size();) {
      const auto& a = groups_[i].residents;
      const auto& b = groups_[j].residents;
      const bool same = a.size() == b.size() &&
                        std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
                          return x.kernel == y.kernel && x.ctas == y.ctas;
                        });
      if (same) {
        groups_[i].count += groups_[j].count;
        spare_.push_back(std::move(groups_[j].residents));
        spare_.back().clear();
        groups_.erase(groups_.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
  }
}

int SmPool::busy_sms() const {
  int n = 0;
  for (const auto& g : groups_)
    if (!g.residents.empty()) n += g.count;
  return n;
}

int SmPool::shared_sms() const {
  int n = 0;
  for (const auto& g : groups_)
    if (g.residents.size() >= 2) n += g.count;
  return n;
}

int SmPool::resident_ctas() const {
  int n = 0;
  for (const auto& g : groups_)
    for (const auto& r : g.residents) n += g.count * r.ctas;
  return n;
}

}  // namespace ovs

namespace ovs {

void SmPool::occupancy(int& busy, int& shared, int& ctas) const {
  busy = shared = ctas = 0;
  for (const auto& g : groups_) {
    if (g.residents.empty()) continue;
    busy += g.count;
    if (g.residents.size() >= 2) shared += g.count;
    for (const auto& r : g.residents) ctas += g.count * r.ctas;
  }
}

}  // namespace ovs
