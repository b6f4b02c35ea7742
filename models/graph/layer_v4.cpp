// DeepSeek-V4 layers: mHC around each sublayer; attention with one KV head over a 128-token
// sliding window plus compressed entries (CSA: ratio 4 with an indexer choosing top-k entries;
// HCA: ratio 128, all entries); grouped output projection; MoE in every layer.
#include <algorithm>

#include "models/cost/memory_kernels.hpp"
#include "models/graph/layer_builder.hpp"
#include "models/graph/layer_kernels.hpp"

namespace ovs {

using layer::gemm;
using layer::named;

namespace {
struct KeysCtx {
  int ratio;
  int window;
  int index_topk;
};
// Keys a query attends: the window plus the compressed entries it may use.
std::int64_t v4_keys(const Segment& s, const void* p) {
  const auto* c = static_cast<const KeysCtx*>(p);
  const std::int64_t window = std::min<std::int64_t>(c->window, s.kv_len);
  if (c->ratio == 0) return window;
  const std::int64_t entries = s.kv_len / c->ratio;
  return window + (c->ratio == 4 ? std::min<std::int64_t>(c->index_topk, entries) : entries);
}
}  // namespace

void LayerBuilder::build_v4(LayerPlan& p, int layer, const MicroBatch& mb,
                            const std::string& mbn) const {
  const std::int64_t t = mb.tokens;
  const int h = m_.hidden, heads = m_.heads, hd = m_.head_dim;
  const int ratio = m_.compress_ratios.at(layer);
  const std::string L = "L" + std::to_string(layer) + ".";
  const std::string act = L + mbn + ".";
  const bool prefill = w_.phase == Phase::prefill;

  p.ops.push_back({"mhc_prepare_attn",
                   {named("mhc_pre_attn", mhc_pre_cost(hw_, t, h, m_.hc_mult, m_.sinkhorn_iters))},
                   {},
                   {}});

  OpPlan attn{"attn", {}, {}, {}};
  auto& k = attn.kernels;
  const std::string x = act + "x";  // the normalised hidden state every branch reads
  const int rope = m_.rope_dim;
  // Kernels as SGLang's deepseek_v4.py launches them (../shared/data/sglang_kernels.md section 6,
  // the later version with fused kernels): main chain wqkv_a -> q norm -> wq_b -> fused per-head
  // q norm + RoPE; the KV branch a fused norm + RoPE + paged-cache store.
  k.push_back(
      gemm(hw_, "wqkv_a", t, m_.q_lora_rank + hd, h, Dtype::fp8, x, L + "wqkv_a.w", act + "qkv_a"));
  k.push_back(named("q_a_norm", rmsnorm_cost(hw_, t, m_.q_lora_rank, true)));
  k.push_back(gemm(hw_, "q_b", t, std::int64_t(heads) * hd, m_.q_lora_rank, Dtype::fp8,
                   act + "q_lora", L + "q_b.w", act + "q"));
  k.push_back(named("q_head_norm", norm_rope_cost(hw_, "q_norm_rope", t * heads, hd, rope)));
  auto& deps = attn.kernel_deps;
  deps = {{"wqkv_a", "q_a_norm"},
          {"q_a_norm", "q_b"},
          {"q_b", "q_head_norm"},
          {"q_head_norm", "attention"}};
  build_v4_side(attn, layer, mb, act, ratio);
  AttentionShape a;
  a.kind = prefill ? AttentionKind::sparse_prefill : AttentionKind::sparse_decode;
  a.heads = heads;
  a.d_qk = hd;
  a.d_v = hd;
  a.kv_bytes_per_token = m_.kv_bytes_per_token;
  a.kv_tensor = L + "kv_cache";
  static thread_local KeysCtx ctx;
  ctx = {ratio, m_.sliding_window, m_.index_topk};
  k.push_back(layer::attention(hw_, "attention", a, mb, &v4_keys, &ctx));
  // The output: inverse RoPE on its last rope dims (fused_rope(..., inverse=True)), a per-token
  // group FP8 quant for the grouped projection (fp8_einsum), then wo_a per group of heads to
  // o_lora and wo_b from all groups to the hidden size.
  k.push_back(named("o_inv_rope", rope_cost(hw_, t, heads, rope)));
  k.push_back(named("o_quant", quantize_fp8_cost(hw_, t, heads * hd)));
  deps.push_back({"attention", "o_inv_rope"});
  deps.push_back({"o_inv_rope", "o_quant"});
  const int per_group = heads * hd / m_.o_groups;
  k.push_back(
      gemm(hw_, "o_a", t, m_.o_lora_rank, per_group, Dtype::fp8, {}, L + "o_a.w", {}, m_.o_groups));
  k.push_back(gemm(hw_, "o_b", t, h, std::int64_t(m_.o_groups) * m_.o_lora_rank, Dtype::fp8, {},
                   L + "o_b.w", act + "attn_out"));
  deps.push_back({"o_quant", "o_a"});
  deps.push_back({"o_a", "o_b"});
  p.ops.push_back(attn);

  p.ops.push_back({"mhc_post_attn_pre_mlp",
                   {named("mhc_post_attn", mhc_post_cost(hw_, t, h, m_.hc_mult)),
                    named("mhc_pre_mlp", mhc_pre_cost(hw_, t, h, m_.hc_mult, m_.sinkhorn_iters))},
                   {},
                   {}});
  add_moe_ops(p, layer, mb, mbn);
  p.ops.push_back(
      {"mhc_postprocess", {named("mhc_post_mlp", mhc_post_cost(hw_, t, h, m_.hc_mult))}, {}, {}});
}

}  // namespace ovs
