// The interval algebra every timeline analysis uses: unions, lengths, intersections, differences
// and "at least k of n". Each test draws its intervals on a number line and states the sum.
#include <catch2/catch.hpp>

#include "sim/core/intervals.hpp"

using ovs::Interval;
using ovs::IntervalUnion;

namespace {
std::vector<Interval> parts(const IntervalUnion& u) {
  return u.intervals();
}
}  // namespace

TEST_CASE("a union sorts, joins overlapping and touching intervals, and drops empty ones",
          "[intervals]") {
  // [5,7) [0,2) [1,3) [3,4) [8,8) [9,8): [0,2)+[1,3) overlap -> [0,3); [3,4) touches -> [0,4);
  // [8,8) is empty and [9,8) backwards: both dropped; [5,7) stays apart.
  const IntervalUnion u({{5, 7}, {0, 2}, {1, 3}, {3, 4}, {8, 8}, {9, 8}});
  CHECK(parts(u) == std::vector<Interval>{{0, 4}, {5, 7}});
  // |u| = 4 + 2 = 6.
  CHECK(u.length_us() == 6.0);
  CHECK(IntervalUnion().empty());
  CHECK(IntervalUnion({{3, 3}}).empty());
}

TEST_CASE("an interval inside another leaves the outer one unchanged", "[intervals]") {
  // [0,10) contains [2,3) and [4,9): the union is [0,10), length 10 (not 10 + 1 + 5).
  const IntervalUnion u({{2, 3}, {0, 10}, {4, 9}});
  CHECK(parts(u) == std::vector<Interval>{{0, 10}});
  CHECK(u.length_us() == 10.0);
}

TEST_CASE("the overlap of two intervals is clipped at zero", "[intervals]") {
  // [0,4) and [3,10): 4 - 3 = 1. [0,2) and [5,6): 2 - 5 < 0 -> 0. Touching [0,2) [2,3): 0.
  CHECK(ovs::overlap_us({0, 4}, {3, 10}) == 1.0);
  CHECK(ovs::overlap_us({0, 2}, {5, 6}) == 0.0);
  CHECK(ovs::overlap_us({0, 2}, {2, 3}) == 0.0);
  // A window clips an interval: [1,9) in the window [4,6): 2.
  CHECK(ovs::overlap_us({1, 9}, {4, 6}) == 2.0);
}

TEST_CASE("the intersection of two unions counts each shared stretch once", "[intervals]") {
  // a = [0,4) [6,10), b = [2,7) [9,12):
  // [0,4)n[2,7) = 2, [6,10)n[2,7) = 1, [6,10)n[9,12) = 1: 2 + 1 + 1 = 4.
  const IntervalUnion a({{0, 4}, {6, 10}}), b({{2, 7}, {9, 12}});
  CHECK(ovs::intersection_us(a, b) == 4.0);
  CHECK(ovs::intersection_us(b, a) == 4.0);
  // Disjoint unions share nothing.
  CHECK(ovs::intersection_us(a, IntervalUnion({{4, 6}, {10, 20}})) == 0.0);
}

TEST_CASE("an interval against a union: covered and uncovered add up to its length",
          "[intervals]") {
  // cover = [0,2) [3,5) [8,9); x = [1,8): covered [1,2) + [3,5) = 1 + 2 = 3 (the part [8,9)
  // only touches x); uncovered 7 - 3 = 4.
  const IntervalUnion cover({{0, 2}, {3, 5}, {8, 9}});
  CHECK(ovs::intersection_us(Interval{1, 8}, cover) == 3.0);
  CHECK(ovs::difference_us(Interval{1, 8}, cover) == 4.0);
  // An interval past every part of the cover is all uncovered: [10,12) -> 2.
  CHECK(ovs::difference_us(Interval{10, 12}, cover) == 2.0);
}

TEST_CASE("the difference of two unions is what the first has and the second does not",
          "[intervals]") {
  // comm = [0,4) [10,14), compute = [1,3) [12,20): exposed (comm \ compute) =
  // ([0,4) - 2) + ([10,14) - 2) = 2 + 2 = 4; compute \ comm = ([1,3) - 2) + ([12,20) - 2) = 6.
  const IntervalUnion comm({{0, 4}, {10, 14}}), compute({{1, 3}, {12, 20}});
  CHECK(ovs::difference_us(comm, compute) == 4.0);
  CHECK(ovs::difference_us(compute, comm) == 6.0);
  // |a \ b| + |a n b| = |a|: 4 + 4 = 8.
  CHECK(ovs::difference_us(comm, compute) + ovs::intersection_us(comm, compute) ==
        comm.length_us());
}

TEST_CASE("time covered by at least k of n unions", "[intervals]") {
  // s0 = [0,10), s1 = [2,6), s2 = [4,8) [9,12):
  //   t in [0,2): 1 busy; [2,4): 2; [4,6): 3; [6,8): 2; [8,9): 1; [9,10): 2; [10,12): 1.
  // At least 1: [0,12) = 12. At least 2: [2,8) + [9,10) = 6 + 1 = 7. At least 3: [4,6) = 2.
  const std::vector<IntervalUnion> s{IntervalUnion({{0, 10}}), IntervalUnion({{2, 6}}),
                                     IntervalUnion({{4, 8}, {9, 12}})};
  CHECK(ovs::covered_by_at_least_us(1, s) == 12.0);
  CHECK(ovs::covered_by_at_least_us(2, s) == 7.0);
  CHECK(ovs::covered_by_at_least_us(3, s) == 2.0);
  CHECK(ovs::covered_by_at_least_us(4, s) == 0.0);
}

TEST_CASE("two unions that only touch are never busy together", "[intervals]") {
  // [0,2) and [2,4): at t = 2 one ends as the other starts; the end counts first, so the time
  // with two busy is 0, not a sliver.
  const std::vector<IntervalUnion> s{IntervalUnion({{0, 2}}), IntervalUnion({{2, 4}})};
  CHECK(ovs::covered_by_at_least_us(2, s) == 0.0);
  CHECK(ovs::covered_by_at_least_us(1, s) == 4.0);
}

TEST_CASE("the union of two unions joins across them as the union of all their intervals",
          "[intervals]") {
  // a = [0,2) [5,6) [9,12); b = [2,3) [4,5.5) [11,13) [20,21): [0,2) touches [2,3) -> [0,3);
  // [4,5.5) overlaps [5,6) -> [4,6); [9,12) overlaps [11,13) -> [9,13); [20,21) alone.
  const std::vector<Interval> xa{{0, 2}, {5, 6}, {9, 12}}, xb{{2, 3}, {4, 5.5}, {11, 13}, {20, 21}};
  const IntervalUnion a(xa), b(xb);
  const IntervalUnion u = ovs::union_of(a, b);
  CHECK(parts(u) == std::vector<Interval>{{0, 3}, {4, 6}, {9, 13}, {20, 21}});
  CHECK(u.length_us() == 3.0 + 2.0 + 4.0 + 1.0);
  std::vector<Interval> all = xa;
  all.insert(all.end(), xb.begin(), xb.end());
  CHECK(parts(IntervalUnion(all)) == parts(u));
  CHECK(parts(ovs::union_of(b, a)) == parts(u));
  CHECK(parts(ovs::union_of(a, IntervalUnion())) == parts(a));
}
