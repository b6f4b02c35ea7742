#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdio>
#include <cstdlib>

#include "check.hpp"
#include "memory_kernels.hpp"

namespace {

constexpr int kThreadsPerCta = 1024;
constexpr unsigned kNeverFolded = 0x9e3779b9u;

// Written only if a fold equals kNeverFolded, which the compiler cannot rule out: keeps loads.
__device__ unsigned g_sink;

__device__ __forceinline__ unsigned fold(int4 v) {
  return static_cast<unsigned>(v.x ^ v.y ^ v.z ^ v.w);
}

__device__ __forceinline__ void note_sm(int* sm_ids) {
  if (sm_ids != nullptr && threadIdx.x == 0) {
    unsigned sm_id = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_id));
    sm_ids[blockIdx.x] = static_cast<int>(sm_id);
  }
}

__global__ void read_kernel(const int4* __restrict__ src, size_t count, int* sm_ids) {
  note_sm(sm_ids);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < count; i += 4 * stride) {
    const int4 a = __ldcg(src + i);
    const int4 b = __ldcg(src + i + stride);
    const int4 c = __ldcg(src + i + 2 * stride);
    const int4 d = __ldcg(src + i + 3 * stride);
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  for (; i < count; i += stride) acc ^= fold(__ldcg(src + i));
  if (acc == kNeverFolded) g_sink = acc;
}

__global__ void write_kernel(int4* __restrict__ dst, size_t count, int* sm_ids) {
  note_sm(sm_ids);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const int v = static_cast<int>(i);
    dst[i] = make_int4(v, v + 1, v + 2, v + 3);
  }
}

__global__ void copy_kernel(int4* __restrict__ dst, const int4* __restrict__ src, size_t count,
                            int* sm_ids) {
  note_sm(sm_ids);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < count; i += 4 * stride) {
    const int4 a = __ldcg(src + i);
    const int4 b = __ldcg(src + i + stride);
    const int4 c = __ldcg(src + i + 2 * stride);
    const int4 d = __ldcg(src + i + 3 * stride);
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < count; i += stride) dst[i] = __ldcg(src + i);
}

// index -> (index + step) mod count, for index < count and step < count.
__device__ __forceinline__ uint32_t wrap_add(uint32_t index, uint32_t step, uint32_t count) {
  index += step;
  return index >= count ? index - count : index;
}

__global__ void read_repeated_kernel(const int4* __restrict__ src, uint32_t count,
                                     int64_t loads_per_thread, uint32_t stride_mod_count) {
  const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t index = static_cast<uint32_t>(thread % count);
  unsigned acc = 0;
  int64_t done = 0;
  for (; done + 4 <= loads_per_thread; done += 4) {
    const uint32_t i0 = index;
    const uint32_t i1 = wrap_add(i0, stride_mod_count, count);
    const uint32_t i2 = wrap_add(i1, stride_mod_count, count);
    const uint32_t i3 = wrap_add(i2, stride_mod_count, count);
    index = wrap_add(i3, stride_mod_count, count);
    const int4 a = __ldcg(src + i0);
    const int4 b = __ldcg(src + i1);
    const int4 c = __ldcg(src + i2);
    const int4 d = __ldcg(src + i3);
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  for (; done < loads_per_thread; ++done) {
    acc ^= fold(__ldcg(src + index));
    index = wrap_add(index, stride_mod_count, count);
  }
  if (acc == kNeverFolded) g_sink = acc;
}

__device__ __forceinline__ float uniform_pm1(size_t index, uint32_t seed) {
  uint64_t x = (static_cast<uint64_t>(seed) << 32) ^ index;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<float>(x & 0xffffffu) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void fill_bf16_kernel(__nv_bfloat16* dst, size_t count, uint32_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    dst[i] = __float2bfloat16(uniform_pm1(i, seed));
  }
}

__global__ void fill_e4m3_kernel(__nv_fp8_e4m3* dst, size_t count, uint32_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    dst[i] = __nv_fp8_e4m3(2.0f * uniform_pm1(i, seed));
  }
}

__global__ void fill_float_kernel(float* dst, size_t count, float value) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    dst[i] = value;
  }
}

size_t vector_count(size_t bytes) {
  if (bytes % sizeof(int4) != 0) {
    std::fprintf(stderr, "overlapsim_microbench: bug: %zu bytes is not a multiple of 16\n", bytes);
    std::exit(1);
  }
  return bytes / sizeof(int4);
}

constexpr int kFillCtas = 1024;
constexpr int kFillThreads = 256;

}  // namespace

Grid one_cta_per_sm_grid(const DeviceInfo& device, int sms) {
  // More than half of the SM's shared memory (plus the 1 KiB the driver reserves per CTA).
  size_t smem = static_cast<size_t>(device.shared_memory_per_sm_bytes) / 2 + 1024;
  if (smem > static_cast<size_t>(device.shared_memory_per_block_optin_bytes)) {
    smem = static_cast<size_t>(device.shared_memory_per_block_optin_bytes);
  }
  const int smem_attr = static_cast<int>(smem);
  CUDA_CHECK(
      cudaFuncSetAttribute(read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_attr));
  CUDA_CHECK(
      cudaFuncSetAttribute(write_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_attr));
  CUDA_CHECK(
      cudaFuncSetAttribute(copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_attr));
  return Grid{sms, kThreadsPerCta, smem};
}

Grid full_device_grid(const DeviceInfo& device) {
  const int ctas_per_sm = device.max_threads_per_sm / kThreadsPerCta;
  return Grid{device.sm_count * (ctas_per_sm > 0 ? ctas_per_sm : 1), kThreadsPerCta, 0};
}

namespace {
template <typename Kernel>
CtaFootprint footprint_of(Kernel kernel, const Grid& grid) {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  return CtaFootprint{grid.threads_per_cta, a.numRegs, a.sharedSizeBytes + grid.dynamic_smem_bytes};
}
}  // namespace

CtaFootprint read_footprint(const Grid& grid) {
  return footprint_of(read_kernel, grid);
}
CtaFootprint copy_footprint(const Grid& grid) {
  return footprint_of(copy_kernel, grid);
}

void launch_read(const void* src, size_t bytes, const Grid& grid, cudaStream_t stream,
                 int* sm_ids) {
  read_kernel<<<grid.ctas, grid.threads_per_cta, grid.dynamic_smem_bytes, stream>>>(
      static_cast<const int4*>(src), vector_count(bytes), sm_ids);
  CUDA_CHECK_LAUNCH();
}

void launch_write(void* dst, size_t bytes, const Grid& grid, cudaStream_t stream, int* sm_ids) {
  write_kernel<<<grid.ctas, grid.threads_per_cta, grid.dynamic_smem_bytes, stream>>>(
      static_cast<int4*>(dst), vector_count(bytes), sm_ids);
  CUDA_CHECK_LAUNCH();
}

void launch_copy(void* dst, const void* src, size_t bytes, const Grid& grid, cudaStream_t stream,
                 int* sm_ids) {
  copy_kernel<<<grid.ctas, grid.threads_per_cta, grid.dynamic_smem_bytes, stream>>>(
      static_cast<int4*>(dst), static_cast<const int4*>(src), vector_count(bytes), sm_ids);
  CUDA_CHECK_LAUNCH();
}

void launch_read_repeated(const void* src, size_t working_set_bytes, int64_t loads_per_thread,
                          const Grid& grid, cudaStream_t stream) {
  const size_t count = vector_count(working_set_bytes);
  if (count == 0 || count >= (size_t{1} << 31)) {
    std::fprintf(stderr, "overlapsim_microbench: bug: working set of %zu bytes out of range\n",
                 working_set_bytes);
    std::exit(1);
  }
  const uint64_t threads = static_cast<uint64_t>(grid.ctas) * grid.threads_per_cta;
  read_repeated_kernel<<<grid.ctas, grid.threads_per_cta, grid.dynamic_smem_bytes, stream>>>(
      static_cast<const int4*>(src), static_cast<uint32_t>(count), loads_per_thread,
      static_cast<uint32_t>(threads % count));
  CUDA_CHECK_LAUNCH();
}

void fill_random_bf16(void* dst, size_t count, uint32_t seed, cudaStream_t stream) {
  fill_bf16_kernel<<<kFillCtas, kFillThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count,
                                                           seed);
  CUDA_CHECK_LAUNCH();
}

void fill_random_e4m3(void* dst, size_t count, uint32_t seed, cudaStream_t stream) {
  fill_e4m3_kernel<<<kFillCtas, kFillThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(dst), count,
                                                           seed);
  CUDA_CHECK_LAUNCH();
}

void fill_float(float* dst, size_t count, float value, cudaStream_t stream) {
  fill_float_kernel<<<kFillCtas, kFillThreads, 0, stream>>>(dst, count, value);
  CUDA_CHECK_LAUNCH();
}
