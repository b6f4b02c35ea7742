#include "models/graph/workload.hpp"

#include <algorithm>
#include <cmath>

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
namespace {

// Prefill: tokens_per_gpu tokens made of prompts of `context` tokens (the last one shorter);
// a batch smaller than one prompt is a chunk of a longer prompt (its prefix already cached).
std::vector<std::int64_t> prompt_lengths(const Workload& w) {
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

MicroBatch decode_batch(const Workload& w, std::int64_t requests) {
  MicroBatch mb;
  mb.sequences = requests;
  mb.tokens = requests * w.decode_q_len;
  if (requests > 0) mb.segments.push_back({w.decode_q_len, w.context, requests});
  return mb;
}

}  // namespace

MicroBatch whole_batch(const Workload& w) {
  if (w.phase == Phase::decode) return decode_batch(w, w.tokens_per_gpu);
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
    return std::make_pair(decode_batch(w, a), decode_batch(w, b));
  }
  const auto prompts = prompt_lengths(w);
  const std::int64_t total = w.tokens_per_gpu;
  if (total < 2) {
    if (why)
      *why = "a prefill batch of " + std::to_string(total) + " token(s) cannot be split in two";
    return std::nullopt;
  }
  // Best sequence boundary.
  std::int64_t best_left = 0, acc = 0;
  size_t best_k = 0;
  for (size_t k = 1; k < prompts.size(); ++k) {
    acc += prompts[k - 1];
    if (std::llabs(2 * acc - total) < std::llabs(2 * best_left - total) || best_k == 0) {
      best_left = acc;
      best_k = k;
    }
  }
  MicroBatch a, b;
  const double share = double(best_left) / double(total);
  const bool chunked = w.tokens_per_gpu < w.context;
  if (best_k > 0 && share >= 0.48 && share <= 0.52) {
    for (size_t i = 0; i < prompts.size(); ++i) {
      MicroBatch& mb = i < best_k ? a : b;
      add_segment(mb, prompts[i], chunked ? w.context : prompts[i]);
      mb.tokens += prompts[i];
      ++mb.sequences;
    }
  } else {
    // Token midpoint: the prompt that straddles it is cut; its second part attends to the first.
    const std::int64_t mid = total / 2;
    std::int64_t pos = 0;
    for (auto len : prompts) {
      const std::int64_t base_kv = chunked ? w.context - len : 0;
      const std::int64_t in_a = std::clamp<std::int64_t>(mid - pos, 0, len);
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
  }
  return std::make_pair(a, b);
}

}  // namespace ovs
