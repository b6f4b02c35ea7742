#include "models/graph/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ovs {

const char* to_string(V4Kernels k) {
  switch (k) {
    case V4Kernels::rocm_2605:
      return "rocm-2605";
    case V4Kernels::torch_fallback:
      return "torch-fallback";
    case V4Kernels::fused:
      break;
  }
  return "fused";
}

std::optional<V4Kernels> parse_v4_kernels(const std::string& name) {
  for (const V4Kernels k : {V4Kernels::fused, V4Kernels::rocm_2605, V4Kernels::torch_fallback})
    if (name == to_string(k)) return k;
  return std::nullopt;
}
namespace {

// Prefill: tokens_per_gpu tokens made of prompts of `context` tokens (the last one shorter);
// a batch smaller than one prompt is a chunk of a longer prompt (its prefix already cached).
std::vector<std::int64_t> prompt_lengths(const Workload& w) {
  if (!w.prompt_lens.empty()) return w.prompt_lens;
  std::vector<std::int64_t> out;
  const std::int64_t len = std::max<std::int64_t>(1, w.context);
  std::int64_t left = w.tokens_per_gpu;
  while (left > 0) {
    out.push_back(std::min(len, left));
    left -= out.back();
  }
  return out;
}

void add_segment(MicroBatch& mb, std::int64_t q, std::int64_t kv) {
  if (q <= 0) return;
  for (auto& s : mb.segments)
    if (s.q_len == q && s.kv_len == kv) {
      ++s.count;
      return;
    }
  mb.segments.push_back({q, kv, 1});
}

// Requests [first, first + requests) of a decode batch.
MicroBatch decode_batch(const Workload& w, std::int64_t first, std::int64_t requests) {
  MicroBatch mb;
  mb.sequences = requests;
  mb.tokens = requests * w.decode_q_len;
  if (w.context_lens.empty()) {
    if (requests > 0) mb.segments.push_back({w.decode_q_len, w.context, requests});
    return mb;
  }
  for (std::int64_t i = first; i < first + requests; ++i)
    add_segment(mb, w.decode_q_len, w.context_lens[size_t(i)]);
  return mb;
}

// _split_array_by_balanced_sum: the boundary i in [1, n) with the least |left - right|, walking
// from the left and stopping once it grows (ties move right); 0 for one sequence.
std::int64_t balanced_boundary(const std::vector<std::int64_t>& arr, std::int64_t total) {
  std::int64_t left = 0, best = 0;
  double min_diff = std::numeric_limits<double>::infinity();
  for (size_t i = 1; i < arr.size(); ++i) {
    left += arr[i - 1];
    const double diff = double(std::llabs(left - (total - left)));
    if (diff <= min_diff) {
      min_diff = diff;
      best = std::int64_t(i);
    } else {
      break;
    }
  }
  return best;
}

}  // namespace

TboSplit sglang_tbo_split(const std::vector<std::int64_t>& arr, double threshold) {
  std::int64_t total = 0;
  for (auto x : arr) total += x;
  TboSplit s;
  const std::int64_t vanilla = balanced_boundary(arr, total);
  std::int64_t left = 0;
  for (std::int64_t i = 0; i < vanilla; ++i) left += arr[size_t(i)];
  // _is_two_chunk_split_enabled
  const bool two_chunk =
      double(left) < double(total) * threshold || double(left) > double(total) * (1 - threshold);
  if (!two_chunk) {
    s.seq_index = vanilla;
    s.token_index = left;
    return s;
  }
  // _split_array_by_cum_less_than_half: the first sequence whose running sum passes total // 2.
  const std::int64_t half = total / 2;
  std::int64_t acc = 0;
  for (size_t i = 0; i < arr.size(); ++i) {
    acc += arr[i];
    if (acc > half) {
      s.seq_index = std::int64_t(i);
      break;
    }
  }
  s.token_index = half;
  std::int64_t before = 0;
  for (std::int64_t i = 0; i < s.seq_index; ++i) before += arr[size_t(i)];
  s.cut = s.token_index > before;
  return s;
}

TboSplit tbo_split_of(const Workload& w) {
  if (w.phase == Phase::decode) {
    TboSplit s;
    s.seq_index = w.tokens_per_gpu / 2;
    s.token_index = s.seq_index * w.decode_q_len;
    return s;
  }
  return sglang_tbo_split(prompt_lengths(w), w.tbo_token_distribution_threshold);
}

MicroBatch whole_batch(const Workload& w) {
  if (w.phase == Phase::decode) return decode_batch(w, 0, w.tokens_per_gpu);
  MicroBatch mb;
  for (auto len : prompt_lengths(w)) {
    // A chunk shorter than the context attends to the cached prefix too.
    const std::int64_t kv = len < w.context && w.tokens_per_gpu < w.context ? w.context : len;
    add_segment(mb, len, kv);
    mb.tokens += len;
    ++mb.sequences;
  }
  return mb;
}

std::optional<std::pair<MicroBatch, MicroBatch>> split_batch(const Workload& w, std::string* why) {
  if (w.phase == Phase::decode) {
    const std::int64_t a = w.tokens_per_gpu / 2, b = w.tokens_per_gpu - a;
    if (a == 0) {
      if (why)
        *why =
            "a batch of " + std::to_string(w.tokens_per_gpu) + " request(s) cannot be split in two";
      return std::nullopt;
    }
    return std::make_pair(decode_batch(w, 0, a), decode_batch(w, a, b));
  }
  const auto prompts = prompt_lengths(w);
  std::int64_t total = 0;
  for (auto x : prompts) total += x;
  if (total < 2) {
    if (why)
      *why = "a prefill batch of " + std::to_string(total) + " token(s) cannot be split in two";
    return std::nullopt;
  }
  const TboSplit cut = sglang_tbo_split(prompts, w.tbo_token_distribution_threshold);
  // A batch smaller than one prompt is a chunk of a longer prompt: it attends to the cached prefix.
  const bool chunked = w.prompt_lens.empty() && w.tokens_per_gpu < w.context;
  MicroBatch a, b;
  std::int64_t pos = 0;
  for (auto len : prompts) {
    const std::int64_t base_kv = chunked ? w.context - len : 0;
    // Tokens [pos, pos + len) of the batch; A holds [0, token_index). The second part of a cut
    // sequence attends over its first part's KV.
    const std::int64_t in_a = std::clamp<std::int64_t>(cut.token_index - pos, 0, len);
    if (in_a > 0) {
      add_segment(a, in_a, base_kv + in_a);
      a.tokens += in_a;
      ++a.sequences;
    }
    if (len - in_a > 0) {
      add_segment(b, len - in_a, base_kv + len);
      b.tokens += len - in_a;
      ++b.sequences;
    }
    pos += len;
  }
  if (a.tokens == 0 || b.tokens == 0) {
    if (why) *why = "SGLang's split leaves one micro-batch empty";
    return std::nullopt;
  }
  return std::make_pair(a, b);
}

}  // namespace ovs
