#include "device_info.hpp"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "check.hpp"

namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

DeviceInfo query_device_info(int device) {
  int device_count = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "overlapsim_microbench: no CUDA device (%s)\n",
                 status == cudaSuccess ? "device count is 0" : cudaGetErrorString(status));
    std::exit(1);
  }
  if (device < 0 || device >= device_count) {
    std::fprintf(stderr, "overlapsim_microbench: --device %d, but there are %d devices\n", device,
                 device_count);
    std::exit(1);
  }
  CUDA_CHECK(cudaSetDevice(device));

  DeviceInfo info;
  info.device = device;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  info.global_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  char bus_id[64] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device));
  info.pci_bus_id = bus_id;

  info.compute_capability_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  info.compute_capability_minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, device);
  info.sm_clock_khz = attribute(cudaDevAttrClockRate, device);
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  info.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  info.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
  info.l2_bytes = attribute(cudaDevAttrL2CacheSize, device);
  info.shared_memory_per_sm_bytes = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  info.shared_memory_per_block_optin_bytes =
      attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);

  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  info.cublaslt_version = cublasLtGetVersion();
  return info;
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}
