// launch family: what a launch costs the host and the GPU, eager and in a CUDA graph, and what
// cudaEventRecord / cudaStreamWaitEvent cost the host.

#include <cmath>
#include <cstdio>
#include <functional>

#include "bench_context.hpp"
#include "csv_writer.hpp"
#include "device_buffer.hpp"
#include "launch_kernels.hpp"
#include "timing.hpp"

namespace {

constexpr int kItemsPerRep = 256;        // well under the launch queue's depth
constexpr uint64_t kSpinNs = 5'000'000;  // the host queues kItemsPerRep launches meanwhile

const std::vector<std::string> kColumns = {
    "mode", "kernel", "items", "host_us_per_item", "gpu_us_per_item", "reps"};

const std::vector<std::string> kNotes = {
    "empty: <<<1, 32>>>, no body; small: <<<256, 256>>>, x = x * 1.0001 + 0.5 over 65536 floats",
    "eager: a 5 ms spin kernel holds the stream while the host launches `items` kernels (host "
    "time per launch, steady clock); the GPU then runs them back to back (GPU time per kernel "
    "from CUDA events around the batch)",
    "eager_unqueued: the same launches on an idle stream: gpu_us_per_item is the pace the host "
    "sustains (max of host and GPU cost)",
    "graph: `items` kernel nodes captured in one CUDA graph (instantiated and uploaded); host: the "
    "one cudaGraphLaunch divided by items; GPU: the replay behind a spin kernel, per node",
    "event_record / stream_wait_event: host time per call on an idle stream (events created with "
    "cudaEventDisableTiming); gpu_us_per_item is empty",
    "all values: medians over reps",
};

struct KernelKind {
  const char* name;
  std::function<void(cudaStream_t)> launch;
};

struct HostGpuUs {
  double host_us_per_item;
  double gpu_us_per_item;
};

// Median over reps of (host time of `enqueue`, GPU time between events around it), each per item.
HostGpuUs measure(cudaStream_t stream, int warmup, int reps, bool behind_spin,
                  const std::function<void()>& enqueue) {
  std::vector<double> host_us;
  std::vector<double> gpu_us;
  EventPairs events(1);
  for (int i = 0; i < warmup + reps; ++i) {
    if (behind_spin) launch_spin(kSpinNs, stream);
    events.record_start(0, stream);
    const double host_start_us = host_now_us();
    enqueue();
    const double host_end_us = host_now_us();
    events.record_stop(0, stream);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (i < warmup) continue;
    host_us.push_back((host_end_us - host_start_us) / kItemsPerRep);
    gpu_us.push_back(events.elapsed_us(0) / kItemsPerRep);
    if (behind_spin && host_end_us - host_start_us > 0.8e-3 * static_cast<double>(kSpinNs)) {
      std::fprintf(stderr, "launch: warning: the host took %.0f us to queue, near the spin time\n",
                   host_end_us - host_start_us);
    }
  }
  return {median(host_us), median(gpu_us)};
}

void write(CsvWriter& csv, const char* mode, const char* kernel, const HostGpuUs& result,
           int reps) {
  csv.write_row({cell(mode), cell(kernel), cell(kItemsPerRep), cell(result.host_us_per_item),
                 cell(result.gpu_us_per_item), cell(reps)});
}

cudaGraphExec_t capture_graph(cudaStream_t stream, const KernelKind& kernel) {
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kItemsPerRep; ++i) kernel.launch(stream);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaGraphUpload(exec, stream));
  return exec;
}

}  // namespace

void run_launch_family(const BenchContext& context) {
  const int warmup = context.options.warmup;
  const int reps = context.options.reps;
  cudaStream_t stream = nullptr;
  cudaStream_t other_stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&other_stream, cudaStreamNonBlocking));
  DeviceBuffer small_data(sizeof(float) * kSmallKernelElements);
  CUDA_CHECK(cudaMemsetAsync(small_data.get(), 0, small_data.bytes(), stream));

  const KernelKind kernels[] = {
      {"empty", [](cudaStream_t s) { launch_empty(s); }},
      {"small", [&](cudaStream_t s) { launch_small(small_data.as<float>(), s); }},
  };

  CsvWriter csv(csv_path(context, "launch"), csv_metadata(context, "launch", kNotes), kColumns);
  for (const KernelKind& kernel : kernels) {
    auto eager = [&] {
      for (int i = 0; i < kItemsPerRep; ++i) kernel.launch(stream);
    };
    write(csv, "eager", kernel.name, measure(stream, warmup, reps, true, eager), reps);
    write(csv, "eager_unqueued", kernel.name, measure(stream, warmup, reps, false, eager), reps);

    const cudaGraphExec_t graph = capture_graph(stream, kernel);
    auto replay = [&] { CUDA_CHECK(cudaGraphLaunch(graph, stream)); };
    write(csv, "graph", kernel.name, measure(stream, warmup, reps, true, replay), reps);
    CUDA_CHECK(cudaGraphExecDestroy(graph));
  }

  cudaEvent_t event = nullptr;
  CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  auto record = [&] {
    for (int i = 0; i < kItemsPerRep; ++i) CUDA_CHECK(cudaEventRecord(event, stream));
  };
  HostGpuUs record_cost = measure(stream, warmup, reps, false, record);
  record_cost.gpu_us_per_item = std::nan("");
  write(csv, "event_record", "none", record_cost, reps);

  auto wait = [&] {
    for (int i = 0; i < kItemsPerRep; ++i) {
      CUDA_CHECK(cudaStreamWaitEvent(other_stream, event, 0));
    }
  };
  HostGpuUs wait_cost = measure(other_stream, warmup, reps, false, wait);
  wait_cost.gpu_us_per_item = std::nan("");
  write(csv, "stream_wait_event", "none", wait_cost, reps);
  std::fprintf(stderr, "launch: done\n");

  csv.finish();
  CUDA_CHECK(cudaEventDestroy(event));
  CUDA_CHECK(cudaStreamDestroy(other_stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
}
