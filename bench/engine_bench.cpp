// Engine speed: a synthetic program of ~8,000 kernels on 4 streams that contend for SMs, HBM
// and links, with cross-stream events. Reports events (engine steps) per second.
#include <benchmark/benchmark.h>

#include "sim/engine/engine.hpp"

namespace {

ovs::Hardware bench_gpu() {
  // H800-like round numbers; the benchmark measures the engine, not a GPU.
  ovs::Hardware hw;
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

ovs::Program synthetic_program(int kernels) {
  ovs::Program p;
  for (int s = 0; s < 4; ++s) p.streams.push_back({"s" + std::to_string(s), s == 3 ? 1 : 0});
  p.events = {"e0", "e1", "e2", "e3"};
  p.launch_mode = ovs::LaunchMode::graph;
  for (int i = 0; i < kernels; ++i) {
    ovs::KernelSpec k;
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
    p.actions.push_back({ovs::LaunchAction{i, std::nullopt}, {}});
    if (i % 16 == 15) {
      const int ev = (i / 16) % 4;
      p.actions.push_back({ovs::RecordAction{ev, i % 4}, {}});
      p.actions.push_back({ovs::WaitAction{ev, (i + 1) % 4}, {}});
    }
  }
  return p;
}

void BM_Engine8000Kernels4Streams(benchmark::State& state) {
  const ovs::Engine engine(bench_gpu());
  const ovs::Program p = synthetic_program(static_cast<int>(state.range(0)));
  std::int64_t steps = 0;
  for (auto _ : state) {
    const ovs::RunResult r = engine.run(p);
    steps += r.steps;
    benchmark::DoNotOptimize(r.makespan_us);
  }
  state.counters["events_per_s"] = benchmark::Counter(double(steps), benchmark::Counter::kIsRate);
  state.counters["kernels"] = double(p.kernels.size());
}
BENCHMARK(BM_Engine8000Kernels4Streams)->Arg(8000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
