#pragma once
// The concurrency microbenchmark's workloads (calibrate/bench/concurrency.cpp) as kernels, run
// on streams through the engine: shared by the engine checks of calibrate --bench and by the fit
// of the SMs' shared issue capacity.
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit/bench_csv.hpp"
#include "calibrate/fit/measurements.hpp"
#include "models/cost/kernel_cost.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/engine/program.hpp"

namespace ovs {

// Kernels on streams, launched in order (stream 0's first). queued: the host has issued
// everything before the GPU starts (no launch cost), as the microbenchmarks arrange with a spin
// kernel; otherwise every launch costs the profile's launch time in `mode`.
struct StreamRun {
  std::vector<double> done_us;                        // per stream: its last kernel's end
  std::vector<std::vector<double>> kernel_durations;  // per stream
};
StreamRun run_streams(const HwProfile& hw, const std::vector<std::vector<KernelCost>>& streams,
                      bool queued, LaunchMode mode = LaunchMode::eager);

// A concurrency.csv workload by name, or nullopt when it is not modelled. `cta`: the kernel's
// CTA as the benchmark measured it (threads 0: the cost model's own footprint). `alone_us`: the
// workload's measured time alone; the FP32 FMA kernel (fma_<N>gflop), which no cost model of
// ours prices, takes its compute efficiency from it (through the engine's solo time), so its
// pairs test how co-resident CTAs share an SM, not what FP32 FMAs cost.
std::optional<std::vector<KernelCost>> concurrency_workload(const HwProfile& hw,
                                                            const std::string& name, int sm_count,
                                                            const CtaFootprint& cta = {},
                                                            double alone_us = 0);

// concurrency.csv pairs as measurements: their together time predicted through the engine.
std::vector<Measurement> concurrency_measurements(const BenchData& d, const HwProfile& hw);

}  // namespace ovs
