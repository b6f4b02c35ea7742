#pragma once
// A compute-bound CUDA-core kernel for the concurrency pairs: FP32 FMAs in registers, no memory
// traffic but one store per thread at the end, so that what two co-resident copies of it share is
// the SM's issue slots and FP32 pipes, nothing else.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "memory_kernels.hpp"  // Grid, CtaFootprint

// Threads per CTA of the FMA kernel: 512, a quarter of an SM's 2048 threads, so that CTAs of
// other kernels fit beside it.
inline constexpr int kFmaThreadsPerCta = 512;
// FP32 FLOPs one thread does per loop iteration: 8 independent FMA chains (2 FLOP each), enough
// instructions in flight for 4 warps per SM sub-partition to keep the FP32 pipe busy.
inline constexpr int kFmaFlopsPerIteration = 16;

// One CTA of kFmaThreadsPerCta threads per SM, no shared memory.
Grid fma_grid(const DeviceInfo& device);
// Loop iterations per thread so that the grid does about `flops` FP32 FLOPs; the FLOPs it does
// are grid threads x iterations x kFmaFlopsPerIteration.
int64_t fma_iterations(double flops, const Grid& grid);
void launch_fma(int64_t iterations, const Grid& grid, cudaStream_t stream);
CtaFootprint fma_footprint(const Grid& grid);
