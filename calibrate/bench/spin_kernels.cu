#include <cstdint>

#include "check.hpp"
#include "spin_kernels.hpp"

namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(std::uint64_t duration_ns) {
  extern __shared__ char hold[];  // sized by the launch: what keeps other CTAs off the SM
  (void)hold;
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < duration_ns) {
  }
}

}  // namespace

Grid spin_grid(const DeviceInfo& device, int sms) {
  if (sms <= 0) return Grid{1, 32, 0};
  size_t smem = static_cast<size_t>(device.shared_memory_per_sm_bytes) / 2 + 1024;
  if (smem > static_cast<size_t>(device.shared_memory_per_block_optin_bytes)) {
    smem = static_cast<size_t>(device.shared_memory_per_block_optin_bytes);
  }
  CUDA_CHECK(cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(smem)));
  return Grid{sms < device.sm_count ? sms : device.sm_count, 128, smem};
}

void launch_spin(double duration_us, const Grid& grid, cudaStream_t stream) {
  const auto ns = static_cast<std::uint64_t>(duration_us > 0 ? duration_us * 1e3 : 0);
  spin_kernel<<<grid.ctas, grid.threads_per_cta, grid.dynamic_smem_bytes, stream>>>(ns);
  CUDA_CHECK_LAUNCH();
}
