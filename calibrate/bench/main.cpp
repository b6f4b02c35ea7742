// overlapsim_microbench: parses the arguments (no GPU needed for --help or a usage error), then
// queries the device and runs the requested families, one CSV each.

#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>

#include "bench_context.hpp"
#include "options.hpp"
#include "timing.hpp"

int main(int argc, char** argv) {
  const ParseResult parsed = parse_options(argc, argv);
  if (parsed.outcome == ParseOutcome::kHelp) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (parsed.outcome == ParseOutcome::kError) {
    std::fprintf(stderr, "overlapsim_microbench: %s\n\n%s", parsed.error.c_str(),
                 usage_text().c_str());
    return 2;
  }

  try {
    std::filesystem::create_directories(parsed.options.out_dir);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "overlapsim_microbench: cannot create %s: %s\n",
                 parsed.options.out_dir.c_str(), error.what());
    return 1;
  }

  try {
    // CUDA from here on.
    const BenchContext context{parsed.options, query_device_info(parsed.options.device)};
    std::fprintf(stderr, "overlapsim_microbench: %s, %d SMs, L2 %lld bytes; %d reps, %d warm-up\n",
                 context.device.name.c_str(), context.device.sm_count,
                 static_cast<long long>(context.device.l2_bytes), context.options.reps,
                 context.options.warmup);

    using FamilyRunner = void (*)(const BenchContext&);
    const std::map<std::string, FamilyRunner> runners = {
        {"gemm", run_gemm_family},
        {"hbm", run_hbm_family},
        {"l2", run_l2_family},
        {"launch", run_launch_family},
        {"concurrency", run_concurrency_family},
        {"layer", run_layer_family},
    };
    for (const std::string& family : context.options.families) {
      const double start_us = host_now_us();
      runners.at(family)(context);
      std::fprintf(stderr, "overlapsim_microbench: %s -> %s (%.1f s)\n", family.c_str(),
                   csv_path(context, family).c_str(), (host_now_us() - start_us) * 1e-6);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "overlapsim_microbench: %s\n", error.what());
    return 1;
  }
  return 0;
}
