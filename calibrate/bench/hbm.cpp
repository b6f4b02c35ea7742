// hbm family: read, write and copy bandwidth of a buffer far larger than L2 against the number
// of SMs the kernel runs on (one 1024-thread CTA per SM), plus an all-SMs full-occupancy row.

#include <algorithm>
#include <cstdio>
#include <set>

#include "bench_context.hpp"
#include "csv_writer.hpp"
#include "device_buffer.hpp"
#include "memory_kernels.hpp"
#include "timing.hpp"

namespace {

constexpr int kSmSteps[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 64, 80, 96, 112, 132};
constexpr size_t kMinBufferBytes = size_t{1} << 30;

const std::vector<std::string> kColumns = {
    "kernel",  "sms_used", "ctas", "threads_per_cta", "distinct_sms", "buffer_bytes", "bytes_moved",
    "time_us", "gbps",     "reps"};

const std::vector<std::string> kNotes = {
    "read: 16-byte ld.global.cg loads, 4 in flight per thread; write: 16-byte stores; copy: "
    "both (bytes_moved counts the read and the write)",
    "one CTA per SM (1024 threads, > half the SM's shared memory), grid-stride over the buffer; "
    "the last row per kernel has 2048 threads per SM on every SM (full occupancy)",
    "buffer: max(16 x L2, 1 GiB); dirty lines still in L2 when a write kernel ends (<= L2 size) "
    "are not in its time",
    "time_us: median over reps of one kernel between CUDA events",
};

enum class MemoryKernel { kRead, kWrite, kCopy };

const char* kernel_name(MemoryKernel kernel) {
  switch (kernel) {
    case MemoryKernel::kRead:
      return "read";
    case MemoryKernel::kWrite:
      return "write";
    case MemoryKernel::kCopy:
      return "copy";
  }
  return "?";
}

void launch(MemoryKernel kernel, const DeviceBuffer& src, const DeviceBuffer& dst, const Grid& grid,
            cudaStream_t stream, int* sm_ids) {
  switch (kernel) {
    case MemoryKernel::kRead:
      launch_read(src.get(), src.bytes(), grid, stream, sm_ids);
      break;
    case MemoryKernel::kWrite:
      launch_write(dst.get(), dst.bytes(), grid, stream, sm_ids);
      break;
    case MemoryKernel::kCopy:
      launch_copy(dst.get(), src.get(), src.bytes(), grid, stream, sm_ids);
      break;
  }
}

// How many distinct SMs the grid's CTAs ran on (one untimed launch that records %smid).
int count_distinct_sms(MemoryKernel kernel, const DeviceBuffer& src, const DeviceBuffer& dst,
                       const Grid& grid, cudaStream_t stream) {
  DeviceBuffer sm_ids(sizeof(int) * grid.ctas);
  launch(kernel, src, dst, grid, stream, sm_ids.as<int>());
  std::vector<int> host_ids(grid.ctas);
  CUDA_CHECK(cudaMemcpyAsync(host_ids.data(), sm_ids.get(), sm_ids.bytes(), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<int>(std::set<int>(host_ids.begin(), host_ids.end()).size());
}

}  // namespace

void run_hbm_family(const BenchContext& context) {
  const DeviceInfo& device = context.device;
  const BenchOptions& options = context.options;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const size_t buffer_bytes =
      std::max(kMinBufferBytes, static_cast<size_t>(16 * device.l2_bytes + 4095) / 4096 * 4096);
  DeviceBuffer src(buffer_bytes);
  DeviceBuffer dst(buffer_bytes);
  const Grid full_grid = full_device_grid(device);
  launch_write(src.get(), src.bytes(), full_grid, stream);
  launch_write(dst.get(), dst.bytes(), full_grid, stream);

  std::vector<int> sm_steps;
  for (int sms : kSmSteps) {
    if (sms <= device.sm_count) sm_steps.push_back(sms);
  }
  if (sm_steps.back() != device.sm_count) sm_steps.push_back(device.sm_count);

  CsvWriter csv(csv_path(context, "hbm"), csv_metadata(context, "hbm", kNotes), kColumns);
  for (MemoryKernel kernel : {MemoryKernel::kRead, MemoryKernel::kWrite, MemoryKernel::kCopy}) {
    const size_t bytes_moved = kernel == MemoryKernel::kCopy ? 2 * buffer_bytes : buffer_bytes;
    std::vector<std::pair<int, Grid>> runs;  // (sms_used, grid)
    for (int sms : sm_steps) runs.emplace_back(sms, one_cta_per_sm_grid(device, sms));
    runs.emplace_back(device.sm_count, full_grid);

    for (const auto& [sms_used, grid] : runs) {
      const int distinct_sms = count_distinct_sms(kernel, src, dst, grid, stream);
      const std::vector<double> times_us = time_reps_us(
          stream, options.warmup, options.reps, [] {},
          [&] { launch(kernel, src, dst, grid, stream, nullptr); });
      const double time_us = median(times_us);
      csv.write_row({cell(kernel_name(kernel)), cell(sms_used), cell(grid.ctas),
                     cell(grid.threads_per_cta), cell(distinct_sms), cell(buffer_bytes),
                     cell(bytes_moved), cell(time_us), cell(bytes_moved / time_us * 1e-3, 1),
                     cell(options.reps)});
    }
    std::fprintf(stderr, "hbm: %s done\n", kernel_name(kernel));
  }
  csv.finish();
  CUDA_CHECK(cudaStreamDestroy(stream));
}
