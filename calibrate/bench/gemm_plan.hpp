#pragma once
// One cuBLASLt matmul, y[M, N] = x[M, K] * w[N, K]^T with row-major x, w and y (PyTorch's
// Linear), planned once (descriptors + the heuristic's top algorithm) and run many times.
// In cuBLAS's column-major terms this is the "TN" GEMM D[N x M] = op(A)[N x K] * B[K x M] with
// A = w (transposed), B = x, D = y: m = N, n = M, k = K. FP8 on Hopper requires exactly this
// TN layout. Batched problems use strided batches (one w, x and y per batch entry).

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

enum class GemmDtype { kBf16, kFp8E4m3 };

std::string_view dtype_name(GemmDtype dtype);  // "bf16", "fp8_e4m3"
size_t dtype_bytes(GemmDtype dtype);           // of w and x; y is always BF16

struct GemmProblem {
  int64_t m = 0;  // tokens
  int64_t n = 0;  // output features
  int64_t k = 0;  // input features
  int batch = 1;
  GemmDtype dtype = GemmDtype::kBf16;
  int sm_count_target = 0;  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET; 0 = not set (all SMs)

  int64_t flops() const { return 2 * m * n * k * batch; }
  // Each operand once: w + x in dtype, y in BF16.
  int64_t min_bytes() const {
    return batch * ((n * k + m * k) * static_cast<int64_t>(dtype_bytes(dtype)) + m * n * 2);
  }
  size_t weight_bytes() const { return batch * n * k * dtype_bytes(dtype); }
  size_t activation_bytes() const { return batch * m * k * dtype_bytes(dtype); }
  size_t output_bytes() const { return batch * m * n * 2; }
};

// What the heuristic chose (cublasLtMatmulAlgoConfigGetAttribute and the heuristic result).
struct GemmAlgoInfo {
  int algo_id = -1;
  std::string tile;           // cuBLAS m x n of one CTA tile: m runs along N, n along M
  std::string cluster_shape;  // thread-block cluster, "auto" when the kernel decides
  int splitk = 1;
  int stages_id = 0;
  double waves = 0.0;  // cublasLtMatmulHeuristicResult_t::wavesCount
  size_t workspace_bytes = 0;
};

struct GemmOperands {
  const void* weights = nullptr;      // w, batch x N x K
  const void* activations = nullptr;  // x, batch x M x K
  void* output = nullptr;             // y, batch x M x N, BF16
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

class GemmPlan {
 public:
  // Null, with `why_not` set, when cuBLASLt rejects the problem (an attribute this version does
  // not support, or no algorithm for it). `unit_scales` is a device float 1.0 that FP8 uses as
  // the per-tensor scale of w and x (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER).
  static std::unique_ptr<GemmPlan> create(cublasLtHandle_t handle, const GemmProblem& problem,
                                          const float* unit_scale, size_t max_workspace_bytes,
                                          std::string& why_not);
  ~GemmPlan();
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  void run(const GemmOperands& operands, cudaStream_t stream) const;
  const GemmProblem& problem() const { return problem_; }
  const GemmAlgoInfo& algo_info() const { return algo_info_; }

 private:
  GemmPlan() = default;

  cublasLtHandle_t handle_ = nullptr;
  GemmProblem problem_;
  cublasLtMatmulDesc_t op_desc_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr;
  cublasLtMatrixLayout_t b_layout_ = nullptr;
  cublasLtMatrixLayout_t d_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  GemmAlgoInfo algo_info_;
};
