#include "app/analysis/layer_breakdown.hpp"

#include <algorithm>

#include "sim/engine/kernel_model.hpp"

namespace ovs {

std::string breakdown_category(const KernelInfo& info, const KernelSpec& spec) {
  const std::string& op = info.op;
  const bool dispatch = op.rfind("dispatch", 0) == 0, combine = op.rfind("combine", 0) == 0;
  if (info.comm && (dispatch || combine)) {
    const std::string side = dispatch ? "Dispatch" : "Combine";
    // The wait for the slowest rank and the count exchange / barrier it ends in.
    if (info.kernel == "barrier" || info.kernel == "notify") return side + " Barrier";
    // get_dispatch_layout counts tokens per rank: a small compute kernel on DeepEP's stream.
    if (info.kernel == "layout") return "Other Kernels";
    return side + " Core";
  }
  if (info.kernel == "experts_gate_up" || info.kernel == "experts_down") return "MoE";
  if (spec.category == "attention") return "Attention Core";
  if (spec.category == "gemm") return "GEMM";
  return "Other Kernels";
}

LayerBreakdown layer_breakdown(const StrategyRun& run, const HwProfile& profile,
                               int first_moe_layer, int layers) {
  const Hardware& hw = profile.engine;
  LayerBreakdown out;
  const BuiltProgram& b = run.built;
  const Program& p = b.program;
  // The steady-state MoE layers program_stats averages (first two and the last left out).
  const int lo = std::min(layers - 1, first_moe_layer + 2), hi = layers - 1;
  out.layers = std::max(1, hi - lo);
  const double gap_us = p.launch_mode == LaunchMode::graph ? profile.kernel_gap_graph_us
                                                           : profile.kernel_gap_eager_us;
  int compute_stream = 0, comm_stream = -1;
  for (size_t s = 0; s < p.streams.size(); ++s) {
    if (p.streams[s].name == "compute") compute_stream = static_cast<int>(s);
    if (p.streams[s].name == "deepep") comm_stream = static_cast<int>(s);
  }
  double compute_busy_us = 0, comm_busy_us = 0;
  std::map<std::string, double> in_run_us, alone_us;
  const auto& ks = run.timeline->kernels();
  for (size_t i = 0; i < ks.size(); ++i) {
    const KernelInfo& info = b.info[i];
    if (info.layer < lo || info.layer >= hi) continue;
    const KernelSpec& spec = p.kernels[i];
    const double dur = ks[i].end_us - ks[i].start_us;
    if (spec.stream == compute_stream) compute_busy_us += dur;
    if (spec.stream == comm_stream) comm_busy_us += dur;
    // A transfer in flight holds no SM and sits on no stream of the GPU's: not a kernel.
    if (info.kernel == "in_flight") continue;
    const std::string cat = breakdown_category(info, spec);
    // The front end's gap before each kernel holding SMs is part of its fixed latency (the
    // profile's kernel_gap_*_us says how much): a profiler shows it between kernels.
    const bool gapped = !spec.duration_us && (spec.fixed_sms > 0 || spec.work.ctas > 0);
    const double gap = gapped ? std::min(gap_us, dur) : 0.0;
    in_run_us[cat] += dur - gap;
    if (gap > 0 && spec.stream == compute_stream) in_run_us["Launch Overhead"] += gap;
    alone_us[cat] += solo_time_us(hw, spec, p.launch_mode);
  }
  const double n = out.layers;
  const double per_layer_us = run.stats.per_layer_us;
  for (const auto& [cat, us] : in_run_us) out.in_run_ms[cat] = us / n / 1000.0;
  for (const auto& [cat, us] : alone_us) out.alone_ms[cat] = us / n / 1000.0;
  out.in_run_ms["Overall"] = per_layer_us / 1000.0;
  out.in_run_ms["Comp Stream Bubble"] = std::max(0.0, per_layer_us - compute_busy_us / n) / 1000.0;
  if (comm_busy_us > 0)
    out.in_run_ms["Comm Stream Bubble"] = std::max(0.0, per_layer_us - comm_busy_us / n) / 1000.0;
  for (auto* m : {&out.in_run_ms, &out.alone_ms})
    for (const char* side : {"Dispatch", "Combine"}) {
      const std::string s = side;
      const double sum = (m->count(s + " Core") ? m->at(s + " Core") : 0.0) +
                         (m->count(s + " Barrier") ? m->at(s + " Barrier") : 0.0);
      if (sum > 0) (*m)[s] = sum;
    }
  return out;
}

}  // namespace ovs
