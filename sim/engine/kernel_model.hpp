#pragma once
// How one kernel turns Work into rates: the CTAs it places and what each takes from an SM
// (co-residency), its rate ceiling with a number of CTAs resident (compute with wave
// quantization, its own HBM/L2 pull, links), and what it uses of each shared resource per unit
// of progress. Used by the engine for every kernel, alone or beside others; solo_time_us is the
// one place outside a run where Work becomes time (GEMM tile choice, `kernel`, `validate`,
// degradation accounting and the fitters all call it).
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/hardware.hpp"
#include "sim/engine/program.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/engine/sm_pool.hpp"

namespace ovs {

// Shared resources, in the solver's order.
enum SharedResource : int { kHbm = 0, kL2 = 1, kNvlink = 2, kRdma = 3, kNumShared = 4 };

struct KernelModel {
  bool given = false;      // duration given instead of Work
  double duration_us = 0;  // given duration
  int grid = 0;            // CTAs it places (0: holds no SM: a transfer in flight)
  int max_resident = 0;    // at most this many at once (SM cap)
  int request_sms = 0;     // given-duration kernels: SMs they are measured on
  CtaShare share{};        // of one SM, per CTA
  int ctas_per_sm = 1;     // CTAs per SM the kernel is designed for: each runs at 1/this of an SM
  int occupancy = 1;       // CTAs of this kernel an empty SM takes: min(ctas_per_sm, what fits)
  double compute_us_one_sm = 0;  // compute time if all of it ran on one SM at full occupancy
  double pipe_us = 0;     // of that, time the SM's tensor / CUDA-core pipes are busy (issue share)
  double units = 1;       // wave-quantization units (tiles or CTAs)
  double latency_us = 0;  // fixed latency + first-byte latency of the links it uses
  double hbm_bytes = 0;   // unnamed DRAM traffic + writes
  double l2_bytes = 0;
  std::array<double, kNumLinks> link_bytes{};
};

// Throws SimulationError when the hardware cannot run the kernel (dtype without peak, work
// that needs SMs on a kernel given none, a CTA larger than an SM).
// `mode`: how the kernel is launched (a CUDA graph's node starts hw.graph_kernel_saving_us sooner).
KernelModel make_kernel_model(const Hardware& hw, const KernelSpec& k,
                              LaunchMode mode = LaunchMode::eager);

// CTAs the kernel has resident on an otherwise idle GPU.
int solo_resident_ctas(const Hardware& hw, const KernelModel& m);

// Highest progress rate (fraction of the kernel per us) with `resident` CTAs placed, for a
// kernel whose resolved traffic is `usage` bytes per unit of progress (kHbm..kRdma).
double rate_ceiling(const Hardware& hw, const KernelModel& m, int resident,
                    const std::array<double, kNumShared>& usage);
// Its two parts: what its SMs allow (compute, and the HBM and L2 bandwidth its CTAs can pull),
// and what the wires allow (NVLink, RDMA: a transfer cannot outrun its link, whatever its SMs).
// rate_ceiling is the smaller. Loaded memory latency lowers only the first: a queue in front of
// DRAM lengthens the loads a CTA waits for, not the wire's bytes per second.
double sm_rate_ceiling(const Hardware& hw, const KernelModel& m, int resident,
                       const std::array<double, kNumShared>& usage);
double link_rate_ceiling(const Hardware& hw, const KernelModel& m,
                         const std::array<double, kNumShared>& usage);

// What limits a kernel running alone: the time each resource alone would need. Alone, its
// duration is latency_us + the largest of these (the roofline) - exactly what Engine::run gives
// for a one-kernel program.
struct SoloBreakdown {
  int sms = 0;    // SMs its CTAs occupy alone
  int ctas = 0;   // CTAs resident alone
  int waves = 0;  // ceil(units / resident CTAs)
  double latency_us = 0;
  double compute_us = 0;
  double hbm_us = 0;
  double l2_us = 0;
  double link_us = 0;
  double given_us = 0;
  double total_us() const;
  const char* bound() const;  // "compute", "hbm", "l2", "link", "latency" or "given"
};
SoloBreakdown solo_breakdown(const Hardware& hw, const KernelSpec& k,
                             LaunchMode mode = LaunchMode::eager);
// The kernel alone on an idle GPU, launch cost excluded.
double solo_time_us(const Hardware& hw, const KernelSpec& k, LaunchMode mode = LaunchMode::eager);

// Capacity of each shared resource in bytes per us.
std::array<double, kNumShared> shared_capacities(const Hardware& hw);

}  // namespace ovs
