#pragma once
// Tiny kernels for launch-cost and concurrency measurements. The launchers do not check errors
// (that would add host time to what is measured): call CUDA_CHECK_LAUNCH() after the loop.

#include <cuda_runtime_api.h>

#include <cstdint>

// The "small" kernel: x = x * 1.0001 + 0.5 over this many floats (256 KiB), 256 threads per CTA.
inline constexpr int kSmallKernelElements = 65536;
inline constexpr int kSmallKernelThreadsPerCta = 256;
inline constexpr int kSmallKernelCtas = kSmallKernelElements / kSmallKernelThreadsPerCta;

// <<<1, 32>>> and an empty body.
void launch_empty(cudaStream_t stream);
// kSmallKernelCtas x kSmallKernelThreadsPerCta over data[0, kSmallKernelElements).
void launch_small(float* data, cudaStream_t stream);
// Registers per thread of the small kernel (cudaFuncGetAttributes); it uses no shared memory.
int small_kernel_registers();
// One CTA that spins on %globaltimer for `duration_ns`: holds back a stream while the host
// queues work behind it, so that the GPU then runs the queue back to back.
void launch_spin(uint64_t duration_ns, cudaStream_t stream);
