// l2 family: read bandwidth against working-set size, from 1 MiB to 4x L2 (the L2 plateau and
// the drop to HBM), and reuse: one input read twice back to back after an L2 flush.

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "bench_context.hpp"
#include "csv_writer.hpp"
#include "device_buffer.hpp"
#include "l2_flusher.hpp"
#include "memory_kernels.hpp"
#include "timing.hpp"

namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kSweepBytesPerLaunch = size_t{2} << 30;  // enough to amortize the first touch
constexpr double kSweepFractionsOfL2[] = {0.25, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125,
                                          1.25, 1.5, 1.75,  2.0,  3.0,   4.0};
constexpr double kReuseFractionsOfL2[] = {0.125, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0};

const std::vector<std::string> kColumns = {
    "test",       "working_set_bytes", "ctas", "threads_per_cta",
    "bytes_read", "time_us",           "gbps", "reps"};

const std::vector<std::string> kNotes = {
    "sweep: one kernel (2048 threads per SM on every SM) reads the working set over and over "
    "(16-byte ld.global.cg loads, stepping by the grid's thread count and wrapping), about 2 GiB "
    "per launch, after an untimed warm-up launch; time_us: median over reps",
    "reuse_first / reuse_second: per repetition, L2 flushed (2x L2 written, so the first read "
    "also evicts dirty lines), then the working set read once (reuse_first), then read once "
    "again right after (reuse_second), each between CUDA events; medians over reps",
};

// Multiples of 64 KiB, at least 1 MiB, sorted, without duplicates.
std::vector<size_t> working_sets(const DeviceInfo& device, const double* fractions,
                                 size_t fraction_count, bool with_small_powers_of_two) {
  std::vector<size_t> sizes;
  const size_t l2_bytes = static_cast<size_t>(device.l2_bytes);
  if (with_small_powers_of_two) {
    for (size_t bytes = kMiB; bytes < l2_bytes / 4; bytes *= 2) sizes.push_back(bytes);
  }
  for (size_t i = 0; i < fraction_count; ++i) {
    const size_t bytes = static_cast<size_t>(fractions[i] * static_cast<double>(l2_bytes));
    sizes.push_back(std::max(kMiB, bytes / (64 * 1024) * (64 * 1024)));
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

void run_sweep(const BenchContext& context, const DeviceBuffer& buffer, cudaStream_t stream,
               CsvWriter& csv) {
  const Grid grid = full_device_grid(context.device);
  const int64_t threads = static_cast<int64_t>(grid.ctas) * grid.threads_per_cta;
  const int64_t loads_per_thread =
      (static_cast<int64_t>(kSweepBytesPerLaunch / 16) + threads - 1) / threads;
  const int64_t bytes_read = loads_per_thread * threads * 16;
  for (size_t working_set :
       working_sets(context.device, kSweepFractionsOfL2, std::size(kSweepFractionsOfL2), true)) {
    auto read = [&] {
      launch_read_repeated(buffer.get(), working_set, loads_per_thread, grid, stream);
    };
    read();  // brings the working set into L2 (as far as it fits)
    const double time_us = median(time_reps_us(
        stream, context.options.warmup, context.options.reps, [] {}, read));
    csv.write_row({cell("sweep"), cell(working_set), cell(grid.ctas), cell(grid.threads_per_cta),
                   cell(bytes_read), cell(time_us), cell(bytes_read / time_us * 1e-3, 1),
                   cell(context.options.reps)});
  }
  std::fprintf(stderr, "l2: sweep done\n");
}

void run_reuse(const BenchContext& context, const DeviceBuffer& buffer, cudaStream_t stream,
               CsvWriter& csv) {
  const Grid grid = full_device_grid(context.device);
  const L2Flusher flusher(context.device);
  const int reps = context.options.reps;
  for (size_t working_set :
       working_sets(context.device, kReuseFractionsOfL2, std::size(kReuseFractionsOfL2), false)) {
    auto read = [&] { launch_read(buffer.get(), working_set, grid, stream); };
    for (int i = 0; i < context.options.warmup; ++i) read();
    EventPairs first(reps);
    EventPairs second(reps);
    for (int i = 0; i < reps; ++i) {
      flusher.flush(stream);
      first.record_start(i, stream);
      read();
      first.record_stop(i, stream);
      second.record_start(i, stream);
      read();
      second.record_stop(i, stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const double first_us = median(first.all_elapsed_us());
    const double second_us = median(second.all_elapsed_us());
    for (const auto& [test, time_us] :
         {std::pair{"reuse_first", first_us}, std::pair{"reuse_second", second_us}}) {
      csv.write_row({cell(test), cell(working_set), cell(grid.ctas), cell(grid.threads_per_cta),
                     cell(working_set), cell(time_us), cell(working_set / time_us * 1e-3, 1),
                     cell(reps)});
    }
  }
  std::fprintf(stderr, "l2: reuse done\n");
}

}  // namespace

void run_l2_family(const BenchContext& context) {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const size_t largest_bytes = static_cast<size_t>(4 * context.device.l2_bytes + kMiB);
  DeviceBuffer buffer(largest_bytes / kMiB * kMiB);
  fill_random_bf16(buffer.get(), buffer.bytes() / 2, 3, stream);

  CsvWriter csv(csv_path(context, "l2"), csv_metadata(context, "l2", kNotes), kColumns);
  run_sweep(context, buffer, stream, csv);
  run_reuse(context, buffer, stream, csv);
  csv.finish();
  CUDA_CHECK(cudaStreamDestroy(stream));
}
