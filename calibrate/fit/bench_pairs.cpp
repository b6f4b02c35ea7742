#include "calibrate/fit/bench_pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "calibrate/fit/bench_rows.hpp"
#include "models/cost/gemm.hpp"
#include "models/cost/memory_kernels.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {
namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}  // namespace

StreamRun run_streams(const HwProfile& hw, const std::vector<std::vector<KernelCost>>& streams,
                      bool queued, LaunchMode mode) {
  Program p;
  p.launch_mode = mode;
  std::vector<std::pair<int, int>> where;  // kernel -> (stream, index)
  for (size_t s = 0; s < streams.size(); ++s) {
    p.streams.push_back({fmt::format("s{}", s), 0});
    for (size_t i = 0; i < streams[s].size(); ++i) {
      p.kernels.push_back(streams[s][i].spec(static_cast<int>(s)));
      const int id = static_cast<int>(p.kernels.size()) - 1;
      LaunchAction a{id, std::nullopt};
      if (queued) a.host_us = 0.0;
      p.actions.push_back({a, {}});
      where.emplace_back(static_cast<int>(s), static_cast<int>(i));
    }
  }
  Timeline t(p);
  Engine(hw.engine).run(p, &t);
  StreamRun r;
  r.done_us.assign(streams.size(), 0);
  r.kernel_durations.resize(streams.size());
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const auto [s, i] = where[k];
    r.done_us[s] = std::max(r.done_us[s], t.kernels()[k].end_us);
    r.kernel_durations[s].push_back(t.kernels()[k].duration_us());
  }
  return r;
}

// A concurrency.csv workload by name (calibrate/bench/concurrency.cpp), or nullopt.
std::optional<std::vector<KernelCost>> concurrency_workload(const HwProfile& hw,
                                                            const std::string& name, int sm_count,
                                                            const CtaFootprint& cta,
                                                            double alone_us) {
  auto measured = [&](std::vector<KernelCost> ks) {
    if (cta.given())
      for (auto& k : ks) k.work.cta = cta;
    return ks;
  };
  static const std::regex smtarget("gemm_bf16_smtarget(\\d+)"), copy("copy_(\\d+)gib"),
      tiny("tiny_x(\\d+)"), fixed("fixed(\\d+)_read_(\\d+)gib"), fma("fma_(\\d+)gflop"),
      half_read("half_read_(\\d+)gib");
  std::smatch m;
  if (name == "gemm_bf16" || std::regex_match(name, m, smtarget)) {
    GemmShape s;
    s.m = 4096;  // the microbenchmark's GEMM: y[4096, 7168] = x[4096, 7168] w[7168, 7168]^T
    s.n = 7168;
    s.k = 7168;
    s.dtype = Dtype::bf16;
    return std::vector<KernelCost>{gemm_cost(hw, s, m.empty() ? 0 : std::stoi(m[1]))};
  }
  if (std::regex_match(name, m, copy)) {
    MemoryKernelShape s;
    s.name = name;
    s.read_bytes = s.write_bytes = std::stod(m[1]) * kGiB;
    s.ctas = 2 * std::int64_t(sm_count);  // 2048 threads per SM in CTAs of 1024
    KernelCost c = memory_kernel(hw, s);
    c.work.ctas_per_sm = 2;
    c.work.cta = {1024, 0, 0};  // the benchmark's 1024-thread CTAs, registers unknown
    return measured({c});
  }
  if (std::regex_match(name, m, tiny))
    return measured(std::vector<KernelCost>(std::stoul(m[1]), launch_kernel_cost(hw, "small")));
  if (std::regex_match(name, m, fixed)) {
    MemoryKernelShape s;
    s.name = name;
    s.read_bytes = std::stod(m[2]) * kGiB;
    s.ctas = std::stoi(m[1]);
    KernelCost c = memory_kernel(hw, s);
    c.work.ctas_per_sm = 1;
    c.fixed_sms = std::stoi(m[1]);
    return measured({c});
  }
  if (std::regex_match(name, m, fma)) {
    // One CTA of 512 threads per SM on every SM, FP32 FMAs in registers only.
    KernelCost c;
    c.name = name;
    c.category = KernelCategory::memory;  // not a GEMM: the CUDA-core pipes, no tensor cores
    c.work.cuda_core_flops = std::stod(m[1]) * 1e9;
    c.work.ctas = sm_count;
    c.work.ctas_per_sm = 1;
    c.work.cta = {512, 0, 0};
    c = measured({c}).front();
    if (alone_us > 0) {
      const double at_peak_us = solo_time_us(hw.engine, c.spec());
      c.work.compute_efficiency = std::clamp(at_peak_us / alone_us, 0.01, 1.0);
    }
    return std::vector<KernelCost>{c};
  }
  if (std::regex_match(name, m, half_read)) {
    // One CTA of 1024 threads per SM on every SM, no shared memory.
    MemoryKernelShape s;
    s.name = name;
    s.read_bytes = std::stod(m[1]) * kGiB;
    s.ctas = sm_count;
    KernelCost c = memory_kernel(hw, s);
    c.work.ctas_per_sm = 1;
    c.work.cta = {1024, 0, 0};
    return measured({c});
  }
  return std::nullopt;
}

std::vector<Measurement> concurrency_measurements(const BenchData& d, const HwProfile& hw) {
  std::vector<Measurement> out;
  const int sms = bench_sm_count(d, hw);
  for (const auto& row : d.concurrency) {
    if (!concurrency_workload(hw, row.a, sms, row.a_cta, row.alone_a_us) ||
        !concurrency_workload(hw, row.b, sms, row.b_cta, row.alone_b_us))
      continue;
    Measurement m;
    m.family = "concurrency";
    m.line = row.line;
    m.label = fmt::format("{} together", row.pair);
    m.measured_us = row.together_us;
    const std::string a = row.a, b = row.b;
    const CtaFootprint ca = row.a_cta, cb = row.b_cta;
    const double alone_a = row.alone_a_us, alone_b = row.alone_b_us;
    m.predict_us = [a, b, sms, ca, cb, alone_a, alone_b](const HwProfile& h) {
      const StreamRun r = run_streams(h,
                                      {*concurrency_workload(h, a, sms, ca, alone_a),
                                       *concurrency_workload(h, b, sms, cb, alone_b)},
                                      true);
      return std::max(r.done_us[0], r.done_us[1]);
    };
    m.through_run = true;
    out.push_back(std::move(m));
    // Each workload's slowdown beside the other (its end in the together run over its time
    // alone), applied to its measured time alone: rows that test what running together does to
    // each kernel, whatever the cost models make of the kernels alone. Workload a is issued first
    // and ends at a_done_us; b ends last or first, at b_done_us.
    for (int side = 0; side < 2; ++side) {
      const double done = side == 0 ? row.a_done_us : row.b_done_us;
      const double alone = side == 0 ? alone_a : alone_b;
      if (!(done > 0) || !(alone > 0)) continue;
      Measurement s;
      s.family = "concurrency_slowdown";
      s.line = row.line;
      s.label = fmt::format("{}: {} beside {}", row.pair, side == 0 ? a : b, side == 0 ? b : a);
      s.measured_us = done;
      s.predict_us = [a, b, sms, ca, cb, alone_a, alone_b, side](const HwProfile& h) {
        const auto wa = *concurrency_workload(h, a, sms, ca, alone_a);
        const auto wb = *concurrency_workload(h, b, sms, cb, alone_b);
        const StreamRun together = run_streams(h, {wa, wb}, true);
        const StreamRun lone = run_streams(h, {side == 0 ? wa : wb}, true);
        const double model_alone = lone.done_us[0];
        const double measured_alone = side == 0 ? alone_a : alone_b;
        return model_alone > 0 ? together.done_us[side] / model_alone * measured_alone : 0.0;
      };
      s.through_run = true;
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace ovs
