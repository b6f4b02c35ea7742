#include <algorithm>
#include <cmath>

#include "app/analysis/whatif.hpp"
#include "sim/core/intervals.hpp"

namespace ovs {
ProgramStats program_stats(const BuiltProgram& b, const Timeline& tl, double makespan_us,
                           const Workload& w, int first_moe_layer, int layers) {
  ProgramStats s;
  s.total_us = makespan_us;
  s.split = b.split;
  s.note = b.note;
  s.launches = b.launch_count;
  // Busy spans per stream and side (communication or compute): one stream's kernels run one
  // after another in launch order, so each list is in order already and the unions merge them
  // (a union is the same set of spans whatever order it is made in).
  const size_t streams = b.program.streams.size();
  std::vector<std::vector<Interval>> spans(2 * streams);
  std::vector<double> layer_end(layers, 0.0);
  const auto& ks = tl.kernels();
  for (size_t i = 0; i < ks.size(); ++i) {
    const Interval sp{ks[i].start_us, ks[i].end_us};
    const auto stream = static_cast<size_t>(b.program.kernels[i].stream);
    spans[2 * stream + (b.info[i].comm ? 1 : 0)].push_back(sp);
    const int l = b.info[i].layer;
    if (l >= 0 && l < layers) layer_end[l] = std::max(layer_end[l], ks[i].end_us);
  }
  IntervalUnion comm_busy, compute_busy;
  for (size_t st = 0; st < streams; ++st) {
    if (!spans[2 * st].empty())
      compute_busy = union_of(compute_busy, IntervalUnion(std::move(spans[2 * st])));
    if (!spans[2 * st + 1].empty())
      comm_busy = union_of(comm_busy, IntervalUnion(std::move(spans[2 * st + 1])));
  }
  const IntervalUnion any_busy = union_of(comm_busy, compute_busy);
  s.comm_busy_us = comm_busy.length_us();
  s.compute_busy_us = compute_busy.length_us();
  s.exposed_comm_us = difference_us(comm_busy, compute_busy);
  s.gpu_idle_us = std::max(0.0, makespan_us - any_busy.length_us());
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
