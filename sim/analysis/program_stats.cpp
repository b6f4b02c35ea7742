#include <algorithm>
#include <cmath>

#include "sim/analysis/whatif.hpp"

namespace ovs {
namespace {

using Span = std::pair<double, double>;

std::vector<Span> merged(std::vector<Span> v) {
  std::sort(v.begin(), v.end());
  std::vector<Span> out;
  for (const auto& s : v) {
    if (s.second <= s.first) continue;
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  }
  return out;
}

double length(const std::vector<Span>& v) {
  double t = 0;
  for (const auto& s : v) t += s.second - s.first;
  return t;
}

// Length of a minus b (both merged: sorted and disjoint).
double minus(const std::vector<Span>& a, const std::vector<Span>& b) {
  double t = 0;
  size_t j = 0;
  for (const auto& [s, e] : a) {
    while (j < b.size() && b[j].second <= s) ++j;
    double covered = 0;
    for (size_t k = j; k < b.size() && b[k].first < e; ++k)
      covered += std::min(e, b[k].second) - std::max(s, b[k].first);
    t += (e - s) - covered;
  }
  return t;
}

}  // namespace

ProgramStats program_stats(const BuiltProgram& b, const Timeline& tl, double makespan_us,
                           const Workload& w, int first_moe_layer, int layers) {
  ProgramStats s;
  s.total_us = makespan_us;
  s.split = b.split;
  s.note = b.note;
  s.launches = b.launch_count;
  std::vector<Span> comm, compute, any;
  std::vector<double> layer_end(layers, 0.0);
  const auto& ks = tl.kernels();
  for (size_t i = 0; i < ks.size(); ++i) {
    const Span sp{ks[i].start_us, ks[i].end_us};
    (b.info[i].comm ? comm : compute).push_back(sp);
    any.push_back(sp);
    const int l = b.info[i].layer;
    if (l >= 0 && l < layers) layer_end[l] = std::max(layer_end[l], ks[i].end_us);
  }
  const auto mc = merged(comm), mp = merged(compute), ma = merged(any);
  s.comm_busy_us = length(mc);
  s.compute_busy_us = length(mp);
  s.exposed_comm_us = minus(mc, mp);
  s.gpu_idle_us = std::max(0.0, makespan_us - length(ma));
  // Steady state: consecutive layer ends over the MoE layers, first two and last one left out.
  const int lo = std::min(layers - 1, first_moe_layer + 2), hi = layers - 1;
  if (hi - lo >= 2)
    s.per_layer_us = (layer_end[hi - 1] - layer_end[lo]) / (hi - 1 - lo);
  else if (layers > 0)
    s.per_layer_us = makespan_us / layers;
  s.tokens_per_s_per_gpu = makespan_us > 0 ? double(w.tokens()) / (makespan_us * 1e-6) : 0;
  return s;
}

}  // namespace ovs
