#pragma once
// Repeating segments (layers) of a kernel sequence, found from "marker" kernels.
//
// Method. A model's layers launch the same kernels in the same order, so a kernel that runs once
// per layer (the attention forward, the router's top-k) occurs L times, evenly spaced in the
// sequence. On the compute stream's kernel names in start order:
//  1. a name is a marker candidate when it occurs at least twice, its occurrences are at least
//     two kernels apart, and every spacing is within 20 % of their median (regular);
//  2. each candidate votes for its occurrence count; the layer count L is the count with most
//     votes (ties: the larger count, i.e. the shorter period), and at least two distinct names
//     must agree, so that one coincidence is not taken for a layer structure;
//  3. the period in kernels is the median spacing of the agreeing markers; the boundary marker
//     is the agreeing marker that occurs first, so segment i starts at its i-th occurrence and
//     ends where the next one starts (the last: at the end of its period's last kernel, or of the
//     sequence). Kernels before the first boundary are the prologue.
// Counting occurrences rather than matching the sequence shifted by a lag keeps the result
// stable when a layer has one kernel more or less than the others (907 kernels on DeepSeek's
// compute stream: 227, 226, 227 per layer), which breaks plain autocorrelation at every shift.
// self_similarity reports how well the sequence repeats at the period anyway (a kernel counts
// as repeated when its name recurs within two positions of one period later).
#include <string>
#include <vector>

namespace ovs::trace {

struct Segment {
  long long first_kernel = 0;  // index in the sequence
  long long kernels = 0;
  double start_us = 0;
  double end_us = 0;
  double duration_us() const { return end_us - start_us; }
};

struct SegmentSearch {
  bool found = false;
  std::string reason;  // why none was found
  int marker = -1;     // name id of the boundary marker
  int agreeing_markers = 0;
  double period_kernels = 0;
  double self_similarity = 0;  // 0..1
  long long prologue_kernels = 0;
  std::vector<Segment> segments;
  double mean_us = 0, min_us = 0, max_us = 0;
};

// names[i], start_us[i], end_us[i]: the i-th kernel of one stream in start order.
SegmentSearch find_segments(const std::vector<int>& names, const std::vector<double>& start_us,
                            const std::vector<double>& end_us);

}  // namespace ovs::trace
