// SGLang's split of a batch into two micro-batches (two_batch_overlap.py: compute_split_seq_index,
// compute_split_token_index, _split_array_by_balanced_sum, _is_two_chunk_split_enabled,
// _split_array_by_cum_less_than_half), on hand-made cases with the arithmetic written out.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "models/graph/workload.hpp"

using namespace ovs;

namespace {

Workload prefill(std::vector<std::int64_t> lens) {
  Workload w;
  w.phase = Phase::prefill;
  w.prompt_lens = std::move(lens);
  for (auto x : w.prompt_lens) {
    w.tokens_per_gpu += x;
    w.context = std::max(w.context, x);
  }
  return w;
}

}  // namespace

TEST_CASE("SGLang's prefill split at the balanced sequence boundary", "[tbo-split]") {
  // [4095, 4096, 1], 8192 tokens: boundary 1 leaves 4095 | 4097 (|diff| 2), boundary 2 8191 | 1
  // (8190: larger, the walk stops). 4095 / 8192 = 0.4999 >= 0.48: no cut.
  const TboSplit s = sglang_tbo_split({4095, 4096, 1}, 0.48);
  CHECK(s.seq_index == 1);
  CHECK(s.token_index == 4095);
  CHECK_FALSE(s.cut);
  // [2, 2, 2, 2]: |diff| 4, 0, 4 - boundary 2, 4 tokens.
  const TboSplit e = sglang_tbo_split({2, 2, 2, 2}, 0.48);
  CHECK(e.seq_index == 2);
  CHECK(e.token_index == 4);
  // The micro-batches hold those sequences whole.
  const auto halves = split_batch(prefill({4095, 4096, 1}), nullptr);
  REQUIRE(halves);
  CHECK(halves->first.tokens == 4095);
  CHECK(halves->first.sequences == 1);
  CHECK(halves->second.tokens == 4097);
  CHECK(halves->second.sequences == 2);
}

TEST_CASE("SGLang's prefill split cuts a sequence when a boundary is too lopsided", "[tbo-split]") {
  // [8000, 100, 92], 8192 tokens: boundary 1 leaves 8000 | 192 (|diff| 7808), boundary 2 8100 |
  // 92 (8008: larger, stop). 8000 / 8192 = 0.977 > 1 - 0.48: two-chunk split at 8192 // 2 =
  // 4096 tokens, inside sequence 0 (its running sum 8000 passes 4096 first).
  const TboSplit s = sglang_tbo_split({8000, 100, 92}, 0.48);
  CHECK(s.seq_index == 0);
  CHECK(s.token_index == 4096);
  CHECK(s.cut);
  const auto halves = split_batch(prefill({8000, 100, 92}), nullptr);
  REQUIRE(halves);
  // A: the first 4096 tokens of the long prompt, attending over themselves.
  CHECK(halves->first.tokens == 4096);
  REQUIRE(halves->first.segments.size() == 1);
  CHECK(halves->first.segments[0].q_len == 4096);
  CHECK(halves->first.segments[0].kv_len == 4096);
  // B: its other 3904 tokens over all 8000 of its KV (the first chunk's included), then the two
  // short prompts over themselves.
  CHECK(halves->second.tokens == 3904 + 100 + 92);
  CHECK(halves->second.sequences == 3);
  bool second_chunk = false;
  for (const auto& seg : halves->second.segments)
    second_chunk |= seg.q_len == 3904 && seg.kv_len == 8000;
  CHECK(second_chunk);
  // Ties move the boundary right: [1, 2, 1] has |diff| 2 at both boundaries, so boundary 2 with
  // 3 of 4 tokens on the left (0.75 > 0.52): cut at 4 // 2 = 2 tokens, inside sequence 1 (running
  // sums 1, 3: 3 passes 2 first).
  const TboSplit t = sglang_tbo_split({1, 2, 1}, 0.48);
  CHECK(t.seq_index == 1);
  CHECK(t.token_index == 2);
  CHECK(t.cut);
  // One prompt is always cut at its middle: 4097 // 2 = 2048.
  const TboSplit one = sglang_tbo_split({4097}, 0.48);
  CHECK(one.seq_index == 0);
  CHECK(one.token_index == 2048);
  // A threshold of 0 never cuts: the balanced boundary stands, however lopsided.
  CHECK(sglang_tbo_split({8000, 100, 92}, 0.0).seq_index == 1);
}

TEST_CASE("SGLang's decode split halves the requests whatever their contexts", "[tbo-split]") {
  // 5 requests: A gets 5 // 2 = 2 (contexts 100 and 200), B the other 3 (4000, 8000, 300).
  Workload w;
  w.phase = Phase::decode;
  w.context_lens = {100, 200, 4000, 8000, 300};
  w.tokens_per_gpu = 5;
  w.context = 8000;
  const TboSplit s = tbo_split_of(w);
  CHECK(s.seq_index == 2);
  CHECK(s.token_index == 2);
  const auto halves = split_batch(w, nullptr);
  REQUIRE(halves);
  std::int64_t kv_a = 0, kv_b = 0;
  for (const auto& seg : halves->first.segments) kv_a += seg.count * seg.kv_len;
  for (const auto& seg : halves->second.segments) kv_b += seg.count * seg.kv_len;
  CHECK(kv_a == 100 + 200);
  CHECK(kv_b == 4000 + 8000 + 300);
  // With MTP's two query tokens per request the token index doubles.
  w.decode_q_len = 2;
  CHECK(tbo_split_of(w).token_index == 4);
}
