// concurrency family: two workloads on two streams, each alone and both together: how much
// running side by side costs (or saves) against running one after the other.

#include <cstdio>
#include <functional>
#include <memory>

#include "bench_context.hpp"
#include "compute_kernels.hpp"
#include "csv_writer.hpp"
#include "device_buffer.hpp"
#include "gemm_plan.hpp"
#include "l2_flusher.hpp"
#include "launch_kernels.hpp"
#include "memory_kernels.hpp"
#include "timing.hpp"

namespace {

constexpr uint64_t kSpinNs = 2'000'000;  // the host queues both workloads meanwhile
constexpr size_t kCopyBytes = size_t{1} << 30;
constexpr size_t kFixedReadBytes = size_t{1} << 30;
constexpr int kFixedSms = 20;  // DeepEP normal mode's SMs
constexpr int kTinyKernels = 200;
constexpr int64_t kGemmM = 4096, kGemmN = 7168, kGemmK = 7168;
constexpr double kFmaFlops = 32e9;  // the name says it: fma_32gflop
constexpr size_t kHalfReadBytes = size_t{1} << 30;
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

const std::vector<std::string> kColumns = {"pair",
                                           "a",
                                           "b",
                                           "alone_a_us",
                                           "alone_b_us",
                                           "together_us",
                                           "a_done_us",
                                           "b_done_us",
                                           "reps",
                                           "a_cta_threads",
                                           "a_cta_registers",
                                           "a_cta_shared_bytes",
                                           "b_cta_threads",
                                           "b_cta_registers",
                                           "b_cta_shared_bytes"};

const std::vector<std::string> kNotes = {
    "gemm_bf16: cuBLASLt BF16 y[4096,7168] = x[4096,7168] * w[7168,7168]^T (0.42 TFLOP), "
    "heuristic top-1; gemm_bf16_smtarget<S>: the same with CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET=S",
    "copy_1gib: 1 GiB copied to another 1 GiB buffer, 2048 threads per SM on every SM",
    "tiny_x200: 200 launches of <<<256, 256>>> x = x * 1.0001 + 0.5 over 65536 floats",
    "fixed20_read_1gib: persistent read kernel on exactly 20 SMs (20 CTAs, one per SM, each "
    "looping over its share of a 1 GiB buffer), like DeepEP's communication kernels",
    "fma_32gflop: 32e9 FP32 FLOPs of register-only FMAs (8 independent chains per thread), one "
    "CTA of 512 threads per SM on every SM, no shared memory: compute-bound, and leaves room "
    "for CTAs of another kernel on each SM",
    "half_read_1gib: 1 GiB read by one CTA of 1024 threads per SM on every SM, no shared memory "
    "(half an SM's threads): memory-bound, and fits beside an fma_32gflop CTA",
    "fma+fma, fma+half_read, half_read+half_read: kernels whose CTAs share every SM "
    "(co-resident), for the issue and bandwidth sharing of co-resident CTAs",
    "each repetition: L2 flushed, then a 2 ms spin kernel holds the streams while the host queues "
    "the work, so both workloads are fully queued when they start; together: a is issued first "
    "on stream 1, b on stream 2 (waiting on the start event); each workload owns its buffers",
    "a_cta_* / b_cta_*: one CTA of the workload's kernel (threads, registers per thread and "
    "shared bytes from cudaFuncGetAttributes); empty for cuBLASLt's GEMM, whose kernel is not "
    "ours to query",
    "alone_*_us: median time of the workload alone; together_us: median time from the common "
    "start until both are done; a_done_us / b_done_us: medians from the common start to each "
    "one's end in the together runs",
};

struct Workload {
  std::string name;
  std::function<void(cudaStream_t)> enqueue;
  CtaFootprint cta{};  // threads 0: not known
};

// A BF16 GEMM with its own operands.
struct GemmResources {
  DeviceBuffer weights, activations, output, workspace;
  std::unique_ptr<GemmPlan> plan;
};

std::unique_ptr<GemmResources> make_gemm(cublasLtHandle_t handle, int sm_count_target,
                                         cudaStream_t stream) {
  const GemmProblem problem{kGemmM, kGemmN, kGemmK, 1, GemmDtype::kBf16, sm_count_target};
  auto gemm = std::make_unique<GemmResources>();
  gemm->weights = DeviceBuffer(problem.weight_bytes());
  gemm->activations = DeviceBuffer(problem.activation_bytes());
  gemm->output = DeviceBuffer(problem.output_bytes());
  gemm->workspace = DeviceBuffer(kWorkspaceBytes);
  fill_random_bf16(gemm->weights.get(), problem.weight_bytes() / 2, 11, stream);
  fill_random_bf16(gemm->activations.get(), problem.activation_bytes() / 2, 12, stream);
  std::string why_not;
  gemm->plan = GemmPlan::create(handle, problem, nullptr, kWorkspaceBytes, why_not);
  if (!gemm->plan) {
    std::fprintf(stderr, "concurrency: no GEMM with sm_count_target=%d: %s\n", sm_count_target,
                 why_not.c_str());
    return nullptr;
  }
  return gemm;
}

Workload gemm_workload(const std::string& name, const GemmResources& gemm) {
  return {name, [&gemm](cudaStream_t stream) {
            gemm.plan->run({gemm.weights.get(), gemm.activations.get(), gemm.output.get(),
                            gemm.workspace.get(), kWorkspaceBytes},
                           stream);
          }};
}

struct PairResult {
  double together_us, a_done_us, b_done_us;
};

double time_alone_us(const BenchContext& context, const L2Flusher& flusher, const Workload& work,
                     cudaStream_t stream) {
  return median(time_reps_us(
      stream, context.options.warmup, context.options.reps,
      [&] {
        flusher.flush(stream);
        launch_spin(kSpinNs, stream);
        CUDA_CHECK_LAUNCH();
      },
      [&] { work.enqueue(stream); }));
}

PairResult time_together(const BenchContext& context, const L2Flusher& flusher, const Workload& a,
                         const Workload& b, cudaStream_t stream_a, cudaStream_t stream_b) {
  const int warmup = context.options.warmup;
  const int reps = context.options.reps;
  EventPairs a_events(warmup + reps);  // (common start, end of a)
  EventPairs b_events(warmup + reps);  // only the stops: end of b
  for (int i = 0; i < warmup + reps; ++i) {
    // Nothing of this repetition may start before b of the previous one is done.
    if (i > 0) CUDA_CHECK(cudaStreamWaitEvent(stream_a, b_events.stop(i - 1), 0));
    flusher.flush(stream_a);
    launch_spin(kSpinNs, stream_a);
    CUDA_CHECK_LAUNCH();
    a_events.record_start(i, stream_a);
    CUDA_CHECK(cudaStreamWaitEvent(stream_b, a_events.start(i), 0));
    a.enqueue(stream_a);
    b.enqueue(stream_b);
    a_events.record_stop(i, stream_a);
    b_events.record_stop(i, stream_b);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> together, a_done, b_done;
  for (int i = warmup; i < warmup + reps; ++i) {
    const double a_us = a_events.elapsed_us(i);
    const double b_us = elapsed_us(a_events.start(i), b_events.stop(i));
    a_done.push_back(a_us);
    b_done.push_back(b_us);
    together.push_back(std::max(a_us, b_us));
  }
  return {median(together), median(a_done), median(b_done)};
}

}  // namespace

void run_concurrency_family(const BenchContext& context) {
  const DeviceInfo& device = context.device;
  cudaStream_t stream_a = nullptr;
  cudaStream_t stream_b = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
  cublasLtHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasLtCreate(&handle));
  const L2Flusher flusher(device);

  const Grid full_grid = full_device_grid(device);
  const Grid fixed_grid = one_cta_per_sm_grid(device, kFixedSms);
  DeviceBuffer copy1_src(kCopyBytes), copy1_dst(kCopyBytes);
  DeviceBuffer copy2_src(kCopyBytes), copy2_dst(kCopyBytes);
  DeviceBuffer fixed_src(kFixedReadBytes);
  DeviceBuffer tiny_data(sizeof(float) * kSmallKernelElements);
  DeviceBuffer half1_src(kHalfReadBytes), half2_src(kHalfReadBytes);
  for (const DeviceBuffer* buffer :
       {&copy1_src, &copy1_dst, &copy2_src, &copy2_dst, &fixed_src, &half1_src, &half2_src}) {
    launch_write(buffer->get(), buffer->bytes(), full_grid, stream_a);
  }
  CUDA_CHECK(cudaMemsetAsync(tiny_data.get(), 0, tiny_data.bytes(), stream_a));

  const auto gemm1 = make_gemm(handle, 0, stream_a);
  const auto gemm2 = make_gemm(handle, 0, stream_a);
  const int limited_sms = device.sm_count - kFixedSms;
  const auto gemm_limited = make_gemm(handle, limited_sms, stream_a);
  CUDA_CHECK(cudaStreamSynchronize(stream_a));
  if (!gemm1 || !gemm2) {
    std::fprintf(stderr, "concurrency: cuBLASLt has no BF16 GEMM here; nothing measured\n");
    std::exit(1);
  }

  const Workload gemm_a = gemm_workload("gemm_bf16", *gemm1);
  const Workload gemm_b = gemm_workload("gemm_bf16", *gemm2);
  const CtaFootprint copy_cta = copy_footprint(full_grid);
  const CtaFootprint small_cta{kSmallKernelThreadsPerCta, small_kernel_registers(), 0};
  const CtaFootprint fixed_cta = read_footprint(fixed_grid);
  const Workload copy_a = {"copy_1gib",
                           [&](cudaStream_t s) {
                             launch_copy(copy1_dst.get(), copy1_src.get(), kCopyBytes, full_grid,
                                         s);
                           },
                           copy_cta};
  const Workload copy_b = {"copy_1gib",
                           [&](cudaStream_t s) {
                             launch_copy(copy2_dst.get(), copy2_src.get(), kCopyBytes, full_grid,
                                         s);
                           },
                           copy_cta};
  const Workload tiny = {"tiny_x200",
                         [&](cudaStream_t s) {
                           for (int i = 0; i < kTinyKernels; ++i) {
                             launch_small(tiny_data.as<float>(), s);
                           }
                           CUDA_CHECK_LAUNCH();
                         },
                         small_cta};
  const Workload fixed = {
      "fixed20_read_1gib",
      [&](cudaStream_t s) { launch_read(fixed_src.get(), kFixedReadBytes, fixed_grid, s); },
      fixed_cta};

  const Grid fma_cta_grid = fma_grid(device);
  const int64_t fma_iters = fma_iterations(kFmaFlops, fma_cta_grid);
  const Workload fma = {"fma_32gflop",
                        [&](cudaStream_t s) { launch_fma(fma_iters, fma_cta_grid, s); },
                        fma_footprint(fma_cta_grid)};
  const Grid half_grid{device.sm_count, 1024, 0};
  const Workload half_read_a = {
      "half_read_1gib",
      [&](cudaStream_t s) { launch_read(half1_src.get(), kHalfReadBytes, half_grid, s); },
      read_footprint(half_grid)};
  const Workload half_read_b = {
      "half_read_1gib",
      [&](cudaStream_t s) { launch_read(half2_src.get(), kHalfReadBytes, half_grid, s); },
      read_footprint(half_grid)};

  struct Pair {
    const char* name;
    const Workload* a;
    const Workload* b;
  };
  std::vector<Pair> pairs = {
      {"gemm+copy", &gemm_a, &copy_a},
      {"gemm+gemm", &gemm_a, &gemm_b},
      {"copy+copy", &copy_a, &copy_b},
      {"gemm+tiny", &gemm_a, &tiny},
      {"gemm+fixed20", &gemm_a, &fixed},
      {"fixed20+gemm", &fixed, &gemm_a},
      {"fma+fma", &fma, &fma},
      {"fma+half_read", &fma, &half_read_a},
      {"half_read+half_read", &half_read_a, &half_read_b},
  };
  Workload gemm_sm_limited;
  if (gemm_limited) {
    gemm_sm_limited =
        gemm_workload("gemm_bf16_smtarget" + std::to_string(limited_sms), *gemm_limited);
    pairs.push_back({"fixed20+gemm_smtarget", &fixed, &gemm_sm_limited});
  }

  CsvWriter csv(csv_path(context, "concurrency"), csv_metadata(context, "concurrency", kNotes),
                kColumns);
  for (const Pair& pair : pairs) {
    const double alone_a_us = time_alone_us(context, flusher, *pair.a, stream_a);
    const double alone_b_us = time_alone_us(context, flusher, *pair.b, stream_b);
    const PairResult together =
        time_together(context, flusher, *pair.a, *pair.b, stream_a, stream_b);
    auto cta_cells = [](const CtaFootprint& f) -> std::vector<std::string> {
      if (f.threads <= 0) return {"", "", ""};
      return {cell(f.threads), cell(f.registers_per_thread),
              cell(static_cast<int64_t>(f.shared_bytes))};
    };
    std::vector<std::string> row = {
        cell(pair.name),          cell(pair.a->name),       cell(pair.b->name),
        cell(alone_a_us),         cell(alone_b_us),         cell(together.together_us),
        cell(together.a_done_us), cell(together.b_done_us), cell(context.options.reps)};
    for (const auto* w : {pair.a, pair.b})
      for (auto& c : cta_cells(w->cta)) row.push_back(std::move(c));
    csv.write_row(row);
    std::fprintf(stderr, "concurrency: %s done\n", pair.name);
  }
  csv.finish();
  CUBLAS_CHECK(cublasLtDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream_b));
  CUDA_CHECK(cudaStreamDestroy(stream_a));
}
