// Sweep speed in-process: points per second of one sweep worker (the evaluator `overlapsim
// sweep` runs on each thread) over a small grid of requests/tokens x context, H800, EP32, the
// baseline and two strategies per point. `sweep -j N` runs N such workers.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "app/sweep/sweep_point.hpp"
#include "app/sweep/sweep_spec.hpp"
#include "sim/engine/fast_forward.hpp"
#include "sim/io/yaml_reader.hpp"

namespace {

ovs::SweepSpec spec(const std::string& yaml) {
  setenv("OVERLAPSIM_HOME", OVS_SOURCE_DIR, 0);
  return ovs::parse_sweep_spec(ovs::yaml::load_string(yaml, "bench-sweep.yaml"));
}

// state.range(0): 1 with the engine's steady-state fast-forward (the default), 0 without.
void run(benchmark::State& state, const ovs::SweepSpec& s, long long points) {
  const ovs::FastForwardOff off(state.range(0) == 0);
  for (auto _ : state) {
    ovs::PointEvaluator worker(s);
    for (long long i = 0; i < points; ++i) benchmark::DoNotOptimize(worker.rows(i).size());
  }
  state.counters["points_per_s"] =
      benchmark::Counter(double(points) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_SweepV3Decode(benchmark::State& state) {
  run(state, spec(R"(name: bench-v3-decode
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, ep: 32}
axes:
  - {field: context, values: [2048, 4096]}
  - {field: tokens_per_gpu, values: [32, 64, 128]}
baseline: no-overlap
strategies: [tbo-decode, sbo]
)"),
      6);
}
void BM_SweepV3Prefill(benchmark::State& state) {
  run(state, spec(R"(name: bench-v3-prefill
base: {model: deepseek-v3, hw: h800-sxm, phase: prefill, ep: 32}
axes:
  - {field: context, values: [2048, 4096]}
  - {field: tokens_per_gpu, values: [2048, 8192]}
baseline: no-overlap
strategies: [tbo-prefill, sbo]
)"),
      4);
}
void BM_SweepV4ProDecode(benchmark::State& state) {
  run(state, spec(R"(name: bench-v4pro-decode
base: {model: deepseek-v4-pro, hw: h800-sxm, phase: decode, ep: 32}
axes:
  - {field: context, values: [4096, 8192]}
  - {field: tokens_per_gpu, values: [32, 64, 128]}
baseline: no-overlap
strategies: [tbo-decode, sbo]
)"),
      6);
}
BENCHMARK(BM_SweepV3Decode)
    ->ArgName("fast_forward")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK(BM_SweepV3Prefill)
    ->ArgName("fast_forward")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK(BM_SweepV4ProDecode)
    ->ArgName("fast_forward")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
