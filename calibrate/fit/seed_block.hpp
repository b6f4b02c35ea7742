#pragma once
// Seed 2's DeepSeek-V4 prefill attention block (a CSA layer of `tokens` prefill tokens) predicted
// on a profile from the model's own layer graph: the kernels before the attention kernel, under
// SGLang's multi-stream plan (strategies/deepseek-v4/multistream.yaml: side streams, events) or
// one after another on one stream. The seed's timeline rows (calibrate/published/seed2-*.csv)
// and the seed-2 tests predict through these.
#include <cstdint>
#include <string>
#include <vector>

#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct SeedBlock {
  double makespan_us = 0;  // the block, start to end
  double serial_us = 0;    // the same kernels on one stream
  double wqkv_a_us = 0;    // durations in the serial run (as the seed read them)
  double q_b_us = 0;
  int side_kernels = 0;  // launches of the side branches (KV write, compressors, indexer)
};

// `path`: the side branches' code path (the seed ran ROCm in May 2026: V4Kernels::rocm_2605).
SeedBlock seed_block(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                     V4Kernels path = V4Kernels::fused);

// Makespan of the block with the side streams (multistream) or serially.
double seed_block_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                     bool multistream, V4Kernels path = V4Kernels::fused);

// The side branches' kernels (names starting with one of `prefixes`) alone, one after another.
double seed_side_branches_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                             const std::vector<std::string>& prefixes,
                             V4Kernels path = V4Kernels::fused);

// The durations, in the block's serial run (one stream, as SGLang runs a 4096-token prefill:
// its multi-stream path runs only under decode graph capture, sglang_v4_platforms.md section 1),
// of the kernels whose names start with one of `prefixes`, summed: what a profiler shows for them.
double seed_serial_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                      const std::vector<std::string>& prefixes, V4Kernels path = V4Kernels::fused);

}  // namespace ovs
