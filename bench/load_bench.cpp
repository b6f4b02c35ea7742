// Program loading: an 8,000-kernel program file read as `overlapsim run` reads it (the fast
// reader), and the same file through yaml-cpp alone for comparison.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/program/program_loader.hpp"
#include "bench/program_yaml.hpp"

namespace {

std::string program_file(int kernels) {
  setenv("OVERLAPSIM_HOME", OVS_SOURCE_DIR, 0);
  const auto path = std::filesystem::temp_directory_path() /
                    ("overlapsim-bench-" + std::to_string(kernels) + ".yaml");
  std::ofstream(path) << ovs::bench::synthetic_program_yaml(kernels);
  return path.string();
}

void BM_LoadProgram(benchmark::State& state) {
  const std::string path = program_file(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ovs::load_program(path).program.kernels.size());
  state.counters["kernels_per_s"] = benchmark::Counter(
      double(state.range(0)) * double(state.iterations()), benchmark::Counter::kIsRate);
  std::filesystem::remove(path);
}
BENCHMARK(BM_LoadProgram)->Arg(8000)->Unit(benchmark::kMillisecond);

void BM_LoadProgramYamlCpp(benchmark::State& state) {
  const std::string path = program_file(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(ovs::parse_program(ovs::yaml::load_file(path)).program.kernels.size());
  std::filesystem::remove(path);
}
BENCHMARK(BM_LoadProgramYamlCpp)->Arg(8000)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
