// Weights per GPU, by component and dtype. Under DP attention every GPU holds the attention,
// shared experts, routers, embedding and output head; the dense layers' FFNs are tensor parallel
// over SGLang's --moe-dense-tp-size (unset: the instance's TP size, EP here; 1: replicated on
// every GPU, sglang_flags_memory.md B5); the routed experts are spread over EP:
// ceil((routed + redundant) / EP) per GPU.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/cost/kernel_cost.hpp"
#include "models/memory/memory_model.hpp"

namespace ovs {
namespace {

// Bytes per weight stored in `d` with one scale of `scale_bytes` per `block` weights.
double bytes_per_weight(Dtype d, int scale_bytes, int block) {
  return dtype_bytes(d) + double(scale_bytes) / double(block);
}

std::string billions(double params) {
  return fmt::format("{:.3f} B params", params / 1e9);
}

}  // namespace

double ParamCounts::total() const {
  return attention + dense_ffn + shared_experts + routed_experts + bf16 + fp32 + embedding;
}

double ParamCounts::active(int topk) const {
  return total() - routed_experts + double(topk) * per_expert * moe_layers;
}

ParamCounts param_counts(const ModelConfig& m) {
  ParamCounts p;
  const double h = m.hidden;
  for (int l = 0; l < m.layers; ++l) {
    if (m.family == ModelFamily::v3) {
      // MLA: q down (wq_a) and up (wq_b), kv down with the rope key (wkv_a), kv up (wkv_b),
      // output (wo); norms of q_lora and kv_lora.
      const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
      p.attention += h * m.q_lora_rank + double(m.q_lora_rank) * m.heads * qk +
                     h * (m.kv_lora_rank + m.qk_rope_head_dim) +
                     double(m.kv_lora_rank) * m.heads * (m.qk_nope_head_dim + m.v_head_dim) +
                     double(m.heads) * m.v_head_dim * h;
      p.bf16 += m.q_lora_rank + m.kv_lora_rank;
    } else {
      // V4: wq_a, wq_b (heads x head_dim), wkv (one KV head), grouped wo_a (each group's
      // heads to o_lora), wo_b; norms of q_lora and the KV head; a sink per head.
      const double hd = m.head_dim;
      p.attention += h * m.q_lora_rank + double(m.q_lora_rank) * m.heads * hd + h * hd +
                     double(m.heads) * hd * m.o_lora_rank + double(m.o_groups) * m.o_lora_rank * h;
      p.bf16 += m.q_lora_rank + hd + m.heads;
      const int ratio = m.compress_ratios.at(static_cast<size_t>(l));
      // Compressor: KV and gate projections (two overlapping windows when the ratio is 4), the
      // shapes the cost model runs (models/graph/layer_v4.cpp).
      if (ratio > 0) p.attention += h * 2.0 * (ratio == 4 ? 2 : 1) * hd;
      if (ratio == 4) {
        // Indexer: queries from q_lora, its own compressor on x, per-head weights (BF16).
        p.attention += double(m.q_lora_rank) * m.index_heads * m.index_head_dim +
                       h * 2.0 * 2.0 * m.index_head_dim;
        p.bf16 += h * m.index_heads;
      }
      // mHC: before each of the two sublayers a linear from hc_mult copies of the hidden state to
      // (2 + hc_mult) x hc_mult mixes (FP32).
      p.fp32 += 2.0 * (m.hc_mult * h) * ((2.0 + m.hc_mult) * m.hc_mult);
    }
    p.bf16 += 2 * h;  // the two RMSNorms around the sublayers
    if (l < m.dense_layers) {
      p.dense_ffn += 3.0 * h * m.dense_inter;
      continue;
    }
    ++p.moe_layers;
    p.shared_experts += 3.0 * h * m.moe_inter * m.shared_experts;
    const bool hashed = m.family == ModelFamily::v4 && l < m.dense_layers + m.hash_layers;
    if (hashed)
      p.hash_table_entries += double(m.vocab) * m.topk;
    else
      p.bf16 += double(m.routed_experts) * h;  // router (gate) weights
  }
  p.per_expert = 3.0 * h * m.moe_inter;
  p.routed_experts = p.per_expert * m.routed_experts * p.moe_layers;
  p.embedding = 2.0 * m.vocab * h;  // embedding and output head
  p.bf16 += h;                      // final norm
  if (m.family == ModelFamily::v4) p.fp32 += (m.hc_mult * h) * m.hc_mult;  // final mHC mix
  return p;
}

int dense_tp_size(const Workload& w) {
  return w.moe_dense_tp_size == 1 ? 1 : std::max(1, w.ep);
}

std::vector<MemoryTerm> weight_terms(const ModelConfig& m, const Workload& w) {
  const ParamCounts p = param_counts(m);
  const double linear =
      bytes_per_weight(m.weight_dtype, m.weight_scale_bytes, m.weight_scale_block);
  const double expert =
      bytes_per_weight(m.expert_dtype, m.expert_scale_bytes, m.expert_scale_block);
  const int tp = dense_tp_size(w);
  const int physical = w.physical_experts(m.routed_experts);
  const long long per_gpu = (physical + w.ep - 1) / w.ep;
  const std::string lin = fmt::format("{} + {} B scale per {}", dtype_name(m.weight_dtype),
                                      m.weight_scale_bytes, m.weight_scale_block);
  std::vector<MemoryTerm> t;
  t.push_back({"weights: routed experts", double(per_gpu) * p.moe_layers * p.per_expert * expert,
               fmt::format("ceil(({} routed + {} redundant) / EP {}) = {} experts x {} MoE layers "
                           "x {:.0f} params x {:.6g} B ({} + {} B scale per {})",
                           m.routed_experts, w.redundant_experts, w.ep, per_gpu, p.moe_layers,
                           p.per_expert, expert, dtype_name(m.expert_dtype), m.expert_scale_bytes,
                           m.expert_scale_block)});
  t.push_back({"weights: attention", p.attention * linear,
               fmt::format("{} x {:.6g} B ({}), every layer (DP attention)", billions(p.attention),
                           linear, lin)});
  if (p.shared_experts > 0)
    t.push_back({"weights: shared experts", p.shared_experts * linear,
                 fmt::format("{} x {:.6g} B ({})", billions(p.shared_experts), linear, lin)});
  if (p.dense_ffn > 0)
    t.push_back({"weights: dense FFN", p.dense_ffn / tp * linear,
                 fmt::format("{} / {} (--moe-dense-tp-size {}; sglang_flags_memory.md B5) x "
                             "{:.6g} B ({})",
                             billions(p.dense_ffn), tp,
                             w.moe_dense_tp_size == 1 ? "1: replicated"
                                                      : "unset: TP over the instance's EP GPUs",
                             linear, lin)});
  const double emb = dtype_bytes(m.embedding_dtype);
  t.push_back({"weights: embedding and output head", p.embedding * emb,
               fmt::format("2 x {} vocab x {} hidden x {} B ({})", m.vocab, m.hidden, emb,
                           dtype_name(m.embedding_dtype))});
  t.push_back(
      {"weights: routers, norms, mixes", p.bf16 * 2 + p.fp32 * 4 + p.hash_table_entries * 4,
       fmt::format("{} BF16 + {} FP32{}", billions(p.bf16), billions(p.fp32),
                   p.hash_table_entries > 0
                       ? fmt::format(" + {:.0f} int32 hash-routing entries", p.hash_table_entries)
                       : std::string())});
  for (auto& term : t) term.kind = MemoryKind::weights;
  return t;
}

}  // namespace ovs
