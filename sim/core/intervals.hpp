#pragma once
// One interval algebra for timelines. An interval is half-open, [start_us, end_us); a union of
// intervals is kept sorted, disjoint and without empty intervals. Every timeline question the
// analyses ask - time busy, communication exposed (not covered by compute), two streams at once,
// usage inside a window - is a length in this algebra:
//   |A|          IntervalUnion::length_us
//   |A n B|      intersection_us (of two unions, or of one interval with a union)
//   |A \ B|      difference_us   (of a union, or of one interval, minus a union)
//   at least k   covered_by_at_least_us: time inside at least k of n unions
// The sums run left to right over the intervals, so the same inputs give the same bits.
#include <compare>
#include <vector>

namespace ovs {

struct Interval {
  double start_us = 0;
  double end_us = 0;
  double length_us() const { return end_us - start_us; }
  auto operator<=>(const Interval&) const = default;
};

// Length of the overlap of two intervals (one clipped to the other); 0 when they are disjoint.
double overlap_us(Interval a, Interval b);

class IntervalUnion {
 public:
  IntervalUnion() = default;
  // Any intervals, in any order: empty ones are dropped, overlapping or touching ones joined
  // ([0, 2) and [2, 3) become [0, 3)).
  explicit IntervalUnion(std::vector<Interval> intervals);

  const std::vector<Interval>& intervals() const { return parts_; }
  bool empty() const { return parts_.empty(); }
  double length_us() const;

 private:
  friend IntervalUnion union_of(const IntervalUnion& a, const IntervalUnion& b);
  std::vector<Interval> parts_;  // sorted by start, disjoint, none empty
};

// a u b, by one walk over both (no sort): the same parts as a union of all their intervals.
IntervalUnion union_of(const IntervalUnion& a, const IntervalUnion& b);
// |a n b|.
double intersection_us(const IntervalUnion& a, const IntervalUnion& b);
double intersection_us(Interval a, const IntervalUnion& b);
// |a \ b|: the part of a that b does not cover.
double difference_us(const IntervalUnion& a, const IntervalUnion& b);
double difference_us(Interval a, const IntervalUnion& b);
// Time inside at least k of the unions (k = 2 of a stream's busy times: two streams at once).
double covered_by_at_least_us(int k, const std::vector<IntervalUnion>& unions);

}  // namespace ovs
