#pragma once
// What the GPUs are asked to do, and how a batch is cut into two micro-batches the way SGLang
// cuts it (two_batch_overlap.py).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cost/comm.hpp"

namespace ovs {

enum class Phase { prefill, decode };

struct Workload {
  Phase phase = Phase::decode;
  std::int64_t tokens_per_gpu = 0;  // prefill: tokens; decode: requests
  std::int64_t context = 0;         // prefill: prompt length; decode: KV length
  int ep = 8;
  int gpus_per_node = 8;
  bool dp_attention = true;
  // Hottest rank's expert load over the mean: the combine waits for it. Default 1.15: prefill
  // layers measured ~15 % slower with default EPLB than with perfect balance (BRIEF section 3).
  double imbalance = 1.15;
  std::optional<bool> cuda_graphs;        // default: on for decode, off for prefill
  std::optional<DeepepMode> deepep_mode;  // default: normal for prefill, low-latency for decode
  int decode_q_len = 1;                   // query tokens per request per step (MTP: 2)
  // SGLang's --ep-num-redundant-experts: extra physical copies of hot experts (EPLB). Physical
  // experts = routed + redundant; EP must divide them.
  int redundant_experts = 0;

  int physical_experts(int routed_experts) const { return routed_experts + redundant_experts; }

  bool graphs() const { return cuda_graphs.value_or(phase == Phase::decode); }
  DeepepMode mode() const {
    return deepep_mode.value_or(phase == Phase::prefill ? DeepepMode::normal
                                                        : DeepepMode::low_latency);
  }
  // Tokens this GPU processes in one forward.
  std::int64_t tokens() const {
    return phase == Phase::prefill ? tokens_per_gpu : tokens_per_gpu * decode_q_len;
  }
};

// One micro-batch: its tokens and the attention segments (query tokens, keys) of its sequences.
struct Segment {
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  std::int64_t count = 1;  // identical segments
};
struct MicroBatch {
  std::int64_t tokens = 0;
  std::int64_t sequences = 0;
  std::vector<Segment> segments;
};

// The whole batch as one micro-batch.
MicroBatch whole_batch(const Workload& w);

// SGLang's split: decode by sequences (A gets floor(n/2)); prefill on the sequence boundary that
// best balances tokens, else (left share outside [0.48, 0.52]) at the token midpoint, splitting one
// prompt across both halves. Returns nothing when a half would be empty (e.g. one request); `why`
// then says so.
std::optional<std::pair<MicroBatch, MicroBatch>> split_batch(const Workload& w, std::string* why);

}  // namespace ovs
