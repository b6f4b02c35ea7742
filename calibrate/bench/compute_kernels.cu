#include <cmath>

#include "check.hpp"
#include "compute_kernels.hpp"

namespace {

__device__ float g_fma_sink;

// Eight independent chains x = x * a + b per iteration; the sum is stored only if it equals a
// value the compiler cannot rule out, so the FMAs stay.
__global__ void fma_kernel(int64_t iterations, float a, float b) {
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = static_cast<float>(threadIdx.x + j);
#pragma unroll 4
  for (int64_t i = 0; i < iterations; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = fmaf(x[j], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) sum += x[j];
  if (sum == 1.2345f) g_fma_sink = sum;
}

}  // namespace

Grid fma_grid(const DeviceInfo& device) {
  return Grid{device.sm_count, kFmaThreadsPerCta, 0};
}

int64_t fma_iterations(double flops, const Grid& grid) {
  const double threads = static_cast<double>(grid.ctas) * grid.threads_per_cta;
  return static_cast<int64_t>(std::llround(flops / (threads * kFmaFlopsPerIteration)));
}

void launch_fma(int64_t iterations, const Grid& grid, cudaStream_t stream) {
  // a < 1 keeps the values bounded (no infinities, no denormal slow path on any input).
  fma_kernel<<<grid.ctas, grid.threads_per_cta, 0, stream>>>(iterations, 0.999f, 0.001f);
  CUDA_CHECK_LAUNCH();
}

CtaFootprint fma_footprint(const Grid& grid) {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, fma_kernel));
  return CtaFootprint{grid.threads_per_cta, a.numRegs, a.sharedSizeBytes};
}
