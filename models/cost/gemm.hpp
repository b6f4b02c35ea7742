#pragma once
// GEMM cost model: dense, grouped contiguous and grouped masked layouts; BF16, FP8 (with 128-wide
// block scales) and FP4 (with 32-wide block scales). It picks the tile the way a tuned library
// does (the shortest predicted time over the architecture's tile options on the SMs it gets),
// then prices tile and wave quantization, per-tile overhead, operand bytes with L2 re-reads,
// and a fixed latency. Parameters: the profile's kernels.gemm section.
#include <cstdint>
#include <string>

#include "models/cost/kernel_cost.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

enum class GemmLayout { dense, contiguous, masked };
const char* layout_name(GemmLayout l);

struct GemmShape {
  std::int64_t m = 0;  // rows per group (masked: expected rows per group)
  std::int64_t n = 0;
  std::int64_t k = 0;
  int groups = 1;
  GemmLayout layout = GemmLayout::dense;
  Dtype dtype = Dtype::fp8;
  double out_bytes = 2;  // BF16 output
  double b_value_bytes =
      0;                 // weight bytes per value if not the dtype's (FP4 weights on FP8 MMA: 0.5)
  std::string a_tensor;  // named input (activations) for L2 reuse; empty: unnamed
  std::string b_tensor;  // named weights
  std::string c_tensor;  // named output
};

struct GemmTile {
  int block_m = 0;
  int block_n = 0;
  double tiles = 0;  // expected tiles (masked layouts: averaged over the per-group spread)
  int waves = 0;
  int split_k = 1;  // K cut into this many parts, one tile each, partial sums reduced after
};

// Prices the GEMM for `sms` SMs (0: all of the GPU). Throws InputError on an impossible shape.
KernelCost gemm_cost(const HwProfile& hw, const GemmShape& s, int sms = 0,
                     GemmTile* chosen = nullptr);
// The same for a layer plan: named `name` (the kernel's role) instead of by its shape, and no
// `detail` (only `overlapsim kernel` shows it): nothing is formatted.
KernelCost gemm_cost_named(const HwProfile& hw, const GemmShape& s, const std::string& name);

}  // namespace ovs
