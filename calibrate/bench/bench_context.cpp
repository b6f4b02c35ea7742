#include "bench_context.hpp"

#include <ctime>

namespace {

std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace

std::vector<std::string> csv_metadata(const BenchContext& context, std::string_view family,
                                      const std::vector<std::string>& notes) {
  const DeviceInfo& d = context.device;
  const BenchOptions& o = context.options;
  std::vector<std::string> lines = {
      "tool: overlapsim_microbench",
      "family: " + std::string(family),
      "gpu: " + d.name,
      "pci_bus_id: " + d.pci_bus_id,
      "compute_capability: " + std::to_string(d.compute_capability_major) + "." +
          std::to_string(d.compute_capability_minor),
      "sm_count: " + std::to_string(d.sm_count),
      "sm_clock_khz: " + std::to_string(d.sm_clock_khz),
      "memory_clock_khz: " + std::to_string(d.memory_clock_khz),
      "memory_bus_width_bits: " + std::to_string(d.memory_bus_width_bits),
      "l2_bytes: " + std::to_string(d.l2_bytes),
      "global_memory_bytes: " + std::to_string(d.global_memory_bytes),
      "shared_memory_per_sm_bytes: " + std::to_string(d.shared_memory_per_sm_bytes),
      "max_threads_per_sm: " + std::to_string(d.max_threads_per_sm),
      "driver_version: " + cuda_version_string(d.driver_version) + " (" +
          std::to_string(d.driver_version) + ")",
      "runtime_version: " + cuda_version_string(d.runtime_version) + " (" +
          std::to_string(d.runtime_version) + ")",
      "cublaslt_version: " + std::to_string(d.cublaslt_version),
      "date_utc: " + utc_now_iso(),
      "command: " + o.command_line,
      "reps: " + std::to_string(o.reps),
      "warmup: " + std::to_string(o.warmup),
  };
  for (const auto& note : notes) lines.push_back("note: " + note);
  return lines;
}

std::filesystem::path csv_path(const BenchContext& context, std::string_view family) {
  return context.options.out_dir / (std::string(family) + ".csv");
}
