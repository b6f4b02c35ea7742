#pragma once
// How one kernel turns Work into rates: the SMs it asks for, its rate ceiling on n SMs
// (compute with wave quantization, its own HBM/L2 pull, links), and what it uses of each shared
// resource per unit of progress. Used by the engine for every kernel, alone or beside others.
#include <array>
#include <utility>
#include <vector>

#include "sim/engine/hardware.hpp"
#include "sim/engine/program.hpp"

namespace ovs {

// Shared resources, in the solver's order.
enum SharedResource : int { kHbm = 0, kL2 = 1, kNvlink = 2, kRdma = 3, kNumShared = 4 };

struct KernelModel {
  int request_sms = 0;           // SMs it asks for (0: needs none)
  bool given = false;            // duration given instead of Work
  double duration_us = 0;        // given duration
  double compute_us_one_sm = 0;  // compute time if all of it ran on one SM
  double units = 1;              // wave-quantization units (tiles or CTAs)
  int ctas_per_sm = 1;
  double latency_us = 0;  // fixed latency + first-byte latency of the links it uses
  double hbm_bytes = 0;   // unnamed DRAM traffic + writes
  double l2_bytes = 0;
  std::array<double, kNumLinks> link_bytes{};
  std::vector<std::pair<int, double>> reads;   // (tensor id, bytes)
  std::vector<std::pair<int, double>> writes;  // (tensor id, bytes)
};

// Throws SimulationError when the hardware cannot run the kernel (dtype without peak, work
// that needs SMs on a kernel given none).
KernelModel make_kernel_model(const Hardware& hw, const KernelSpec& k);

// Highest progress rate (fraction of the kernel per us) on `sms` SMs when alone, for a kernel
// whose resolved traffic is `usage` bytes per unit of progress (kHbm..kRdma).
double rate_ceiling(const Hardware& hw, const KernelModel& m, int sms,
                    const std::array<double, kNumShared>& usage);

// What limits a kernel running alone on `sms` SMs: the time each resource alone would need.
// Alone, its duration is latency_us + the largest of these (the roofline).
struct SoloBreakdown {
  int sms = 0;
  double latency_us = 0;
  double compute_us = 0;
  double hbm_us = 0;
  double l2_us = 0;
  double link_us = 0;
  double given_us = 0;
  double total_us() const;
  const char* bound() const;  // "compute", "hbm", "l2", "link", "latency" or "given"
};
SoloBreakdown solo_breakdown(const Hardware& hw, const KernelSpec& k);

// Capacity of each shared resource in bytes per us.
std::array<double, kNumShared> shared_capacities(const Hardware& hw);

}  // namespace ovs
