// gemm family: cuBLASLt BF16 and FP8 over every DeepSeek-V3/V4 linear layer (gemm_shapes.hpp)
// for M in kGemmTokenCounts, with all SMs and with CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET.

#include <algorithm>
#include <cstdio>
#include <map>

#include "bench_context.hpp"
#include "csv_writer.hpp"
#include "device_buffer.hpp"
#include "gemm_plan.hpp"
#include "gemm_shapes.hpp"
#include "l2_flusher.hpp"
#include "memory_kernels.hpp"
#include "timing.hpp"

namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // cuBLAS's recommendation for Hopper

const std::vector<std::string> kColumns = {
    "models",    "op",     "dtype",           "m",
    "n",         "k",      "batch",           "sm_count_target",
    "time_us",   "tflops", "min_bytes",       "gbps",
    "algo_id",   "tile",   "cluster_shape",   "splitk",
    "stages_id", "waves",  "workspace_bytes", "reps"};

const std::vector<std::string> kNotes = {
    "y[M,N] = x[M,K] * w[N,K]^T, row-major (PyTorch Linear); cuBLASLt TN GEMM with cuBLAS "
    "m=N n=M k=K; FP32 accumulation; y is BF16; beta = 0",
    "fp8_e4m3: w and x e4m3 with per-tensor scales of 1.0 (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER) "
    "and CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1; DeepSeek's 1x128 / 128x128 block scales "
    "(DeepGEMM) are not reproduced",
    "batch > 1: strided batched GEMM, one w, x and y per group (grouped wo_a)",
    "algorithm: the top-1 of cublasLtMatmulAlgoGetHeuristic with a 32 MiB workspace",
    "each repetition: L2 flushed (a write of 2x the L2 size), then one GEMM between CUDA events; "
    "time_us is the median",
    "inputs: uniform random values (BF16 in [-1,1], e4m3 in [-2,2])",
    "sm_count_target 0: attribute not set (cuBLASLt uses every SM)",
};

std::vector<int> sm_count_targets(const DeviceInfo& device) {
  std::vector<int> targets = {0};
  for (int sms : kGemmSmCountTargets) {
    if (sms <= device.sm_count) targets.push_back(sms);
  }
  return targets;
}

// The largest w, x and y over the grid, at 2 bytes per element (FP8 uses half of each).
struct PoolBytes {
  size_t weights = 0;
  size_t activations = 0;
  size_t output = 0;
};

PoolBytes pool_bytes() {
  PoolBytes bytes;
  for (const GemmShape& shape : kGemmShapes) {
    for (int64_t m : kGemmTokenCounts) {
      const GemmProblem problem{m, shape.n, shape.k, shape.batch, GemmDtype::kBf16, 0};
      bytes.weights = std::max(bytes.weights, problem.weight_bytes());
      bytes.activations = std::max(bytes.activations, problem.activation_bytes());
      bytes.output = std::max(bytes.output, problem.output_bytes());
    }
  }
  return bytes;
}

}  // namespace

void run_gemm_family(const BenchContext& context) {
  const BenchOptions& options = context.options;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasLtHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasLtCreate(&handle));

  const PoolBytes pool = pool_bytes();
  DeviceBuffer weights(pool.weights);
  DeviceBuffer activations(pool.activations);
  DeviceBuffer output(pool.output);
  DeviceBuffer workspace(kWorkspaceBytes);
  DeviceBuffer unit_scale(sizeof(float));
  fill_float(unit_scale.as<float>(), 1, 1.0f, stream);
  const L2Flusher flusher(context.device);
  const GemmOperands operands{weights.get(), activations.get(), output.get(), workspace.get(),
                              kWorkspaceBytes};

  CsvWriter csv(csv_path(context, "gemm"), csv_metadata(context, "gemm", kNotes), kColumns);
  std::map<std::string, int> skipped;  // reason -> count
  const std::vector<int> targets = sm_count_targets(context.device);

  for (GemmDtype dtype : {GemmDtype::kBf16, GemmDtype::kFp8E4m3}) {
    const size_t element_bytes = dtype_bytes(dtype);
    if (dtype == GemmDtype::kBf16) {
      fill_random_bf16(weights.get(), pool.weights / element_bytes, 1, stream);
      fill_random_bf16(activations.get(), pool.activations / element_bytes, 2, stream);
    } else {
      fill_random_e4m3(weights.get(), pool.weights / element_bytes, 1, stream);
      fill_random_e4m3(activations.get(), pool.activations / element_bytes, 2, stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    for (const GemmShape& shape : kGemmShapes) {
      const double shape_start_us = host_now_us();
      for (int64_t m : kGemmTokenCounts) {
        for (int sm_target : targets) {
          const GemmProblem problem{m, shape.n, shape.k, shape.batch, dtype, sm_target};
          std::string why_not;
          const auto plan =
              GemmPlan::create(handle, problem, unit_scale.as<float>(), kWorkspaceBytes, why_not);
          if (!plan) {
            if (skipped[why_not]++ == 0) {
              std::fprintf(stderr,
                           "gemm: skipping %s m=%lld n=%lld k=%lld batch=%d sm_target=%d: %s "
                           "(reported once per reason)\n",
                           std::string(dtype_name(dtype)).c_str(), static_cast<long long>(m),
                           static_cast<long long>(shape.n), static_cast<long long>(shape.k),
                           shape.batch, sm_target, why_not.c_str());
            }
            continue;
          }
          const std::vector<double> times_us = time_reps_us(
              stream, options.warmup, options.reps, [&] { flusher.flush(stream); },
              [&] { plan->run(operands, stream); });
          const double time_us = median(times_us);
          const GemmAlgoInfo& algo = plan->algo_info();
          csv.write_row({cell(shape.models),
                         cell(shape.op),
                         cell(dtype_name(dtype)),
                         cell(m),
                         cell(shape.n),
                         cell(shape.k),
                         cell(shape.batch),
                         cell(sm_target),
                         cell(time_us),
                         cell(problem.flops() / time_us * 1e-6, 2),
                         cell(problem.min_bytes()),
                         cell(problem.min_bytes() / time_us * 1e-3, 1),
                         cell(algo.algo_id),
                         cell(algo.tile),
                         cell(algo.cluster_shape),
                         cell(algo.splitk),
                         cell(algo.stages_id),
                         cell(algo.waves, 3),
                         cell(algo.workspace_bytes),
                         cell(options.reps)});
        }
      }
      std::fprintf(stderr, "gemm: %s %s %s n=%lld k=%lld batch=%d done (%.1f s)\n",
                   std::string(dtype_name(dtype)).c_str(), shape.models, shape.op,
                   static_cast<long long>(shape.n), static_cast<long long>(shape.k), shape.batch,
                   (host_now_us() - shape_start_us) * 1e-6);
    }
  }
  for (const auto& [reason, count] : skipped) {
    std::fprintf(stderr, "gemm: skipped %d problems: %s\n", count, reason.c_str());
  }
  csv.finish();
  CUBLAS_CHECK(cublasLtDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
}
