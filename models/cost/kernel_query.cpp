#include "models/cost/kernel_query.hpp"

#include "models/cost/memory_kernels.hpp"
#include "sim/core/error.hpp"

namespace ovs {
namespace {

int rope_dim(const ModelConfig& m) {
  return m.family == ModelFamily::v4 ? m.rope_dim : m.qk_rope_head_dim;
}

// The decode attention's head dims: MLA absorbed (V3) attends over the latent plus the RoPE part
// and returns the latent; V4's single KV head has one head_dim for both.
int decode_d_qk(const ModelConfig& m) {
  return m.family == ModelFamily::v4 ? m.head_dim : m.kv_lora_rank + m.qk_rope_head_dim;
}
int decode_d_v(const ModelConfig& m) {
  return m.family == ModelFamily::v4 ? m.head_dim : m.kv_lora_rank;
}

std::vector<KernelCost> deepep(const HwProfile& hw, const ModelConfig& m, const DeepepQuery& q,
                               int sms) {
  DeepepShape s;
  s.mode = q.mode;
  s.op = q.op;
  s.tokens = q.tokens;
  s.hidden = q.hidden.value_or(m.hidden);
  s.routing = {q.experts.value_or(m.routed_experts),
               q.topk.value_or(m.topk),
               q.expert_groups,
               q.topk_groups,
               q.ep,
               gpus_per_node_or_domain(hw, q.gpus_per_node)};
  s.num_sms = sms;
  return deepep_cost(hw, s).kernels;
}

KernelCost attention(const HwProfile& hw, const ModelConfig& m, const AttentionQuery& q) {
  AttentionShape s;
  s.kind = q.kind;
  s.batch = q.batch;
  s.q_len = q.q_len;
  s.kv_len = q.kv_len;
  s.heads = q.heads.value_or(m.heads);
  s.d_qk = q.d_qk.value_or(decode_d_qk(m));
  s.d_v = q.d_v.value_or(decode_d_v(m));
  s.topk = q.topk;
  s.kv_bytes_per_token = q.kv_dtype == Dtype::fp8 ? m.kv_bytes_per_token : 2.0 * s.d_qk;
  return attention_cost(hw, s);
}

KernelCost memory(const HwProfile& hw, const ModelConfig& m, const MemoryQuery& q) {
  const int dim = q.dim.value_or(m.hidden);
  const int topk = q.topk.value_or(m.topk);
  auto mhc = [&] {
    if (m.hc_mult <= 0)
      throw InputError(m.file, 0, "hc_mult",
                       "model " + m.name + " has no mHC (give a V4 model with --model)");
    return m.hc_mult;
  };
  switch (q.op) {
    case MemoryOp::rmsnorm:
      return rmsnorm_cost(hw, q.tokens, dim);
    case MemoryOp::rope:
      return rope_cost(hw, q.tokens, q.heads.value_or(m.heads), rope_dim(m));
    case MemoryOp::quantize:
      return quantize_fp8_cost(hw, q.tokens, dim);
    case MemoryOp::swiglu:
      return swiglu_cost(hw, q.tokens, dim);
    case MemoryOp::residual_add:
      return residual_add_cost(hw, q.tokens, dim);
    case MemoryOp::router_topk:
      return router_topk_cost(hw, q.tokens, q.experts.value_or(m.routed_experts), topk);
    case MemoryOp::cumsum:
      return cumsum_cost(hw, q.tokens);
    case MemoryOp::kv_write:
      return kv_cache_write_cost(hw, q.tokens, m.kv_bytes_per_token);
    case MemoryOp::mhc_pre:
      return mhc_pre_cost(hw, q.tokens, dim, mhc(), m.sinkhorn_iters);
    case MemoryOp::mhc_post:
      return mhc_post_cost(hw, q.tokens, dim, mhc());
    case MemoryOp::gather:
      // FP8 values, one copy per expert a token goes to.
      return gather_scatter_cost(hw, q.tokens, dim, topk, 1.0);
  }
  return {};
}

}  // namespace

const std::vector<std::string>& memory_op_names() {
  static const std::vector<std::string> names{"rmsnorm",      "rope",        "quantize", "swiglu",
                                              "residual_add", "router_topk", "cumsum",   "kv_write",
                                              "mhc_pre",      "mhc_post",    "gather"};
  return names;
}

std::optional<MemoryOp> memory_op_named(std::string_view name) {
  const auto& names = memory_op_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<MemoryOp>(i);
  return std::nullopt;
}

std::string default_model_for(const KernelQuery& q) {
  if (const auto* mq = std::get_if<MemoryQuery>(&q))
    if (mq->op == MemoryOp::mhc_pre || mq->op == MemoryOp::mhc_post) return "deepseek-v4-pro";
  return "deepseek-v3";
}

std::vector<KernelCost> kernel_costs(const HwProfile& hw, const ModelConfig& model,
                                     const KernelQuery& q, int sms) {
  if (const auto* g = std::get_if<GemmQuery>(&q)) return {gemm_cost(hw, g->shape, sms)};
  if (const auto* d = std::get_if<DeepepQuery>(&q)) return deepep(hw, model, *d, sms);
  KernelCost c = std::holds_alternative<AttentionQuery>(q)
                     ? attention(hw, model, std::get<AttentionQuery>(q))
                     : memory(hw, model, std::get<MemoryQuery>(q));
  if (sms > 0) c.sm_cap = sms;
  return {c};
}

}  // namespace ovs
