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

struct Hardware {
  std::string name;
  int sm_count = 0;
  // Sustained (clock-throttled) dense peak of one SM; 0 = the dtype is not supported.
  std::array<double, kNumDtypes> tensor_flops_per_us_per_sm{};
  double cuda_core_flops_per_us_per_sm = 0;
  double hbm_bytes_per_us = 0;  // achievable DRAM bandwidth, shared by all kernels
  int hbm_saturation_sms = 1;   // a kernel on n SMs pulls at most n/saturation of it
  double l2_bytes_per_us = 0;
  int l2_saturation_sms = 1;
  double l2_size_bytes = 0;
  std::array<LinkSpec, kNumLinks> links{};
  double launch_eager_us = 0;  // host time per cudaLaunchKernel
  double launch_graph_us = 0;  // per kernel node when replaying a CUDA graph
  double event_host_us = 0;    // host time of an event record or stream wait
};

}  // namespace ovs
