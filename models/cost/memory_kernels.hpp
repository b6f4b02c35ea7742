#pragma once
// Memory-bound and small kernels: bytes, CUDA-core FLOPs, grid size and a minimum latency.
// The named helpers say how many bytes each kernel of a DeepSeek layer moves.
#include <cstdint>
#include <string>

#include "models/cost/kernel_cost.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct MemoryKernelShape {
  std::string name;
  double read_bytes = 0;
  double write_bytes = 0;
  double cuda_core_flops = 0;
  std::int64_t rows = 0;     // row-wise kernels (norms, top-k): at most one CTA per row
  std::int64_t ctas = 0;     // a fixed grid (e.g. 1 for a single-block scan); 0 = sized by bytes
  std::string read_tensor;   // named input for L2 reuse (its bytes are part of read_bytes)
  std::string write_tensor;  // named output (its bytes are part of write_bytes)
};

KernelCost memory_kernel(const HwProfile& hw, const MemoryKernelShape& s);

// Layer kernels (tokens on this GPU; dims as in the model config; BF16 activations).
KernelCost rmsnorm_cost(const HwProfile& hw, std::int64_t tokens, int dim,
                        bool quantize_fp8_out = false);
KernelCost rope_cost(const HwProfile& hw, std::int64_t tokens, int heads, int rope_dim);
KernelCost quantize_fp8_cost(const HwProfile& hw, std::int64_t tokens, int dim);
KernelCost swiglu_cost(const HwProfile& hw, std::int64_t tokens, int inter,
                       bool quantize_fp8_out = true);
KernelCost residual_add_cost(const HwProfile& hw, std::int64_t tokens, int dim);
KernelCost router_topk_cost(const HwProfile& hw, std::int64_t tokens, int experts, int topk);
KernelCost cumsum_cost(const HwProfile& hw, std::int64_t elements);  // one CTA: a single-block scan
KernelCost gather_scatter_cost(const HwProfile& hw, std::int64_t tokens, int dim, double copies,
                               double bytes_per_value);
KernelCost kv_cache_write_cost(const HwProfile& hw, std::int64_t tokens, double bytes_per_token);
// mHC (V4): before a sublayer - FP32 mix projection to (2 + hc) x hc values, Sinkhorn
// normalisation, weighted sum of the hc copies, RMSNorm; after it - recombination.
KernelCost mhc_pre_cost(const HwProfile& hw, std::int64_t tokens, int dim, int hc,
                        int sinkhorn_iters);
KernelCost mhc_post_cost(const HwProfile& hw, std::int64_t tokens, int dim, int hc);
// A fast Walsh-Hadamard transform over `dim` values per row (V4's rotate_activation), BF16 in and
// out: dim x log2(dim) additions per row.
KernelCost hadamard_cost(const HwProfile& hw, std::int64_t rows, int dim);
// Per-row RMSNorm and RoPE on the last `rope_dim` values, fused (V4's fused_q_norm_rope and the
// compressor's fused norm + RoPE), BF16 in and out, `rows` rows of `dim`.
KernelCost norm_rope_cost(const HwProfile& hw, const std::string& name, std::int64_t rows, int dim,
                          int rope_dim);

}  // namespace ovs
