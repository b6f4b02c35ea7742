#pragma once
// Seed 2's DeepSeek-V4 prefill attention block (a CSA layer of `tokens` prefill tokens) predicted
// on a profile from the model's own layer graph: the kernels before the attention kernel, under
// SGLang's multi-stream plan (strategies/deepseek-v4/multistream.yaml: side streams, events) or
// one after another on one stream. The seed's timeline rows (calibrate/published/seed2-*.csv)
// and the seed-2 tests predict through these.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hw/hw_profile.hpp"

namespace ovs {

struct SeedBlock {
  double makespan_us = 0;  // the block, start to end
  double serial_us = 0;    // the same kernels on one stream
  double wqkv_a_us = 0;    // durations inside the run (with the side streams when multistream)
  double q_b_us = 0;
};

SeedBlock seed_block(const HwProfile& hw, const std::string& model, std::int64_t tokens);

// Makespan of the block with the side streams (multistream) or serially.
double seed_block_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                     bool multistream);

// The side branches' kernels (names starting with one of `prefixes`) alone, one after another.
double seed_side_branches_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                             const std::vector<std::string>& prefixes);

// The durations, inside the block's multi-stream run, of the kernels whose names start with one
// of `prefixes`, summed: what a profiler shows for them in that run (the seed's timeline rows were
// read from such a run, where each kernel shares its CUs with the side streams).
double seed_in_run_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                      const std::vector<std::string>& prefixes);

}  // namespace ovs
