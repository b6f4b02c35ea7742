#include "models/cost/memory_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace ovs {

KernelCost memory_kernel(const HwProfile& hw, const MemoryKernelShape& s) {
  if (s.read_bytes < 0 || s.write_bytes < 0 || s.cuda_core_flops < 0)
    throw InputError("", 0, s.name, "bytes and FLOPs must be >= 0");
  const MemoryKernelParams& p = hw.kernels.memory;
  KernelCost c;
  c.name = s.name;
  c.category = KernelCategory::memory;
  Work& w = c.work;
  const double bytes = s.read_bytes + s.write_bytes;
  std::int64_t ctas = s.ctas;
  if (ctas <= 0) {
    // Grid-stride kernels stop growing the grid once every SM is full; row-wise kernels have at
    // most one CTA per row. Capped in floating point before the cast (bytes may be huge).
    double cap = double(hw.engine.sm_count) * p.ctas_per_sm;
    if (s.rows > 0) cap = std::min(cap, double(s.rows));
    ctas =
        static_cast<std::int64_t>(std::max(1.0, std::min(std::ceil(bytes / p.bytes_per_cta), cap)));
  }
  w.ctas = ctas;
  w.ctas_per_sm = p.ctas_per_sm;
  w.cta.threads = p.cta_threads;
  w.cta.registers_per_thread = p.cta_registers_per_thread;
  w.cuda_core_flops = s.cuda_core_flops;
  w.fixed_latency_us = p.kernel_min_us;
  double plain_read = s.read_bytes, plain_write = s.write_bytes;
  if (!s.read_tensor.empty()) {
    w.reads.push_back({s.read_tensor, s.read_bytes});
    plain_read = 0;
  }
  if (!s.write_tensor.empty()) {
    w.writes.push_back({s.write_tensor, s.write_bytes});
    plain_write = 0;
  }
  w.hbm_bytes = plain_read + plain_write;
  c.logical_bytes = bytes;
  c.useful_flops = s.cuda_core_flops;
  return c;
}

namespace {
KernelCost named(const HwProfile& hw, MemoryKernelShape s) {
  return memory_kernel(hw, s);
}
}  // namespace

KernelCost rmsnorm_cost(const HwProfile& hw, std::int64_t tokens, int dim, bool quantize_fp8_out) {
  const double n = double(tokens) * dim;
  return named(hw, {"rmsnorm",
                    2 * n,
                    quantize_fp8_out ? n + tokens * std::ceil(dim / 128.0) * 4 : 2 * n,
                    4 * n,
                    tokens,
                    0,
                    {},
                    {}});
}

KernelCost rope_cost(const HwProfile& hw, std::int64_t tokens, int heads, int rope_dim) {
  const double n = double(tokens) * heads * rope_dim;
  return named(hw, {"rope", 2 * n, 2 * n, 6 * n, 0, 0, {}, {}});
}

KernelCost quantize_fp8_cost(const HwProfile& hw, std::int64_t tokens, int dim) {
  const double n = double(tokens) * dim;
  return named(
      hw,
      {"quantize_fp8", 2 * n, n + tokens * std::ceil(dim / 128.0) * 4, 3 * n, tokens, 0, {}, {}});
}

KernelCost swiglu_cost(const HwProfile& hw, std::int64_t tokens, int inter, bool quantize_fp8_out) {
  const double n = double(tokens) * inter;
  return named(hw, {"swiglu",
                    2 * 2 * n,
                    quantize_fp8_out ? n + tokens * std::ceil(inter / 128.0) * 4 : 2 * n,
                    8 * n,
                    0,
                    0,
                    {},
                    {}});
}

KernelCost residual_add_cost(const HwProfile& hw, std::int64_t tokens, int dim) {
  const double n = double(tokens) * dim;
  return named(hw, {"residual_add", 4 * n, 2 * n, n, 0, 0, {}, {}});
}

KernelCost router_topk_cost(const HwProfile& hw, std::int64_t tokens, int experts, int topk) {
  const double n = double(tokens) * experts;
  // FP32 scores in, indices and weights out; a handful of passes per score.
  return named(hw, {"router_topk", 4 * n, double(tokens) * topk * 8, 8 * n, tokens, 0, {}, {}});
}

KernelCost cumsum_cost(const HwProfile& hw, std::int64_t elements) {
  const double n = double(elements);
  return named(hw, {"cumsum", 4 * n, 4 * n, 2 * n, 0, 1, {}, {}});
}

KernelCost gather_scatter_cost(const HwProfile& hw, std::int64_t tokens, int dim, double copies,
                               double bytes_per_value) {
  const double n = double(tokens) * dim * bytes_per_value;
  return named(hw, {"gather_scatter", n * std::max(1.0, copies), n * copies, 0, 0, 0, {}, {}});
}

KernelCost kv_cache_write_cost(const HwProfile& hw, std::int64_t tokens, double bytes_per_token) {
  const double n = double(tokens) * bytes_per_token;
  return named(hw, {"kv_cache_write", 2 * n, n, 2 * n, tokens, 0, {}, {}});
}

KernelCost mhc_pre_cost(const HwProfile& hw, std::int64_t tokens, int dim, int hc,
                        int sinkhorn_iters) {
  const double t = double(tokens), wide = double(hc) * dim;
  const double mixes = double(2 + hc) * hc;
  // Two passes over the hc copies (projection, then the weighted sum), one normalised output.
  const double read = 2 * t * wide * 2 + mixes * wide * 4;
  const double write = t * dim * 2;
  const double flops =
      2 * t * wide * mixes + t * sinkhorn_iters * hc * hc * 4.0 + t * wide * 2 + 4 * t * dim;
  // The grid is sized by bytes, not capped at one CTA per token: the mixing weights (read once,
  // whatever the batch) are split over CTAs along the hc x dim axis, so a decode batch of a few
  // tokens still spreads the kernel over many SMs. (Capped per token, 8 tokens held one SM and the
  // layer got faster when the batch doubled.)
  return named(hw, {"mhc_pre", read, write, flops, 0, 0, {}, {}});
}

KernelCost mhc_post_cost(const HwProfile& hw, std::int64_t tokens, int dim, int hc) {
  const double t = double(tokens), wide = double(hc) * dim;
  const double read = t * dim * 2 + t * wide * 2;
  const double write = t * wide * 2;
  const double flops = t * wide * (2.0 + 2.0 * hc);
  return named(hw, {"mhc_post", read, write, flops, tokens, 0, {}, {}});
}

KernelCost hadamard_cost(const HwProfile& hw, std::int64_t rows, int dim) {
  const double n = double(rows) * dim;
  return named(hw, {"hadamard", 2 * n, 2 * n, n * std::log2(std::max(2, dim)), rows, 0, {}, {}});
}

KernelCost norm_rope_cost(const HwProfile& hw, const std::string& name, std::int64_t rows, int dim,
                          int rope_dim) {
  const double n = double(rows) * dim;
  return named(hw, {name, 2 * n, 2 * n, 4 * n + 6.0 * rows * rope_dim, rows, 0, {}, {}});
}

}  // namespace ovs
