#include "calibrate/import/segments.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace ovs::trace {
namespace {

constexpr double kSpacingTolerance = 0.2;  // a marker's spacings within 20 % of their median
constexpr int kMinAgreeingMarkers = 2;
constexpr long long kSimilaritySlack = 2;  // positions either side of one period later

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Candidate {
  int name = 0;
  std::vector<long long> at;  // occurrence indices
  double spacing = 0;         // median spacing
};

}  // namespace

SegmentSearch find_segments(const std::vector<int>& names, const std::vector<double>& start_us,
                            const std::vector<double>& end_us) {
  SegmentSearch r;
  const long long n = static_cast<long long>(names.size());
  std::unordered_map<int, std::vector<long long>> occ;
  for (long long i = 0; i < n; ++i) occ[names[i]].push_back(i);

  // 1. regular markers.
  std::vector<Candidate> cands;
  for (auto& [name, at] : occ) {
    if (at.size() < 2) continue;
    std::vector<double> sp;
    for (size_t i = 1; i < at.size(); ++i) sp.push_back(static_cast<double>(at[i] - at[i - 1]));
    const double med = median(sp);
    if (med < 2) continue;
    if (std::all_of(sp.begin(), sp.end(),
                    [&](double s) { return std::abs(s - med) <= kSpacingTolerance * med; }))
      cands.push_back({name, at, med});
  }
  // 2. votes for the occurrence count.
  std::map<size_t, int> votes;
  for (const auto& c : cands) ++votes[c.at.size()];
  size_t layers = 0;
  int best = 0;
  for (const auto& [count, v] : votes)
    if (v >= best) layers = count, best = v;  // ascending counts: ties go to the larger
  if (best < kMinAgreeingMarkers) {
    r.reason = cands.empty()
                   ? "no kernel name recurs at regular intervals"
                   : "no two kernel names recur the same number of times at regular intervals";
    return r;
  }
  // 3. period, boundary marker, segments.
  std::vector<double> spacings;
  const Candidate* marker = nullptr;
  for (const auto& c : cands) {
    if (c.at.size() != layers) continue;
    spacings.push_back(c.spacing);
    if (!marker || c.at.front() < marker->at.front()) marker = &c;
  }
  r.found = true;
  r.agreeing_markers = best;
  r.marker = marker->name;
  r.period_kernels = median(spacings);
  r.prologue_kernels = marker->at.front();
  const long long period = std::max<long long>(1, std::llround(r.period_kernels));
  for (size_t i = 0; i < layers; ++i) {
    Segment s;
    s.first_kernel = marker->at[i];
    const long long next =
        i + 1 < layers ? marker->at[i + 1] : std::min(n, s.first_kernel + period);
    s.kernels = next - s.first_kernel;
    s.start_us = start_us[s.first_kernel];
    if (i + 1 < layers) {
      s.end_us = start_us[next];
    } else {
      s.end_us = s.start_us;
      for (long long k = s.first_kernel; k < next; ++k) s.end_us = std::max(s.end_us, end_us[k]);
    }
    r.segments.push_back(s);
  }
  double sum = 0;
  r.min_us = r.max_us = r.segments.front().duration_us();
  for (const auto& s : r.segments) {
    sum += s.duration_us();
    r.min_us = std::min(r.min_us, s.duration_us());
    r.max_us = std::max(r.max_us, s.duration_us());
  }
  r.mean_us = sum / static_cast<double>(r.segments.size());

  long long compared = 0, repeated = 0;
  for (long long i = r.prologue_kernels; i + period < n; ++i) {
    ++compared;
    const long long lo = std::max(0LL, i + period - kSimilaritySlack);
    const long long hi = std::min(n - 1, i + period + kSimilaritySlack);
    for (long long j = lo; j <= hi; ++j)
      if (names[j] == names[i]) {
        ++repeated;
        break;
      }
  }
  r.self_similarity = compared ? static_cast<double>(repeated) / static_cast<double>(compared) : 0;
  return r;
}

}  // namespace ovs::trace
