// KV cache as SGLang's pool stores it (../shared/data/sglang_flags_memory.md B2-B3), per GPU: under
// DP attention each GPU holds the cache of its own sequences, the MLA latent not divided by TP.
// Bytes per token per layer, by --kv-cache-dtype:
//   DeepSeek-V3 (plain MLA): (kv_lora_rank + qk_rope_head_dim) x the dtype's bytes, every one of
//     the 576 dims in that dtype: BF16 1152 B, FP8 576 B.
//   DeepSeek-V4 (DSV4PoolConfigurator): FP8 only here, FlashMLA's packed layout: the nope dims
//     (head_dim - rope_dim) in FP8, the rope dims in BF16, plus kv_cache.fp8_scale_bytes: 584 B.
// V4 layers keep per sequence the sliding window (at most `sliding_window` entries) plus, when
// the layer compresses, one entry per `ratio` tokens; CSA layers (ratio 4) add the indexer's keys,
// index_head_dim FP8 values and an FP32 scale per 128 (B3: index_head_dim + index_head_dim / 128
// x 4). The batch's bytes are compared with the pool's; SGLang's split of V4's pool into window,
// C4 and C128 pools (swa_full_tokens_ratio) is not modelled.
#include <fmt/format.h>

#include <algorithm>

#include "models/memory/memory_model.hpp"
#include "sim/core/error.hpp"

namespace ovs {
namespace {

constexpr double kIndexerScaleBytes = 4;    // one FP32 scale ...
constexpr double kIndexerScaleGroup = 128;  // ... per 128 indexer key values
constexpr double kBf16Bytes = 2, kFp8Bytes = 1;

double indexer_bytes_per_entry(const ModelConfig& m) {
  return m.index_head_dim + m.index_head_dim / kIndexerScaleGroup * kIndexerScaleBytes;
}

// Bytes of one sequence's cache with `kv` tokens, `entry` bytes per token per layer.
double sequence_bytes(const ModelConfig& m, std::int64_t kv, double entry) {
  if (m.family == ModelFamily::v3) return double(m.layers) * double(kv) * entry;
  double bytes = 0;
  for (int ratio : m.compress_ratios) {
    const double window = double(std::min<std::int64_t>(m.sliding_window, kv));
    const double compressed = ratio > 0 ? double(kv / ratio) : 0.0;
    bytes += (window + compressed) * entry;
    if (ratio == 4) bytes += double(kv / 4) * indexer_bytes_per_entry(m);
  }
  return bytes;
}

}  // namespace

const char* kv_dtype_name(Dtype d) {
  return d == Dtype::fp8 ? "fp8_e4m3" : "bf16";
}

Dtype kv_dtype_of(const ModelConfig& m, const Workload& w) {
  return w.kv_cache_dtype.value_or(m.kv_auto_dtype);
}

double kv_bytes_per_token_per_layer(const ModelConfig& m, Dtype kv_dtype) {
  if (kv_dtype != Dtype::bf16 && kv_dtype != Dtype::fp8)
    throw InputError("", 0, "kv_cache_dtype", "expected auto, bf16 or fp8_e4m3");
  const double elem = kv_dtype == Dtype::fp8 ? kFp8Bytes : kBf16Bytes;
  if (m.family == ModelFamily::v3) return double(m.kv_lora_rank + m.qk_rope_head_dim) * elem;
  if (kv_dtype == Dtype::bf16)
    throw InputError(
        "", 0, "kv_cache_dtype",
        "bf16: SGLang stores DeepSeek-V4's KV cache in FP8 (fp8_e4m3) on GPUs, bf16 "
        "only on NPUs, whose layout is not known here (sglang_flags_memory.md A.2, B3)");
  return double(m.head_dim - m.rope_dim) * kFp8Bytes + double(m.rope_dim) * kBf16Bytes +
         double(m.kv_fp8_scale_bytes);
}

MemoryTerm kv_cache_term(const ModelConfig& m, const Workload& w) {
  const Dtype dtype = kv_dtype_of(m, w);
  const double entry = kv_bytes_per_token_per_layer(m, dtype);
  const MicroBatch all = whole_batch(w);
  MemoryTerm t{"KV cache", 0, "", MemoryKind::kv_batch};
  std::int64_t tokens = 0;
  for (const auto& s : all.segments) {
    t.bytes += double(s.count) * sequence_bytes(m, s.kv_len, entry);
    tokens += s.count * s.kv_len;
  }
  const std::string dtype_how =
      fmt::format("--kv-cache-dtype {}{}", w.kv_cache_dtype ? "" : "auto = ", kv_dtype_name(dtype));
  if (m.family == ModelFamily::v3)
    t.how = fmt::format(
        "{} cached tokens x {} layers x {:g} B ((kv_lora_rank {} + qk_rope_head_dim {}) x {:g} B, "
        "{}; sglang_flags_memory.md B3)",
        tokens, m.layers, entry, m.kv_lora_rank, m.qk_rope_head_dim,
        entry / double(m.kv_lora_rank + m.qk_rope_head_dim), dtype_how);
  else
    t.how = fmt::format(
        "{} sequence(s), per layer a window of <= {} entries plus 1 per compress ratio (4 or "
        "128) tokens, x {:g} B ({} nope FP8 + {} rope BF16 + {} scale B, {}; "
        "sglang_flags_memory.md B3); CSA layers add {:g} B indexer keys per 4 tokens",
        all.sequences, m.sliding_window, entry, m.head_dim - m.rope_dim, m.rope_dim,
        m.kv_fp8_scale_bytes, dtype_how, indexer_bytes_per_entry(m));
  return t;
}

}  // namespace ovs
