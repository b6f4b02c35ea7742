// KV cache per GPU: under DP attention each GPU holds the cache of its own sequences.
// DeepSeek-V3 (MLA): one latent entry of kv_bytes_per_token per token per layer.
// DeepSeek-V4: per layer, the sliding window (at most `sliding_window` entries) plus, when the
// layer compresses, one entry per `ratio` tokens, all of kv_bytes_per_token; CSA layers (ratio 4)
// add the indexer's keys, index_head_dim FP8 values and an FP32 scale per compressed entry
// (models.csv: DeepSeek-V3.2-Exp indexer K cache FP8 [seq x 128] + fp32 scale).
#include <fmt/format.h>

#include <algorithm>

#include "models/memory/memory_model.hpp"

namespace ovs {
namespace {

constexpr double kIndexerScaleBytes = 4;  // one FP32 scale per indexer key

// Bytes of one sequence's cache with `kv` tokens.
double sequence_bytes(const ModelConfig& m, std::int64_t kv) {
  if (m.family == ModelFamily::v3) return double(m.layers) * double(kv) * m.kv_bytes_per_token;
  double bytes = 0;
  for (int ratio : m.compress_ratios) {
    const double window = double(std::min<std::int64_t>(m.sliding_window, kv));
    const double compressed = ratio > 0 ? double(kv / ratio) : 0.0;
    bytes += (window + compressed) * m.kv_bytes_per_token;
    if (ratio == 4) bytes += double(kv / 4) * (m.index_head_dim + kIndexerScaleBytes);
  }
  return bytes;
}

}  // namespace

MemoryTerm kv_cache_term(const ModelConfig& m, const Workload& w) {
  const MicroBatch all = whole_batch(w);
  MemoryTerm t{"KV cache", 0, ""};
  std::int64_t tokens = 0;
  for (const auto& s : all.segments) {
    t.bytes += double(s.count) * sequence_bytes(m, s.kv_len);
    tokens += s.count * s.kv_len;
  }
  if (m.family == ModelFamily::v3)
    t.how = fmt::format("{} cached tokens x {} layers x {} B per token", tokens, m.layers,
                        m.kv_bytes_per_token);
  else
    t.how = fmt::format(
        "{} sequence(s), per layer a window of <= {} entries plus 1 per compress ratio (4 or "
        "128) tokens, x {} B; CSA layers add {} + {} B indexer keys per 4 tokens",
        all.sequences, m.sliding_window, m.kv_bytes_per_token, m.index_head_dim,
        kIndexerScaleBytes);
  return t;
}

}  // namespace ovs
