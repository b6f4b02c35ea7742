#pragma once
// The benchmarks' synthetic workload: kernels on 4 streams that contend for SMs, HBM and links
// (a GEMM, a memory-bound kernel, a tiny kernel, a communication kernel, in turn), with a
// cross-stream record and wait every 16 kernels. Round H800-like numbers: the benchmarks measure
// the simulator, not a GPU.
#include <optional>
#include <string>

#include "sim/engine/hardware.hpp"
#include "sim/engine/program.hpp"

namespace ovs::bench {

inline Hardware bench_gpu() {
  Hardware hw;
  hw.name = "bench";
  hw.sm_count = 132;
  hw.tensor_flops_per_us_per_sm = {6.5e6, 13e6, 0};
  hw.cuda_core_flops_per_us_per_sm = 0.5e6;
  hw.hbm_bytes_per_us = 3e6;
  hw.hbm_saturation_sms = 40;
  hw.l2_bytes_per_us = 9e6;
  hw.l2_saturation_sms = 66;
  hw.l2_size_bytes = 50.0 * 1024 * 1024;
  hw.links[0] = {1.6e5, 3};
  hw.links[1] = {5e4, 8};
  hw.launch_eager_us = 3;
  hw.launch_graph_us = 1.3;
  return hw;
}

inline Program synthetic_program(int kernels) {
  Program p;
  for (int s = 0; s < 4; ++s) p.streams.push_back({"s" + std::to_string(s), s == 3 ? 1 : 0});
  p.events = {"e0", "e1", "e2", "e3"};
  p.launch_mode = LaunchMode::graph;
  p.kernels.reserve(kernels);
  for (int i = 0; i < kernels; ++i) {
    KernelSpec k;
    k.name = "k";
    k.stream = i % 4;
    switch (i % 4) {
      case 0:  // GEMM
        k.work.tensor_flops[1] = 2e9 + 1e7 * (i % 7);
        k.work.hbm_bytes = 2e7;
        k.work.ctas = 120;
        break;
      case 1:  // memory-bound
        k.work.hbm_bytes = 3e7 + 1e6 * (i % 5);
        k.work.ctas = 264;
        k.work.ctas_per_sm = 2;
        break;
      case 2:  // tiny
        k.work.hbm_bytes = 1e5;
        k.work.ctas = 1;
        k.work.fixed_latency_us = 2;
        break;
      default:  // communication
        k.fixed_sms = 20;
        k.work.link_bytes[0] = 2e6;
        break;
    }
    p.kernels.push_back(k);
    p.actions.push_back({LaunchAction{i, std::nullopt}, {}});
    if (i % 16 == 15) {
      const int ev = (i / 16) % 4;
      p.actions.push_back({RecordAction{ev, i % 4}, {}});
      p.actions.push_back({WaitAction{ev, (i + 1) % 4}, {}});
    }
  }
  return p;
}

}  // namespace ovs::bench
