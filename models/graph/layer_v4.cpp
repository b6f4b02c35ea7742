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
  {
    // set_swa_key_buffer_radix_fused_norm_rope: kv norm + RoPE + FP8 quant + store, one kernel.
    KernelCost kv = norm_rope_cost(hw_, "kv_write", t, hd, rope);
    kv.work.hbm_bytes += double(t) * (m_.kv_bytes_per_token - 2.0 * hd);
    k.push_back(named("kv_write", kv));
  }
  auto& deps = attn.kernel_deps;
  deps = {{"wqkv_a", "q_a_norm"},       {"q_a_norm", "q_b"},    {"q_b", "q_head_norm"},
          {"q_head_norm", "attention"}, {"wqkv_a", "kv_write"}, {"kv_write", "attention"}};
  if (hw_.vendor == "amd") {
    // ROCm's unified-KV path (dsv4/unified_kv_kernels/runtime.py): Triton _swa_scatter_kernel
    // (one program per token) copies the window's K into a BF16 ring, and torch.cumsum turns the
    // lengths into the KV index pointer (a single-block scan: one CU, as seed 2's trace shows).
    k.push_back(
        named("swa_scatter",
              memory_kernel(
                  hw_, {"swa_scatter", double(t) * hd * 2, double(t) * hd * 2, 0, t, 0, {}, {}})));
    k.push_back(
        named("kv_indptr_cumsum", cumsum_cost(hw_, std::max<std::int64_t>(mb.sequences, 1))));
    deps.push_back({"kv_write", "swa_scatter"});
    deps.push_back({"swa_scatter", "attention"});
    deps.push_back({"kv_indptr_cumsum", "attention"});
  }
  if (ratio > 0) {
    // Compressor (linear_bf16_fp32: the KV and gate projections of x in BF16 with FP32 output;
    // two overlapping windows when the ratio is 4), compress_forward (softmax-gated pooling over
    // each window of `ratio` tokens against the kv_score state), then the fused norm + RoPE in
    // place and the store into the c4 / c128 cache.
    const int coff = ratio == 4 ? 2 : 1;
    k.push_back(gemm(hw_, "compressor_proj", t, 2LL * coff * hd, h, Dtype::bf16, x,
                     L + "compressor.w", {}, 1, GemmLayout::dense, 0, 4.0));
    const double proj = double(t) * 2 * coff * hd * 4;  // FP32
    const std::int64_t entries = std::max<std::int64_t>(1, t / ratio);
    k.push_back(
        named("compressor_pool",
              memory_kernel(
                  hw_, {"compressor_pool", proj, double(entries) * hd * 2, proj, 0, 0, {}, {}})));
    KernelCost store = norm_rope_cost(hw_, "compressor_norm_rope", entries, hd, rope);
    store.work.hbm_bytes += double(entries) * (m_.kv_bytes_per_token - 2.0 * hd);
    k.push_back(named("compressor_norm_rope", store));
    deps.push_back({"compressor_proj", "compressor_pool"});
    deps.push_back({"compressor_pool", "compressor_norm_rope"});
    deps.push_back({"compressor_norm_rope", "attention"});
  }
  if (ratio == 4) {
    // Indexer (C4Indexer): its own compressor on x (K side: BF16 projection, pooling, fused norm
    // + RoPE, Hadamard rotation), queries from q_lora (Q side: wq_b GEMM, then one fused kernel
    // for RoPE + Hadamard + FP8 quant + weight scaling), per-head weights from x; FP8 logits
    // against the compressed keys, then top-k.
    const int ih = m_.index_heads, id = m_.index_head_dim;
    const std::int64_t entries = std::max<std::int64_t>(1, t / 4);
    k.push_back(gemm(hw_, "indexer_k_proj", t, 2LL * 2 * id, h, Dtype::bf16, x, L + "indexer.wk",
                     {}, 1, GemmLayout::dense, 0, 4.0));
    k.push_back(named("indexer_k_pool", memory_kernel(hw_, {"indexer_k_pool",
                                                            double(t) * 4 * id * 4,
                                                            double(entries) * id * 2,
                                                            double(t) * 4 * id,
                                                            0,
                                                            0,
                                                            {},
                                                            {}})));
    {
      KernelCost kr = norm_rope_cost(hw_, "indexer_k_norm_rope_hadamard", entries, id, rope);
      kr.work.cuda_core_flops += double(entries) * id * std::log2(double(id));
      kr.work.hbm_bytes += double(entries) * (id + 4.0 - 2.0 * id);  // FP8 keys + scale out
      k.push_back(named("indexer_k_norm_rope", kr));
    }
    k.push_back(gemm(hw_, "indexer_q", t, std::int64_t(ih) * id, m_.q_lora_rank, Dtype::fp8,
                     act + "q_lora", L + "indexer.wq", {}));
    {
      const double n = double(t) * ih * id;
      k.push_back(named("indexer_q_quant", memory_kernel(hw_, {"indexer_q_rope_hadamard_quant",
                                                               2 * n,
                                                               n + double(t) * ih * 4.0,
                                                               n * (std::log2(double(id)) + 4),
                                                               0,
                                                               0,
                                                               {},
                                                               {}})));
    }
    k.push_back(gemm(hw_, "indexer_weights", t, ih, h, Dtype::bf16, x, L + "indexer.ww", {}));
    std::vector<KernelCost> logits, topk;
    for (const auto& seg : mb.segments) {
      IndexerShape is;
      is.batch = seg.count;
      is.q_len = seg.q_len;
      is.entries = std::max<std::int64_t>(1, seg.kv_len / 4);
      is.heads = ih;
      is.head_dim = id;
      is.topk = m_.index_topk;
      is.causal = prefill;
      auto parts = indexer_cost(hw_, is);
      logits.push_back(parts[0]);
      topk.push_back(parts[1]);
    }
    k.push_back(
        named("indexer_logits", merge_costs(logits, "indexer_logits", hw_.engine.sm_count)));
    k.push_back(named("indexer_topk", merge_costs(topk, "indexer_topk", hw_.engine.sm_count)));
    deps.insert(deps.end(), {{"indexer_k_proj", "indexer_k_pool"},
                             {"indexer_k_pool", "indexer_k_norm_rope"},
                             {"q_a_norm", "indexer_q"},
                             {"indexer_q", "indexer_q_quant"},
                             {"indexer_k_norm_rope", "indexer_logits"},
                             {"indexer_q_quant", "indexer_logits"},
                             {"indexer_weights", "indexer_logits"},
                             {"indexer_logits", "indexer_topk"},
                             {"indexer_topk", "attention"}});
  }
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
