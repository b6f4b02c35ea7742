// What-if speed in-process: one `overlapsim whatif` without the process around it (model, profile
// and strategies read from their files, baseline and strategy simulated, verdict computed).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>

#include "app/analysis/length_spec.hpp"
#include "app/analysis/uncertainty.hpp"
#include "app/analysis/whatif.hpp"
#include "app/plan/plan.hpp"

namespace {

ovs::WhatIfRequest request(const char* model, ovs::Phase phase, long long tokens, long long context,
                           const char* strategy) {
  setenv("OVERLAPSIM_HOME", OVS_SOURCE_DIR, 0);
  ovs::WhatIfRequest r;
  r.model = model;
  r.hw = "h800-sxm";
  r.workload.phase = phase;
  r.workload.tokens_per_gpu = tokens;
  r.workload.context = context;
  r.workload.ep = 32;
  r.strategy = strategy;
  return r;
}

void run(benchmark::State& state, const ovs::WhatIfRequest& r) {
  for (auto _ : state) benchmark::DoNotOptimize(ovs::run_whatif(r).speedup);
  state.counters["whatifs_per_s"] =
      benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_WhatIfV3Decode(benchmark::State& s) {
  run(s, request("deepseek-v3", ovs::Phase::decode, 64, 4096, "tbo-decode"));
}
void BM_WhatIfV3Prefill(benchmark::State& s) {
  run(s, request("deepseek-v3", ovs::Phase::prefill, 8192, 4096, "tbo-prefill"));
}
void BM_WhatIfV4ProDecode(benchmark::State& s) {
  run(s, request("deepseek-v4-pro", ovs::Phase::decode, 64, 8192, "tbo-decode"));
}
// A 1,000-request decode batch of mixed contexts: inputs lognormal (mean 2000, SD 1500), outputs
// uniform in [100, 2000], each request caught at a random moment of its output (seed 0).
void BM_WhatIfV3DecodeMixed1000(benchmark::State& s) {
  ovs::WhatIfRequest r = request("deepseek-v3", ovs::Phase::decode, 1000, 1, "tbo-decode");
  ovs::LengthSpec isl, osl;
  ovs::parse_length_spec_into("lognormal:2000,1500", false, isl);
  ovs::parse_length_spec_into("uniform:100,2000", false, osl);
  r.workload.context_lens = ovs::contexts_over_life(isl, &osl, 1000, 0);
  for (auto c : r.workload.context_lens) r.workload.context = std::max(r.workload.context, c);
  run(s, r);
}
// whatif --uncertainty 64 on two threads: the V3 decode what-if (baseline + tbo-decode) drawn 64
// times, without (range 0) and with (range 1) the tornado's two runs per uncertain number.
void BM_WhatIfV3DecodeUncertainty64(benchmark::State& s) {
  ovs::UncertaintyRequest u;
  u.what = request("deepseek-v3", ovs::Phase::decode, 64, 4096, "tbo-decode");
  u.draws = 64;
  u.threads = 2;
  u.sensitivity = s.range(0) != 0;
  for (auto _ : s) benchmark::DoNotOptimize(ovs::run_uncertainty(u).speedup.p50);
}
BENCHMARK(BM_WhatIfV3DecodeUncertainty64)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5);
// plan --uncertainty 16 on two threads: V3 decode on 64 H800s at a 38 ms TPOT target, 15 batch
// sizes x EP 8/16/32/64 x MTP off/on x 3 strategies = 360 points, the best one drawn 16 times.
void BM_PlanV3DecodeUncertainty16(benchmark::State& s) {
  setenv("OVERLAPSIM_HOME", OVS_SOURCE_DIR, 0);
  ovs::PlanRequest r;
  r.gpus = 64;
  r.target_ms = 38;
  r.jobs = 2;
  r.uncertainty = 16;
  for (auto _ : s) benchmark::DoNotOptimize(ovs::run_plan(r).best_met_share);
}
BENCHMARK(BM_PlanV3DecodeUncertainty16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK(BM_WhatIfV3DecodeMixed1000)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_WhatIfV3Decode)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_WhatIfV3Prefill)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_WhatIfV4ProDecode)->Unit(benchmark::kMillisecond)->Iterations(10);

}  // namespace

BENCHMARK_MAIN();
