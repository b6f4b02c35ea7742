#include "gemm_plan.hpp"

#include "algo_names.hpp"
#include "check.hpp"

namespace {

// Inside GemmPlan::create: on failure, say which call failed and give up on this problem.
#define RETURN_NULL_IF_FAILED(call, what)                                      \
  do {                                                                         \
    const cublasStatus_t ovs_status_ = (call);                                 \
    if (ovs_status_ != CUBLAS_STATUS_SUCCESS) {                                \
      why_not = std::string(what) + ": " + cublasLtGetStatusName(ovs_status_); \
      return nullptr;                                                          \
    }                                                                          \
  } while (0)

cudaDataType_t cuda_type(GemmDtype dtype) {
  return dtype == GemmDtype::kBf16 ? CUDA_R_16BF : CUDA_R_8F_E4M3;
}

// Column-major rows x cols, leading dimension rows, `batch` matrices rows x cols apart.
cublasStatus_t create_layout(cublasLtMatrixLayout_t* layout, cudaDataType_t type, int64_t rows,
                             int64_t cols, int batch) {
  cublasStatus_t status = cublasLtMatrixLayoutCreate(layout, type, rows, cols, rows);
  if (status != CUBLAS_STATUS_SUCCESS || batch == 1) return status;
  const int32_t batch_count = batch;
  const int64_t batch_stride = rows * cols;
  status = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                            &batch_count, sizeof(batch_count));
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  return cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                          &batch_stride, sizeof(batch_stride));
}

template <class T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr,
              T fallback) {
  T value{};
  size_t written = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof(value), &written);
  return status == CUBLAS_STATUS_SUCCESS && written == sizeof(value) ? value : fallback;
}

}  // namespace

std::string_view dtype_name(GemmDtype dtype) {
  return dtype == GemmDtype::kBf16 ? "bf16" : "fp8_e4m3";
}

size_t dtype_bytes(GemmDtype dtype) {
  return dtype == GemmDtype::kBf16 ? 2 : 1;
}

std::unique_ptr<GemmPlan> GemmPlan::create(cublasLtHandle_t handle, const GemmProblem& problem,
                                           const float* unit_scale, size_t max_workspace_bytes,
                                           std::string& why_not) {
  std::unique_ptr<GemmPlan> plan(new GemmPlan());
  plan->handle_ = handle;
  plan->problem_ = problem;

  RETURN_NULL_IF_FAILED(cublasLtMatmulDescCreate(&plan->op_desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                        "cublasLtMatmulDescCreate");
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  RETURN_NULL_IF_FAILED(cublasLtMatmulDescSetAttribute(plan->op_desc_, CUBLASLT_MATMUL_DESC_TRANSA,
                                                       &transpose, sizeof(transpose)),
                        "CUBLASLT_MATMUL_DESC_TRANSA");
  RETURN_NULL_IF_FAILED(cublasLtMatmulDescSetAttribute(plan->op_desc_, CUBLASLT_MATMUL_DESC_TRANSB,
                                                       &no_transpose, sizeof(no_transpose)),
                        "CUBLASLT_MATMUL_DESC_TRANSB");
  if (problem.dtype == GemmDtype::kFp8E4m3) {
    const void* scale = unit_scale;
    const int8_t fast_accumulation = 1;
    RETURN_NULL_IF_FAILED(
        cublasLtMatmulDescSetAttribute(plan->op_desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale,
                                       sizeof(scale)),
        "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER");
    RETURN_NULL_IF_FAILED(
        cublasLtMatmulDescSetAttribute(plan->op_desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale,
                                       sizeof(scale)),
        "CUBLASLT_MATMUL_DESC_B_SCALE_POINTER");
    RETURN_NULL_IF_FAILED(
        cublasLtMatmulDescSetAttribute(plan->op_desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                       &fast_accumulation, sizeof(fast_accumulation)),
        "CUBLASLT_MATMUL_DESC_FAST_ACCUM");
  }
  if (problem.sm_count_target > 0) {
    const int32_t sm_count = problem.sm_count_target;
    RETURN_NULL_IF_FAILED(
        cublasLtMatmulDescSetAttribute(plan->op_desc_, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET,
                                       &sm_count, sizeof(sm_count)),
        "CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET");
  }

  const cudaDataType_t input_type = cuda_type(problem.dtype);
  RETURN_NULL_IF_FAILED(
      create_layout(&plan->a_layout_, input_type, problem.k, problem.n, problem.batch),
      "layout of w");
  RETURN_NULL_IF_FAILED(
      create_layout(&plan->b_layout_, input_type, problem.k, problem.m, problem.batch),
      "layout of x");
  RETURN_NULL_IF_FAILED(
      create_layout(&plan->d_layout_, CUDA_R_16BF, problem.n, problem.m, problem.batch),
      "layout of y");

  cublasLtMatmulPreference_t preference = nullptr;
  RETURN_NULL_IF_FAILED(cublasLtMatmulPreferenceCreate(&preference),
                        "cublasLtMatmulPreferenceCreate");
  const uint64_t workspace_limit = max_workspace_bytes;
  cublasStatus_t status =
      cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &workspace_limit, sizeof(workspace_limit));
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  if (status == CUBLAS_STATUS_SUCCESS) {
    status = cublasLtMatmulAlgoGetHeuristic(handle, plan->op_desc_, plan->a_layout_,
                                            plan->b_layout_, plan->d_layout_, plan->d_layout_,
                                            preference, 1, &result, &returned);
  }
  cublasLtMatmulPreferenceDestroy(preference);
  RETURN_NULL_IF_FAILED(status, "cublasLtMatmulAlgoGetHeuristic");
  if (returned == 0 || result.state != CUBLAS_STATUS_SUCCESS) {
    why_not = "cublasLtMatmulAlgoGetHeuristic: no algorithm";
    return nullptr;
  }

  plan->algo_ = result.algo;
  GemmAlgoInfo& info = plan->algo_info_;
  info.algo_id = algo_config<int32_t>(result.algo, CUBLASLT_ALGO_CONFIG_ID, -1);
  info.tile = tile_name(algo_config<uint32_t>(result.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, 0));
  info.cluster_shape = cluster_shape_name(
      algo_config<uint16_t>(result.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, 0));
  info.splitk = algo_config<int32_t>(result.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 1);
  info.stages_id =
      static_cast<int>(algo_config<uint32_t>(result.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, 0));
  info.waves = result.wavesCount;
  info.workspace_bytes = result.workspaceSize;
  return plan;
}

GemmPlan::~GemmPlan() {
  if (d_layout_) cublasLtMatrixLayoutDestroy(d_layout_);
  if (b_layout_) cublasLtMatrixLayoutDestroy(b_layout_);
  if (a_layout_) cublasLtMatrixLayoutDestroy(a_layout_);
  if (op_desc_) cublasLtMatmulDescDestroy(op_desc_);
}

void GemmPlan::run(const GemmOperands& operands, cudaStream_t stream) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(handle_, op_desc_, &alpha, operands.weights, a_layout_,
                              operands.activations, b_layout_, &beta, operands.output, d_layout_,
                              operands.output, d_layout_, &algo_, operands.workspace,
                              operands.workspace_bytes, stream));
}
