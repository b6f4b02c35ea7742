#pragma once
// The layer benchmark's stand-in for a communication kernel: CTAs that hold their SMs and spin on
// the GPU's global timer for a given time, doing no memory traffic. With `sms` > 0 each CTA asks
// for more than half an SM's shared memory, so the `sms` CTAs own `sms` distinct SMs as DeepEP's
// kernels do; `sms` 0 (an RDMA transfer in flight, which holds no SM) is one CTA of one warp.

#include <cuda_runtime_api.h>

#include "memory_kernels.hpp"  // Grid

Grid spin_grid(const DeviceInfo& device, int sms);
void launch_spin(double duration_us, const Grid& grid, cudaStream_t stream);
