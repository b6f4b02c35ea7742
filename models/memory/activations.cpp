// Peak transients on the hottest rank: what one micro-batch holds through a layer (the residual
// stream and the sublayer's input) plus the largest working set of a sublayer - attention, the
// routed experts, a dense FFN, or the final logits. Kernels of both micro-batches run one at a
// time on the compute stream, so under two-batch overlap both hold their streams but only one
// working set is live at once, plus the tokens the other micro-batch has received and not yet
// consumed (DeepEP normal mode; low-latency mode receives into its own buffer): two-batch overlap
// roughly halves the peak.
// The routed experts' working set is the hottest rank's: in normal mode it receives
// tokens x top-k x hot_rank_load_ratio rows (models/cost/rank_spread.hpp, the load the engine
// gives that rank; sglang_flags_memory.md B6: "a lot tokens gather on one GPU and OOM in group
// gemm"), and the gather buffer of the received tokens is live beside the grouped GEMM's input
// and output. The dense layers' FFN (V3's first layers) runs on tokens gathered from the TP
// group (SGLang's default under DP attention: TP over the instance, EP GPUs) or, with
// --moe-dense-tp-size 1, on the rank's own tokens (sglang_flags_memory.md B5). Shapes are those
// the cost model runs (models/graph/); activations are BF16, quantized inputs FP8 with an FP32
// scale per 128 values, scores and logits FP32.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/cost/rank_spread.hpp"
#include "models/memory/memory_model.hpp"
#include "sim/core/units.hpp"

namespace ovs {
namespace {

constexpr double kBf16 = 2, kFp8 = 1, kFp32 = 4;
constexpr double kQuantGroup = 128;  // values per FP32 scale of an FP8 activation

struct MicroBatchUse {
  double stream = 0;    // held through the layer
  double working = 0;   // largest sublayer working set
  double received = 0;  // routed tokens received (DeepEP normal mode)
  std::string largest;  // which working set is the largest
  std::string experts;  // how the routed experts' rows were counted
};

MicroBatchUse use_of(const ModelConfig& m, const Workload& w, const MicroBatch& mb,
                     long long ll_tokens) {
  const double t = double(mb.tokens), h = m.hidden;
  const bool prefill = w.phase == Phase::prefill;
  MicroBatchUse u;
  // Residual stream (V4: hc_mult copies, mHC) and the normalised input of the sublayer.
  u.stream = t * h * kBf16 * (m.family == ModelFamily::v4 ? m.hc_mult : 1) + t * h * kBf16;
  double kv_tokens = 0, index_scores = 0;
  for (const auto& s : mb.segments) {
    kv_tokens += double(s.count) * double(s.kv_len);
    index_scores += double(s.count) * double(s.q_len) * double(s.kv_len / 4);
  }
  // Attention.
  double attention = 0;
  if (m.family == ModelFamily::v3) {
    const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (prefill)  // MHA over keys and values expanded from the latent cache
      attention = (t * m.heads * qk + kv_tokens * m.heads * (qk + m.v_head_dim) +
                   t * m.heads * m.v_head_dim) *
                  kBf16;
    else  // absorbed MQA over the latent: queries in latent space, output then w_vc
      attention = t * m.heads *
                  ((m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank + m.v_head_dim) * kBf16;
  } else {
    attention = 2 * t * m.heads * m.head_dim * kBf16;
    const bool has_csa =
        std::find(m.compress_ratios.begin(), m.compress_ratios.end(), 4) != m.compress_ratios.end();
    if (has_csa) attention += index_scores * kFp32;  // indexer logits before top-k
  }
  // Routed experts on the hottest rank: DeepEP normal mode hands over the received tokens (the
  // hottest rank's load over the mean x the mean, contiguous layout); low-latency mode the masked
  // layout, padded to the buffer's tokens per rank from every rank for each local expert.
  const int local = (w.physical_experts(m.routed_experts) + w.ep - 1) / w.ep;
  const bool normal = w.mode() == DeepepMode::normal;
  const double hot = normal ? hot_rank_load_ratio(m, w, mb) : 1.0;
  const double rows =
      normal ? std::ceil(t * m.topk * hot) : double(local) * double(ll_tokens) * w.ep;
  u.experts = normal ? fmt::format("{:g} tokens x top-{} x {:.3f} hottest rank over the mean{}", t,
                                   m.topk, hot, w.imbalance > 0 ? " (--imbalance)" : "")
                     : fmt::format("{} local experts x {} tokens x EP {} (low-latency layout)",
                                   local, ll_tokens, w.ep);
  const double quantized = h * kFp8 + h / kQuantGroup * kFp32;
  if (w.mode() == DeepepMode::normal) u.received = rows * quantized;
  const double gate_up = rows * 2 * m.moe_inter * kBf16;
  const double act = rows * (m.moe_inter * kFp8 + m.moe_inter / kQuantGroup * kFp32);
  const double down = rows * h * kBf16;
  const double experts = u.received + std::max(gate_up + act, act + down);
  // Dense FFN (V3's first layers): tensor parallel over the TP group on the tokens gathered from
  // it (input and output of the hidden size, gate and up of its share), or replicated on the
  // rank's own tokens (--moe-dense-tp-size 1).
  double dense = 0;
  if (m.dense_layers > 0) {
    const int tp = dense_tp_size(w);
    const double all = t * tp;
    dense = all * h * kBf16 * 2 + all * 2.0 * (m.dense_inter / tp) * kBf16;
  }
  // Logits: the last token of each sequence in prefill, every token in decode.
  const double logits = (prefill ? double(mb.sequences) : t) * m.vocab * kFp32;
  u.working = attention;
  u.largest = "attention";
  for (auto [bytes, name] : {std::pair<double, const char*>{experts, "routed experts"},
                             {dense, "dense FFN"},
                             {logits, "logits"}})
    if (bytes > u.working) {
      u.working = bytes;
      u.largest = name;
    }
  return u;
}

}  // namespace

long long largest_micro_batch_tokens(const Workload& w, bool split) {
  if (split)
    if (const auto halves = split_batch(w, nullptr))
      return std::max(halves->first.tokens, halves->second.tokens);
  return whole_batch(w).tokens;
}

MemoryTerm activation_term(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                           bool split) {
  const long long ll_tokens = std::max<long long>(hw.memory.deepep_ll_max_tokens_per_rank,
                                                  largest_micro_batch_tokens(w, split));
  const auto halves = split ? split_batch(w, nullptr) : std::nullopt;
  MemoryTerm t{"activations (peak)", 0, "", MemoryKind::transient};
  if (!halves) {
    const MicroBatchUse u = use_of(m, w, whole_batch(w), ll_tokens);
    t.bytes = u.stream + u.working;
    t.how = fmt::format(
        "one batch: stream {:.3f} GB + largest working set ({}) {:.3f} GB; routed experts' rows: "
        "{}",
        u.stream / units::kBytesPerGB, u.largest, u.working / units::kBytesPerGB, u.experts);
    return t;
  }
  const MicroBatchUse a = use_of(m, w, halves->first, ll_tokens),
                      b = use_of(m, w, halves->second, ll_tokens);
  const bool a_peaks = a.working + b.received >= b.working + a.received;
  const MicroBatchUse& peak = a_peaks ? a : b;
  const MicroBatchUse& other = a_peaks ? b : a;
  t.bytes = a.stream + b.stream + peak.working + other.received;
  t.how = fmt::format(
      "two micro-batches: streams {:.3f} + {:.3f} GB, one working set at a time ({}) {:.3f} GB, "
      "the other's received tokens {:.3f} GB; routed experts' rows: {}",
      a.stream / units::kBytesPerGB, b.stream / units::kBytesPerGB, peak.largest,
      peak.working / units::kBytesPerGB, other.received / units::kBytesPerGB, peak.experts);
  return t;
}

}  // namespace ovs
