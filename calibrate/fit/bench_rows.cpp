#include "calibrate/fit/bench_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "calibrate/fit/bench_pairs.hpp"
#include "models/cost/gemm.hpp"
#include "models/cost/memory_kernels.hpp"

namespace ovs {

double bench_l2_bytes(const BenchData& d, const HwProfile& hw) {
  return d.l2_bytes > 0 ? d.l2_bytes : hw.engine.l2_size_bytes;
}

int bench_sm_count(const BenchData& d, const HwProfile& hw) {
  return d.sm_count > 0 ? d.sm_count : hw.engine.sm_count;
}

namespace {

constexpr int kGraphReplayNodes = 256;  // launch.csv: kernel nodes per graph

// The parts of a profile the cost models read, without the list of sourced fields (a cheap
// copy for per-row variations such as a forced tile).
HwProfile model_copy(const HwProfile& hw) {
  HwProfile p;
  p.file = hw.file;
  p.name = hw.name;
  p.engine = hw.engine;
  p.kernels = hw.kernels;
  p.has_kernel_params = hw.has_kernel_params;
  p.hbm_peak_gbps = hw.hbm_peak_gbps;
  return p;
}

// A kernel that moves `hbm_bytes` through DRAM or `l2_bytes` through L2 on a fixed grid.
KernelCost streaming_kernel(const HwProfile& hw, const std::string& name, double hbm_bytes,
                            double l2_bytes, std::int64_t ctas, int ctas_per_sm) {
  MemoryKernelShape s;
  s.name = name;
  s.read_bytes = hbm_bytes;
  s.ctas = ctas;
  KernelCost c = memory_kernel(hw, s);
  c.work.l2_bytes = l2_bytes;
  c.work.ctas_per_sm = std::max(1, ctas_per_sm);
  c.work.cta = {};  // the benchmark's own blocks: ctas_per_sm of them fill an SM
  return c;
}

int per_sm(std::int64_t ctas, int sms) {
  return std::max(1, static_cast<int>(std::llround(double(ctas) / std::max(1, sms))));
}

}  // namespace

KernelCost launch_kernel_cost(const HwProfile& hw, const std::string& kernel) {
  MemoryKernelShape s;
  s.name = "launch_" + kernel;
  if (kernel == "small") {
    constexpr double kElements = 65536;  // calibrate/bench/launch_kernels.hpp
    s.read_bytes = 4 * kElements;
    s.write_bytes = 4 * kElements;
    s.cuda_core_flops = 2 * kElements;
    s.ctas = 256;
  } else {
    s.ctas = 1;
  }
  return memory_kernel(hw, s);
}

std::vector<Measurement> gemm_measurements(const BenchData& d) {
  std::vector<Measurement> out;
  for (const auto& g : d.gemm) {
    GemmShape s;
    s.m = g.m;
    s.n = g.n;
    s.k = g.k;
    s.groups = g.batch;
    s.layout = GemmLayout::dense;
    s.dtype = g.dtype == "bf16" ? Dtype::bf16 : Dtype::fp8;
    const bool per_tensor = g.dtype == "fp8_e4m3";
    const bool forced = g.tile_m > 0 && g.tile_n > 0 && g.splitk == 1;
    Measurement m;
    m.family = "gemm";
    m.line = g.line;
    m.label = fmt::format("{}{} {}x{}x{}{}{}{}", g.op.empty() ? "" : g.op + " ", g.dtype, g.m, g.n,
                          g.k, g.batch > 1 ? fmt::format(" x{}", g.batch) : "",
                          g.sm_count_target > 0 ? fmt::format(" on {} SMs", g.sm_count_target) : "",
                          forced ? fmt::format(" tile {}x{}", g.tile_m, g.tile_n) : "");
    m.measured_us = g.time_us;
    const int sms = g.sm_count_target;
    const int tile_m = g.tile_m, tile_n = g.tile_n;
    m.predict_us = [s, sms, per_tensor, forced, tile_m, tile_n](const HwProfile& hw) {
      if (!per_tensor && !forced) return solo_us(hw, {gemm_cost(hw, s, sms)});
      HwProfile p = model_copy(hw);
      // Per-tensor scales with fast accumulation: no promotion after each block_k step.
      if (per_tensor) p.kernels.gemm.k_iteration_us = 0;
      if (forced) {
        p.kernels.gemm.block_m = {tile_m};
        p.kernels.gemm.block_n = {tile_n};
      }
      return solo_us(p, {gemm_cost(p, s, sms)});
    };
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> hbm_measurements(const BenchData& d) {
  std::vector<Measurement> out;
  for (const auto& h : d.hbm) {
    Measurement m;
    m.family = "hbm";
    m.line = h.line;
    m.label = fmt::format("{} {:.0f} MiB on {} SMs ({} CTAs)", h.kernel, h.bytes_moved / 1048576.0,
                          h.sms_used, h.ctas);
    m.measured_us = h.time_us;
    const double bytes = h.bytes_moved;
    const std::int64_t ctas = h.ctas;
    const int cps = per_sm(h.ctas, h.sms_used);
    m.predict_us = [bytes, ctas, cps](const HwProfile& hw) {
      return solo_us(hw, {streaming_kernel(hw, "hbm", bytes, 0, ctas, cps)});
    };
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> l2_measurements(const BenchData& d, const HwProfile& hw) {
  std::vector<Measurement> out;
  const double l2 = bench_l2_bytes(d, hw);
  const int sms = bench_sm_count(d, hw);
  for (const auto& r : d.l2) {
    if (r.test != "sweep") continue;  // reuse pairs: bench_checks.hpp
    Measurement m;
    const bool plateau = r.working_set_bytes <= 0.5 * l2;
    m.family = plateau ? "l2" : "l2_beyond";
    m.line = r.line;
    m.label = fmt::format("sweep {:.1f} MiB ({:.2f} x L2)", r.working_set_bytes / 1048576.0,
                          r.working_set_bytes / l2);
    m.measured_us = r.time_us;
    const double bytes = r.bytes_read;
    const std::int64_t ctas = r.ctas;
    const int cps = per_sm(r.ctas, sms);
    // Resident while the working set fits in L2 (the engine's L2 tracker), else every pass
    // streams it from DRAM again.
    const bool hits = r.working_set_bytes <= l2;
    m.predict_us = [bytes, ctas, cps, hits](const HwProfile& h) {
      return solo_us(h, {streaming_kernel(h, "l2", hits ? 0 : bytes, hits ? bytes : 0, ctas, cps)});
    };
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Measurement> launch_measurements(const BenchData& d) {
  std::vector<Measurement> out;
  auto add = [&](const LaunchBenchRow& r, const std::string& family, double measured,
                 std::function<double(const HwProfile&)> f, const std::string& what) {
    Measurement m;
    m.family = family;
    m.line = r.line;
    m.label = fmt::format("{} {} {}", r.mode, r.kernel, what);
    m.measured_us = measured;
    m.predict_us = std::move(f);
    out.push_back(std::move(m));
  };
  for (const auto& r : d.launch) {
    if (r.mode == "eager") {
      add(
          r, "launch_eager", r.host_us_per_item,
          [](const HwProfile& h) { return h.engine.launch_eager_us; }, "host us per launch");
      const std::string kernel = r.kernel;
      add(
          r, "kernel_min", *r.gpu_us_per_item,
          [kernel](const HwProfile& h) { return solo_us(h, {launch_kernel_cost(h, kernel)}); },
          "GPU us per kernel");
    } else if (r.mode == "graph" && r.kernel == "empty") {
      add(
          r, "launch_graph", *r.gpu_us_per_item,
          [](const HwProfile& h) { return h.engine.launch_graph_us; }, "GPU us per node");
    } else if (r.mode == "event_record" || r.mode == "stream_wait_event") {
      add(
          r, "launch_event", r.host_us_per_item,
          [](const HwProfile& h) { return h.engine.event_host_us; }, "host us per call");
    }
  }
  // What a kernel saves as a graph node: the GPU time per kernel queued on a stream minus that in
  // a graph replay, the same kernel both times (so the row does not depend on how well the
  // kernel itself is priced); predicted through the engine, both runs back to back.
  for (const auto& g : d.launch) {
    if (g.mode != "graph" || !g.gpu_us_per_item) continue;
    for (const auto& e : d.launch) {
      if (e.mode != "eager" || e.kernel != g.kernel || !e.gpu_us_per_item) continue;
      const std::string kernel = g.kernel;
      add(
          g, "graph_kernel", *e.gpu_us_per_item - *g.gpu_us_per_item,
          [kernel](const HwProfile& h) {
            const std::vector<KernelCost> ks(kGraphReplayNodes, launch_kernel_cost(h, kernel));
            const double eager = run_streams(h, {ks}, true, LaunchMode::eager).done_us[0];
            const double graph = run_streams(h, {ks}, false, LaunchMode::graph).done_us[0];
            return (eager - graph) / kGraphReplayNodes;
          },
          "GPU us per kernel saved by a graph");
      out.back().through_run = true;
    }
  }
  return out;
}

}  // namespace ovs
