#include "sim/core/intervals.hpp"

#include <algorithm>
#include <utility>

namespace ovs {

double overlap_us(Interval a, Interval b) {
  return std::max(0.0, std::min(a.end_us, b.end_us) - std::max(a.start_us, b.start_us));
}

IntervalUnion::IntervalUnion(std::vector<Interval> intervals) {
  // Often given in order already (one stream's kernels): checking is cheaper than sorting.
  if (!std::is_sorted(intervals.begin(), intervals.end()))
    std::sort(intervals.begin(), intervals.end());
  for (const Interval& x : intervals) {
    if (x.end_us <= x.start_us) continue;
    if (!parts_.empty() && x.start_us <= parts_.back().end_us)
      parts_.back().end_us = std::max(parts_.back().end_us, x.end_us);
    else
      parts_.push_back(x);
  }
}

IntervalUnion union_of(const IntervalUnion& a, const IntervalUnion& b) {
  // Both lists are sorted and hold no empty interval: merge them in (start, end) order and join
  // as the constructor does.
  IntervalUnion out;
  const auto &x = a.parts_, &y = b.parts_;
  out.parts_.reserve(x.size() + y.size());
  size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    const Interval& next = j >= y.size() || (i < x.size() && !(y[j] < x[i])) ? x[i++] : y[j++];
    if (!out.parts_.empty() && next.start_us <= out.parts_.back().end_us)
      out.parts_.back().end_us = std::max(out.parts_.back().end_us, next.end_us);
    else
      out.parts_.push_back(next);
  }
  return out;
}

double IntervalUnion::length_us() const {
  double total = 0;
  for (const Interval& x : parts_) total += x.length_us();
  return total;
}

double intersection_us(const IntervalUnion& a, const IntervalUnion& b) {
  // Two sorted lists walked together: the one that ends first moves on.
  const auto &x = a.intervals(), &y = b.intervals();
  double total = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const double lo = std::max(x[i].start_us, y[j].start_us);
    const double hi = std::min(x[i].end_us, y[j].end_us);
    if (hi > lo) total += hi - lo;
    (x[i].end_us < y[j].end_us) ? ++i : ++j;
  }
  return total;
}

double intersection_us(Interval a, const IntervalUnion& b) {
  const auto& y = b.intervals();
  // The first part of b that ends at or after a starts.
  auto it = std::lower_bound(y.begin(), y.end(), a.start_us,
                             [](const Interval& p, double t) { return p.end_us < t; });
  double total = 0;
  for (; it != y.end() && it->start_us < a.end_us; ++it) total += overlap_us(a, *it);
  return total;
}

double difference_us(Interval a, const IntervalUnion& b) {
  return a.length_us() - intersection_us(a, b);
}

double difference_us(const IntervalUnion& a, const IntervalUnion& b) {
  double total = 0;
  for (const Interval& x : a.intervals()) total += difference_us(x, b);
  return total;
}

double covered_by_at_least_us(int k, const std::vector<IntervalUnion>& unions) {
  // Sweep over the ends: +1 where a union's interval starts, -1 where it ends; an end sorts
  // before a start at the same time, so touching intervals of two unions never count as two.
  std::vector<std::pair<double, int>> edges;
  for (const auto& u : unions)
    for (const Interval& x : u.intervals()) {
      edges.push_back({x.start_us, +1});
      edges.push_back({x.end_us, -1});
    }
  std::sort(edges.begin(), edges.end());
  double total = 0, last_us = 0;
  int open = 0;
  for (const auto& [t_us, step] : edges) {
    if (open >= k) total += t_us - last_us;
    open += step;
    last_us = t_us;
  }
  return total;
}

}  // namespace ovs
