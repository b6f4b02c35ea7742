#pragma once
// Memory-bound kernels (read, write, copy, repeated read of a working set) and random fills,
// behind host launchers. Buffers are moved in 16-byte vectors: byte counts must be multiples
// of 16. Reads use ld.global.cg (cached in L2, not L1), so they measure L2 or HBM, never L1.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "device_info.hpp"

struct Grid {
  int ctas = 0;
  int threads_per_cta = 0;
  size_t dynamic_smem_bytes = 0;
};

// `sms` CTAs of 1024 threads that each ask for more than half an SM's shared memory, so the
// block scheduler cannot put two on one SM: `sms` CTAs run on `sms` distinct SMs. 1024 threads
// x 4 independent 16-byte loads keep 64 KiB in flight per SM, enough to saturate its share of
// HBM. Sets the kernels' dynamic shared memory limit as a side effect.
Grid one_cta_per_sm_grid(const DeviceInfo& device, int sms);

// One CTA of a kernel as the SM sees it (cudaFuncGetAttributes): what co-residency depends on.
struct CtaFootprint {
  int threads = 0;
  int registers_per_thread = 0;
  size_t shared_bytes = 0;  // static + dynamic
};
CtaFootprint read_footprint(const Grid& grid);
CtaFootprint copy_footprint(const Grid& grid);

// Every SM full: max_threads_per_sm / 1024 CTAs of 1024 threads on each SM, no shared memory.
Grid full_device_grid(const DeviceInfo& device);

// Each CTA's thread 0 writes its SM id (%smid) to sm_ids[blockIdx.x] when sm_ids is not null.
void launch_read(const void* src, size_t bytes, const Grid& grid, cudaStream_t stream,
                 int* sm_ids = nullptr);
void launch_write(void* dst, size_t bytes, const Grid& grid, cudaStream_t stream,
                  int* sm_ids = nullptr);
void launch_copy(void* dst, const void* src, size_t bytes, const Grid& grid, cudaStream_t stream,
                 int* sm_ids = nullptr);

// Reads a working set of `working_set_bytes` again and again: each thread makes
// `loads_per_thread` 16-byte loads, stepping by the grid's thread count and wrapping at the end
// of the working set. Bytes read = loads_per_thread x ctas x threads_per_cta x 16.
void launch_read_repeated(const void* src, size_t working_set_bytes, int64_t loads_per_thread,
                          const Grid& grid, cudaStream_t stream);

// Uniform random values in [-1, 1] (BF16) or [-2, 2] (FP8 e4m3), from a hash of index and seed:
// GEMMs on random data draw realistic power, unlike zeros.
void fill_random_bf16(void* dst, size_t count, uint32_t seed, cudaStream_t stream);
void fill_random_e4m3(void* dst, size_t count, uint32_t seed, cudaStream_t stream);
void fill_float(float* dst, size_t count, float value, cudaStream_t stream);
