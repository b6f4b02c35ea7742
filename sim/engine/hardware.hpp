#pragma once
// The engine's view of a GPU: the capacities it shares among kernels. Filled from a hardware
// profile (models/hw_profile) or from inline numbers in a program; never from literals in code.
#include <array>
#include <string>

#include "sim/core/work.hpp"

namespace ovs {

struct LinkSpec {
  double bytes_per_us = 0;  // per-GPU bandwidth in one direction
  double latency_us = 0;    // first byte
};

// What one SM (CU) holds at once, from the vendor's occupancy tables. Zero = not given: CTAs with a
// footprint are then placed as if they took 1 / ctas_per_sm of an SM.
struct SmCapacity {
  int max_ctas = 0;         // resident CTA (thread block / workgroup) slots
  int max_threads = 0;      // resident threads
  int registers = 0;        // 32-bit registers
  double shared_bytes = 0;  // shared memory (LDS) usable by resident CTAs
  // Issue throughput of one SM that co-resident kernels share, in units of what one kernel's
  // CTAs use at full speed alone (the pipe time their efficiency leaves busy): 1 = co-resident
  // CTAs can fill exactly the idle issue slots. Fitted from concurrent pairs (calibrate --bench).
  double issue_capacity = 1.0;
  // How the block scheduler serves kernels of different streams when a running kernel still has
  // CTAs to dispatch (a grid of several waves): 0 = in launch order (a later kernel gets only the
  // room the earlier one leaves until the earlier one's last CTA is dispatched); 1 = an equal
  // share of the SMs per contending stream, taken as the running kernel's CTAs retire (hardware
  // queues arbitrated round-robin); between: that fraction of the equal share.
  double dispatch_share = 0.0;
  bool given() const { return max_ctas > 0 && max_threads > 0 && registers > 0; }
};

struct Hardware {
  std::string name;
  int sm_count = 0;
  SmCapacity sm;
  // Sustained (clock-throttled) dense peak of one SM; 0 = the dtype is not supported.
  std::array<double, kNumDtypes> tensor_flops_per_us_per_sm{};
  double cuda_core_flops_per_us_per_sm = 0;
  double hbm_bytes_per_us = 0;    // achievable DRAM bandwidth, shared by all kernels
  double hbm_saturation_sms = 1;  // CTAs worth n SMs pull at most n/saturation of it
  // A kernel on SMs beside others that keep DRAM busy runs slower by 1 + this x their share of
  // the DRAM bandwidth (loaded memory latency); 0: no such slowdown.
  double hbm_loaded_slowdown = 0;
  double l2_bytes_per_us = 0;
  double l2_saturation_sms = 1;
  double l2_size_bytes = 0;
  std::array<LinkSpec, kNumLinks> links{};
  double launch_eager_us = 0;  // host time per cudaLaunchKernel
  double launch_graph_us = 0;  // per kernel node when replaying a CUDA graph
  // GPU time a kernel saves as a node of a CUDA graph against the same kernel launched on a
  // stream (the front end has the next node ready): its fixed latency is that much shorter.
  double graph_kernel_saving_us = 0;
  double event_host_us = 0;  // host time of an event record or stream wait
};

}  // namespace ovs
