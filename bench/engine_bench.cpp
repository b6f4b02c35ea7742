// Engine speed: the synthetic program (synthetic_program.hpp) at 1k to 100k kernels. Reports
// engine steps per second and kernels per second; the time per kernel should not grow with the
// program (the engine is linear in kernels).
#include <benchmark/benchmark.h>

#include "bench/synthetic_program.hpp"
#include "sim/engine/engine.hpp"

namespace {

void BM_EngineKernels4Streams(benchmark::State& state) {
  const ovs::Engine engine(ovs::bench::bench_gpu());
  const ovs::Program p = ovs::bench::synthetic_program(static_cast<int>(state.range(0)));
  std::int64_t steps = 0;
  for (auto _ : state) {
    const ovs::RunResult r = engine.run(p);
    steps += r.steps;
    benchmark::DoNotOptimize(r.makespan_us);
  }
  state.counters["steps_per_s"] = benchmark::Counter(double(steps), benchmark::Counter::kIsRate);
  state.counters["kernels_per_s"] = benchmark::Counter(
      double(p.kernels.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EngineKernels4Streams)
    ->Arg(1000)
    ->Arg(8000)
    ->Arg(32000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
