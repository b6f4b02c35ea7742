#include "check.hpp"
#include "launch_kernels.hpp"

namespace {

__global__ void empty_kernel() {}

__global__ void small_kernel(float* data) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kSmallKernelElements) data[i] = data[i] * 1.0001f + 0.5f;
}

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void spin_kernel(uint64_t duration_ns) {
  if (threadIdx.x != 0) return;
  const uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < duration_ns) __nanosleep(1000);
}

}  // namespace

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
}

int small_kernel_registers() {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, small_kernel));
  return a.numRegs;
}

void launch_small(float* data, cudaStream_t stream) {
  small_kernel<<<kSmallKernelCtas, kSmallKernelThreadsPerCta, 0, stream>>>(data);
}

void launch_spin(uint64_t duration_ns, cudaStream_t stream) {
  spin_kernel<<<1, 32, 0, stream>>>(duration_ns);
}
