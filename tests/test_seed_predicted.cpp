// Seed 2's V4 prefill attention block (4096 tokens, one CSA layer of V4-Pro) with costs predicted
// on the fitted mi355x profile instead of the seed's measured durations: kernels from the cost
// models, the same streams and events as SGLang's multi-stream plan
// (strategies/deepseek-v4/multistream.yaml). The profile's FP8 GEMM efficiency, per-tile overhead
// and shortest kernel were fitted to three rows of the seed's timeline (wqkv_a, q_a, q_b, read as
// serial durations; calibrate/published/seed2-mi355x.csv, `use: fit`); the block's
// makespan with the side streams (1012 us) and the side branches' sum (1278 us) were held back. A
// replay of the seed's own durations is a separate example
// (strategies/examples/seed-v4-prefill-attention.yaml), not this.
#include <catch2/catch.hpp>

#include "app/analysis/whatif.hpp"
#include "calibrate/fit/seed_block.hpp"
#include "helpers.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {
constexpr double kSeedBlockUs = 1012;  // seed section 2.3: max(q_b, indexer, compressor, kv_write)
}  // namespace

TEST_CASE("seed 2's attention block predicted on mi355x: within 2x of the held-back 1012 us",
          "[seed2]") {
  const SeedBlock b = seed_block(load_hw_profile("mi355x"), "deepseek-v4-pro", 4096);
  INFO("mi355x predicted: multistream " << b.makespan_us << " us, serial " << b.serial_us
                                        << " us, wqkv_a " << b.wqkv_a_us << " us, q_b " << b.q_b_us
                                        << " us (seed: 1012 / 2290 / 77 / 929)");
  // Held back from the fit: the block with its side streams, start to end.
  CHECK(b.makespan_us > 0.5 * kSeedBlockUs);
  CHECK(b.makespan_us < 2.0 * kSeedBlockUs);
  // The side streams shorten the block, and q_b is its longest kernel, as in the seed.
  CHECK(b.makespan_us < b.serial_us);
  CHECK(b.q_b_us > b.wqkv_a_us);
}

TEST_CASE("seed 2 on mi355x: multi-stream saves time per layer, never more than it hides",
          "[seed2]") {
  const WhatIfResult w = run_whatif(whatif_request(
      "deepseek-v4-pro", "mi355x", workload(Phase::prefill, 4096, 4096, 8), "multistream"));
  const double saving_us = w.baseline.per_layer_us - w.overlapped.per_layer_us;
  INFO("per-layer saving " << saving_us << " us (seed: about 1280 us per layer)");
  CHECK(saving_us > 0);
  // What the side streams can hide is bounded by the kernels they move off the main stream: the
  // block's side branches and the shared experts, all alone and one after another.
  const SeedBlock b = seed_block(load_hw_profile("mi355x"), "deepseek-v4-pro", 4096);
  CHECK(saving_us < b.serial_us);
}

TEST_CASE("seed 2's fitted rows, as read in the serial run: wqkv_a and q_a within 20 %, q_b short",
          "[seed2]") {
  // In-sample (seed2-mi355x.csv `use: fit`): the seed read wqkv_a 0-77 us, q_a 77-83 us and q_b
  // 83-1012 us; SGLang runs a 4096-token prefill on one stream (its multi-stream path runs only
  // under decode graph capture, ../shared/data/sglang_v4_platforms.md section 1), so they are
  // serial durations, and the model's are those of its serial run of the block. q_b (825 GF in
  // 929 us, 18 % of the FP8 peak) is twice as slow per FLOP as wqkv_a (124 GF in 77 us, 32 %):
  // the GEMM model's per-tile overhead (at most 10 us, calibrate/fit/fit_published.cpp) cannot
  // take both, and q_b stays a third short - a known miss the README states.
  const HwProfile hw = load_hw_profile("mi355x");
  const std::tuple<const char*, double, double, double> rows[] = {
      {"wqkv_a", 77, 0.8, 1.2}, {"q_a_norm", 6, 0.8, 1.2}, {"q_b", 929, 0.6, 0.8}};
  for (const auto& [kernel, seed_us, low, high] : rows) {
    const double us = seed_serial_us(hw, "deepseek-v4-pro", 4096, {kernel}, V4Kernels::rocm_2605);
    INFO(kernel << ": model " << us << " us in the serial run, seed " << seed_us << " us");
    CHECK(us > low * seed_us);
    CHECK(us < high * seed_us);
  }
}

TEST_CASE("seed 2's block makespan on mi355x within 20 % of the held-back 1012 us", "[seed2]") {
  // Held back from the fit (`use: check`): the block start to end with the side streams.
  const SeedBlock b = seed_block(load_hw_profile("mi355x"), "deepseek-v4-pro", 4096);
  INFO("model " << b.makespan_us << " us, seed 1012 us");
  CHECK(b.makespan_us > 0.8 * kSeedBlockUs);
  CHECK(b.makespan_us < 1.2 * kSeedBlockUs);
}

TEST_CASE(
    "seed 2's on-vs-off comparison: multistream against multistream-off moves only the "
    "attention prepare",
    "[seed2]") {
  // The seed's variable switches only _forward_prepare_multi_stream; the shared experts run on the
  // MoE side stream either way (strategies/deepseek-v4/multistream-off.yaml). So against
  // multistream-off the saving is the attention block's alone, and it is smaller than against
  // no-overlap by what the shared experts hide beside the routed experts (which is > 0).
  auto run = [](Phase phase, int tokens, const char* baseline) {
    WhatIfRequest r = whatif_request("deepseek-v4-pro", "mi355x", workload(phase, tokens, 4096, 8),
                                     "multistream");
    r.baseline = baseline;
    const WhatIfResult w = run_whatif(r);
    return w.baseline.per_layer_us - w.overlapped.per_layer_us;
  };
  for (const auto& [phase, tokens] : {std::pair{Phase::prefill, 4096}, {Phase::decode, 64}}) {
    const double like_for_like = run(phase, tokens, "multistream-off");
    const double with_shared = run(phase, tokens, "no-overlap");
    INFO("tokens " << tokens << ": saving per layer " << like_for_like
                   << " us against multistream-off, " << with_shared << " us against no-overlap");
    CHECK(like_for_like > 0);
    CHECK(like_for_like < with_shared);
  }
}
