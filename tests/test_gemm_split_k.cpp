// Split-K in the GEMM model: a library that may cut K across CTAs (the profile's
// kernels.gemm.split_k) picks it when a GEMM has too few output tiles to fill the GPU, pays for it
// with FP32 partial sums written and read back, and never splits where the profile offers only 1
// (DeepGEMM on the NVIDIA profiles).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "models/cost/gemm.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/engine/kernel_model.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {
GemmShape shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}
double alone_us(const HwProfile& hw, const KernelCost& c) {
  return solo_time_us(hw.engine, c.spec(0));
}
}  // namespace

TEST_CASE("split-K: a decode-sized GEMM on MI355X splits K and is faster for it", "[gemm]") {
  const HwProfile hw = load_hw_profile("mi355x");
  REQUIRE(hw.kernels.gemm.split_k.size() > 1);
  // 64 x 64 x 7168: one 64x64 output tile, so without a split one CU runs all of K.
  GemmTile tile;
  const KernelCost split = gemm_cost(hw, shape(64, 64, 7168), 0, &tile);
  CHECK(tile.split_k > 1);
  CHECK(tile.tiles == Approx(1.0 * tile.split_k));  // one output tile, split_k parts
  // Each part writes its 64 x 64 FP32 partial sums and the reduction reads them back:
  // 2 x split x 64 x 64 x 4 B beyond the operands (A 64 x 7168 + its scales, B 64 x 7168 + scales,
  // C 64 x 64 BF16).
  const double operands =
      64.0 * 7168 + 64.0 * 56 * 4 + 64.0 * 7168 + 64.0 * 56 * 4 / 128.0 + 64.0 * 64 * 2;
  CHECK(split.work.hbm_bytes == Approx(operands + 2.0 * tile.split_k * 64 * 64 * 4).epsilon(1e-9));
  // The same GEMM on a copy of the profile that may not split: one CTA, slower.
  HwProfile no_split = hw;
  no_split.kernels.gemm.split_k = {1};
  GemmTile one;
  const KernelCost whole = gemm_cost(no_split, shape(64, 64, 7168), 0, &one);
  CHECK(one.split_k == 1);
  CHECK(alone_us(hw, split) < alone_us(no_split, whole));
}

TEST_CASE("split-K: a GEMM with tiles enough for every CU does not split", "[gemm]") {
  const HwProfile hw = load_hw_profile("mi355x");
  GemmTile tile;
  gemm_cost(hw, shape(4096, 65536, 1536), 0, &tile);  // q_b of V4-Pro prefill: 4096+ tiles
  CHECK(tile.split_k == 1);
}

TEST_CASE("split-K: DeepGEMM profiles never split", "[gemm]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  CHECK(hw.kernels.gemm.split_k == std::vector<int>{1});
  GemmTile tile;
  gemm_cost(hw, shape(64, 64, 7168), 0, &tile);
  CHECK(tile.split_k == 1);
}
