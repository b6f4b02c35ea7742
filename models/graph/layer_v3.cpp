// DeepSeek-V3 layers: MLA attention (MHA mode in prefill, absorbed MQA mode in decode, as SGLang
// runs them), then a dense FFN (first layers, TP across the node under DP attention) or MoE.
#include "models/cost/memory_kernels.hpp"
#include "models/graph/layer_builder.hpp"
#include "models/graph/layer_kernels.hpp"
#include "models/memory/memory_model.hpp"

namespace ovs {

using layer::gemm;
using layer::named;

void LayerBuilder::build_v3(LayerPlan& p, int layer, const MicroBatch& mb,
                            const std::string& mbn) const {
  const std::int64_t t = mb.tokens;
  const int h = m_.hidden, heads = m_.heads;
  const int qk = m_.qk_nope_head_dim + m_.qk_rope_head_dim;
  const std::string L = "L" + std::to_string(layer) + ".";
  const std::string act = L + mbn + ".";
  const bool prefill = w_.phase == Phase::prefill;
  // The KV cache as SGLang's pool stores it for the workload's --kv-cache-dtype (BF16 MLA:
  // (512 + 64) x 2 = 1152 B per token per layer; FP8: 576): what the KV write and the decode
  // attention move.
  const double kv_bytes = kv_bytes_per_token_per_layer(m_, kv_dtype_of(m_, w_));

  p.ops.push_back({"comm_prepare_attn", {named("input_norm", rmsnorm_cost(hw_, t, h))}, {}, {}});

  OpPlan prep{"attn.prepare", {}, {}, {}};
  prep.kernels.push_back(named("hidden_quant", quantize_fp8_cost(hw_, t, h)));
  prep.kernels.push_back(gemm(hw_, "qkv_a", t,
                              m_.q_lora_rank + m_.kv_lora_rank + m_.qk_rope_head_dim, h, Dtype::fp8,
                              act + "hidden", L + "qkv_a.w", act + "qkv_a"));
  prep.kernels.push_back(
      named("qkv_a_norm", rmsnorm_cost(hw_, t, m_.q_lora_rank + m_.kv_lora_rank, true)));
  // Each FP8 block-scaled projection quantizes its input first (sglang_per_token_group_quant_fp8
  // before DeepGEMM: ../shared/data/sglang_kernels.md, attn.prepare).
  prep.kernels.push_back(named("q_b_quant", quantize_fp8_cost(hw_, t, m_.q_lora_rank)));
  prep.kernels.push_back(gemm(hw_, "q_b", t, std::int64_t(heads) * qk, m_.q_lora_rank, Dtype::fp8,
                              {}, L + "q_b.w", act + "q"));
  if (prefill) {
    // MHA mode: expand the latent KV to per-head K (nope) and V.
    prep.kernels.push_back(named("kv_b_quant", quantize_fp8_cost(hw_, t, m_.kv_lora_rank)));
    prep.kernels.push_back(gemm(hw_, "kv_b", t,
                                std::int64_t(heads) * (m_.qk_nope_head_dim + m_.v_head_dim),
                                m_.kv_lora_rank, Dtype::fp8, {}, L + "kv_b.w", act + "kv"));
  } else {
    // Absorbed mode: q_nope x W_kc per head (batched BF16 GEMM).
    prep.kernels.push_back(gemm(hw_, "w_kc", t, m_.kv_lora_rank, m_.qk_nope_head_dim, Dtype::bf16,
                                {}, L + "w_kc", {}, heads));
  }
  prep.kernels.push_back(named("rope", rope_cost(hw_, t, heads + 1, m_.qk_rope_head_dim)));
  prep.kernels.push_back(named("kv_write", kv_cache_write_cost(hw_, t, kv_bytes)));
  if (prefill) {
    // MHA mode: sgl_kernel concat_mla_k builds K [T, heads, nope + rope] from kv_b's k_nope and
    // the shared k_pe (../shared/data/sglang_kernels.md, attn.prepare: _concat_and_cast_mha_k).
    const double k_nope = double(t) * heads * m_.qk_nope_head_dim * 2.0;
    const double k_pe = double(t) * m_.qk_rope_head_dim * 2.0;
    const double k = double(t) * heads * qk * 2.0;
    prep.kernels.push_back(named(
        "concat_mla_k", memory_kernel(hw_, {"concat_mla_k", k_nope + k_pe, k, 0, 0, 0, {}, {}})));
  }
  p.ops.push_back(prep);

  OpPlan core{"attn.core", {}, {}, {}};
  AttentionShape a;
  a.heads = heads;
  a.backend = attention_backend_;
  if (prefill) {
    a.kind = AttentionKind::dense_prefill;
    a.d_qk = qk;
    a.d_v = m_.v_head_dim;
    a.kv_bytes_per_token = double(heads) * (qk + m_.v_head_dim) * 2.0;
  } else {
    a.kind = AttentionKind::mla_decode;
    a.d_qk = m_.kv_lora_rank + m_.qk_rope_head_dim;
    a.d_v = m_.kv_lora_rank;
    a.kv_bytes_per_token = kv_bytes;
    a.kv_tensor = L + "kv_cache";
  }
  core.kernels.push_back(layer::attention(hw_, "attention", a, mb, nullptr, nullptr));
  if (!prefill)
    core.kernels.push_back(gemm(hw_, "w_vc", t, m_.v_head_dim, m_.kv_lora_rank, Dtype::bf16, {},
                                L + "w_vc", {}, heads));
  core.kernels.push_back(named("o_quant", quantize_fp8_cost(hw_, t, heads * m_.v_head_dim)));
  core.kernels.push_back(gemm(hw_, "o_proj", t, h, std::int64_t(heads) * m_.v_head_dim, Dtype::fp8,
                              {}, L + "o_proj.w", act + "attn_out"));
  p.ops.push_back(core);

  p.ops.push_back({"comm_prepare_mlp", {named("post_attn_norm", rmsnorm_cost(hw_, t, h))}, {}, {}});

  if (p.type == LayerType::dense) {
    // Dense FFN under DP attention: tensor-parallel across the node, tokens gathered first.
    const int tp = std::min(w_.gpus_per_node, w_.ep);
    const std::int64_t all = t * tp;
    OpPlan mlp{"mlp", {}, {}, {}};
    if (tp > 1)
      mlp.kernels.push_back(named("dense_all_gather",
                                  collective_cost(hw_, Collective::all_gather, all * h * 2.0, tp)));
    mlp.kernels.push_back(named("dense_quant", quantize_fp8_cost(hw_, all, h)));
    mlp.kernels.push_back(gemm(hw_, "dense_gate_up", all, 2LL * m_.dense_inter / tp, h, Dtype::fp8,
                               {}, L + "mlp.w13", {}));
    mlp.kernels.push_back(named("dense_act", swiglu_cost(hw_, all, m_.dense_inter / tp)));
    mlp.kernels.push_back(
        gemm(hw_, "dense_down", all, h, m_.dense_inter / tp, Dtype::fp8, {}, L + "mlp.w2", {}));
    if (tp > 1)
      mlp.kernels.push_back(
          named("dense_reduce_scatter",
                collective_cost(hw_, Collective::reduce_scatter, all * h * 2.0, tp)));
    p.ops.push_back(mlp);
  } else {
    add_moe_ops(p, layer, mb, mbn);
  }
  p.ops.push_back({"postprocess_layer", {}, {}, {}});
}

}  // namespace ovs
