#include "sim/analysis/whatif.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/chrome_trace.hpp"

namespace ovs {
namespace {

// Which side of the ledger a kernel's time alone falls in, for the degradation itemization.
std::string bucket(const KernelInfo& info, const KernelSpec& k, const SoloBreakdown& b) {
  if (info.comm) return "communication latency";
  const std::string bound = b.bound();
  if (k.category == "gemm") {
    if (bound == "hbm" || bound == "l2") return "weight re-reads";
    if (bound == "latency") return "fixed kernel latency";
    return "tile and wave waste";
  }
  if (k.category == "attention") return "attention efficiency";
  if (bound == "latency") return "fixed kernel latency";
  return "small memory-bound kernels";
}

// A kernel's time alone, summed over micro-batches, and the cause its split counterpart's extra
// time is charged to.
struct Alone {
  double us = 0;
  double capped_us = 0;  // lost to an SM cap
  std::string cause;
};

struct Run {
  std::map<std::string, Alone> alone;  // by layer/op/kernel
  BuiltProgram built;
  RunResult result;
  std::unique_ptr<Timeline> timeline;
  ProgramStats stats;
};

Run simulate(const LayerBuilder& lb, const Strategy& s, TraceSink* sink, int pid) {
  Run r;
  r.built = build_program(lb, s);
  r.timeline = std::make_unique<Timeline>(r.built.program);
  const Engine engine(lb.hw().engine);
  std::unique_ptr<ChromeTraceWriter> trace;
  ObserverList obs;
  obs.add(r.timeline.get());
  if (sink) {
    trace = std::make_unique<ChromeTraceWriter>(*sink, r.built.program,
                                                s.name + " on " + lb.hw().name, pid);
    obs.add(trace.get());
  }
  r.result = engine.run(r.built.program, &obs);
  const ModelConfig& m = lb.model();
  r.stats = program_stats(r.built, *r.timeline, r.result.makespan_us, lb.workload(), m.dense_layers,
                          m.layers);
  r.stats.strategy = s.name;
  r.stats.host_busy_us = r.result.host_busy_us;
  r.stats.host_blocked_us = r.result.host_blocked_us;
  const Hardware& hw = lb.hw().engine;
  for (size_t i = 0; i < r.built.program.kernels.size(); ++i) {
    const KernelSpec& k = r.built.program.kernels[i];
    const KernelInfo& info = r.built.info[i];
    if (k.fixed_sms == 0 && k.work.ctas == 0) continue;  // data in flight holds no SM
    const SoloBreakdown b = solo_breakdown(hw, k);
    const std::string key = std::to_string(info.layer) + "/" + info.op + "/" + info.kernel;
    auto& e = r.alone[key];
    // A kernel held to fewer SMs than the GPU has (deep_gemm_num_sms, a placement's cap) loses
    // time to that cap; the rest of its time is charged by what bounds it.
    double capped_loss = 0;
    if (k.sm_cap > 0 && k.sm_cap < hw.sm_count) {
      KernelSpec free = k;
      free.sm_cap = 0;
      capped_loss = std::max(0.0, b.total_us() - solo_breakdown(hw, free).total_us());
    }
    e.us += b.total_us() - capped_loss;
    e.capped_us += capped_loss;
    e.cause = bucket(info, k, b);
    r.stats.solo_us[e.cause] += b.total_us() - capped_loss;
    if (capped_loss > 0) r.stats.solo_us["SMs given to communication"] += capped_loss;
  }
  return r;
}

Workload workload_for(const WhatIfRequest& req, const Strategy& s) {
  Workload w = req.workload;
  if (!req.deepep_mode_given && s.deepep_mode) w.deepep_mode = s.deepep_mode;
  return w;
}

std::string pct(double x) {
  return fmt::format("{:.1f} %", 100 * x);
}

}  // namespace

WhatIfResult run_whatif(const WhatIfRequest& req) {
  const ModelConfig model = load_model_config(req.model);
  const HwProfile hw = load_hw_profile(req.hw);
  require_kernel_params(hw);
  const Strategy base_s = load_strategy(req.baseline, model.family);
  const Strategy over_s = load_strategy(req.strategy, model.family);
  const Workload wb = workload_for(req, base_s), wo = workload_for(req, over_s);
  if (wo.mode() != wb.mode())
    throw InputError(over_s.file, 1, "deepep_mode",
                     "the strategy and the baseline use different DeepEP modes; set --deepep-mode "
                     "to compare them");
  const LayerBuilder lb_base(model, hw, wb), lb_over(model, hw, wo);

  std::unique_ptr<AtomicFile> file;
  std::unique_ptr<TraceSink> sink;
  if (!req.trace.empty()) {
    file = std::make_unique<AtomicFile>(req.trace);
    sink = std::make_unique<TraceSink>(file->stream());
  }
  Run base, over;
  try {
    base = simulate(lb_base, base_s, sink.get(), 1);
    over = simulate(lb_over, over_s, sink.get(), 2);
  } catch (const SimulationError& e) {
    throw InputError(over_s.file, 0, "", e.what());
  }
  if (sink) {
    sink->finish();
    file->commit();
  }

  WhatIfResult r;
  r.model = model.name;
  r.hw = hw.name;
  r.phase = req.workload.phase == Phase::prefill ? "prefill" : "decode";
  r.workload = wo;
  r.baseline = base.stats;
  r.overlapped = over.stats;
  r.speedup = r.baseline.total_us / r.overlapped.total_us;
  // Degradation: what the overlapped program's kernels take alone beyond the same kernels of the
  // baseline (the two micro-batches' halves of a GEMM against the whole one), charged to the cause
  // that bounds the smaller kernel; plus GPU time lost waiting on the host (launches, per-op
  // framework overhead), which only costs when the GPU runs out of queued work.
  std::map<std::string, double> by_cause;
  for (const auto& [key, o] : over.alone) {
    auto it = base.alone.find(key);
    by_cause[o.cause] += o.us - (it == base.alone.end() ? 0.0 : it->second.us);
    by_cause["SMs given to communication"] +=
        o.capped_us - (it == base.alone.end() ? 0.0 : it->second.capped_us);
  }
  for (const auto& [key, b] : base.alone)
    if (!over.alone.count(key)) {
      by_cause[b.cause] -= b.us;
      by_cause["SMs given to communication"] -= b.capped_us;
    }
  by_cause["host-bound GPU idle"] += r.overlapped.gpu_idle_us - r.baseline.gpu_idle_us;
  for (const auto& [cause, d] : by_cause)
    if (std::fabs(d) > 1e-6) r.degradation.push_back({cause, d});
  std::sort(r.degradation.begin(), r.degradation.end(),
            [](auto& a, auto& b) { return a.us != b.us ? a.us > b.us : a.cause < b.cause; });
  for (const auto& d : r.degradation) r.degradation_us += d.us;
  r.comm_hidden_us = r.baseline.exposed_comm_us - r.overlapped.exposed_comm_us;
  // Net gain = advantage - degradation, so the advantage is what overlap gained besides.
  r.advantage_us = (r.baseline.total_us - r.overlapped.total_us) + r.degradation_us;
  const double gain = r.baseline.total_us - r.overlapped.total_us;
  const std::string top = r.degradation.empty() ? "nothing" : r.degradation.front().cause;
  const std::string why_lose = top;
  if (!over.built.note.empty()) {
    r.verdict = fmt::format("'{}' could not split the batch ({}); {}", over_s.name, over.built.note,
                            gain >= 0 ? "no gain from two-batch overlap" : "it only adds cost");
  } else if (gain > 0) {
    r.verdict = fmt::format(
        "'{}' pays: {:.1f} % faster ({:.0f} us per forward). Overlap hides {:.0f} us of "
        "communication; "
        "splitting costs {:.0f} us (mostly {}).",
        over_s.name, 100 * (r.speedup - 1), gain, std::max(0.0, r.comm_hidden_us),
        std::max(0.0, r.degradation_us), top);
  } else {
    r.verdict = fmt::format(
        "'{}' does not pay: {:.1f} % slower ({:.0f} us per forward). Splitting costs {:.0f} us "
        "(mostly {}) "
        "against {:.0f} us of communication hidden.",
        over_s.name, 100 * (1 / r.speedup - 1), -gain, std::max(0.0, r.degradation_us), why_lose,
        std::max(0.0, r.comm_hidden_us));
  }
  return r;
}

}  // namespace ovs
