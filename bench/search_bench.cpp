// Search speed: one layer type's search (the bound: under a second on a 2-core machine),
// and the whole search with the full-model ranking.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "app/search/search_run.hpp"

namespace {

ovs::SearchRequest request(const char* model, ovs::Phase phase, long long tokens,
                           long long context) {
  setenv("OVERLAPSIM_HOME", OVS_SOURCE_DIR, 0);
  ovs::SearchRequest r;
  r.base.model = model;
  r.base.hw = "h800-sxm";
  r.base.workload.phase = phase;
  r.base.workload.tokens_per_gpu = tokens;
  r.base.workload.context = context;
  r.base.workload.ep = 32;
  r.base.strategy = phase == ovs::Phase::decode ? "tbo-decode" : "tbo-prefill";
  return r;
}

void run(benchmark::State& state, const ovs::SearchRequest& r) {
  double slowest_type_s = 0;
  for (auto _ : state) {
    const ovs::SearchReport rep = ovs::run_search(r);
    for (double s : rep.seconds_per_type) slowest_type_s = std::max(slowest_type_s, s);
    benchmark::DoNotOptimize(rep.ranked.front().forward_us);
  }
  state.counters["slowest_layer_type_s"] = slowest_type_s;
}

void BM_SearchV3Decode(benchmark::State& s) {
  run(s, request("deepseek-v3", ovs::Phase::decode, 128, 4096));
}
void BM_SearchV3Prefill(benchmark::State& s) {
  run(s, request("deepseek-v3", ovs::Phase::prefill, 8192, 4096));
}
void BM_SearchV4ProDecode(benchmark::State& s) {
  run(s, request("deepseek-v4-pro", ovs::Phase::decode, 128, 8192));
}
BENCHMARK(BM_SearchV3Decode)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SearchV3Prefill)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SearchV4ProDecode)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
