#pragma once
// Test fixtures: a workload from its four usual numbers, and a what-if request of one.
#include <cstdint>
#include <string>

#include "app/analysis/whatif.hpp"
#include "models/graph/workload.hpp"

namespace ovs::test {

// A workload of `tokens` per GPU in `phase`, each with `context` tokens before it, on EP `ep`;
// everything else as a default Workload has it.
inline Workload workload(Phase phase, std::int64_t tokens, std::int64_t context, int ep) {
  Workload w;
  w.phase = phase;
  w.tokens_per_gpu = tokens;
  w.context = context;
  w.ep = ep;
  return w;
}

// Decode of `requests` per GPU (KV 2000) on EP 72 with 32 redundant experts: with DeepSeek-V3's
// 256 routed experts, 288 physical ones, 4 on each GPU.
inline Workload ep72_redundant_decode(std::int64_t requests) {
  Workload w = workload(Phase::decode, requests, 2000, 72);
  w.redundant_experts = 32;
  return w;
}

// A what-if of `strategy` against the default baseline for `model` on `hw`.
inline WhatIfRequest whatif_request(const std::string& model, const std::string& hw,
                                    const Workload& workload, const std::string& strategy) {
  return WhatIfRequest{.model = model, .hw = hw, .workload = workload, .strategy = strategy};
}

}  // namespace ovs::test
