#pragma once
// What the CSV headers say about the GPU, and the sizes the benchmarks derive from it.

#include <cstddef>
#include <cstdint>
#include <string>

struct DeviceInfo {
  int device = 0;
  std::string name;
  std::string pci_bus_id;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;      // cudaDevAttrClockRate: peak SM clock
  int memory_clock_khz = 0;  // cudaDevAttrMemoryClockRate: peak memory clock
  int memory_bus_width_bits = 0;
  int max_threads_per_sm = 0;
  int64_t l2_bytes = 0;
  int64_t global_memory_bytes = 0;
  int64_t shared_memory_per_sm_bytes = 0;
  int64_t shared_memory_per_block_optin_bytes = 0;
  int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  // cudaRuntimeGetVersion
  size_t cublaslt_version = 0;
};

// Queries device `device` (exits with a message when there is none).
DeviceInfo query_device_info(int device);

// 12080 -> "12.8".
std::string cuda_version_string(int version);
