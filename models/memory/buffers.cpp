// What a serving process holds besides weights, KV cache and activations: DeepEP's buffers, the
// CUDA-graph pool and a framework reserve. The low-latency buffer follows DeepEP's own layout;
// the rest are the hardware profile's memory: numbers (each with its source).
#include <fmt/format.h>

#include <algorithm>

#include "models/memory/memory_model.hpp"
#include "sim/core/units.hpp"

namespace ovs {

double deepep_low_latency_bytes(int hidden, int experts, long long tokens_per_rank) {
  // DeepEP csrc/config.hpp, LowLatencyLayout: a dispatch message is a 16-byte header plus the
  // token in BF16 or in FP8 with an FP32 scale per 128 values, whichever is larger; a combine
  // message is the token in BF16. Send buffer: max(tokens x dispatch, experts x tokens x
  // combine); receive buffer: experts x tokens x the larger message; a receive count per expert
  // for each direction. Two such halves alternate between calls.
  constexpr double kHeaderBytes = 16, kBf16 = 2, kFp32 = 4, kScaleGroup = 128, kCountBytes = 4;
  const double h = hidden, e = experts, t = double(tokens_per_rank);
  const double dispatch = kHeaderBytes + std::max(h * kBf16, h + h / kScaleGroup * kFp32);
  const double combine = h * kBf16;
  const double send = std::max(t * dispatch, e * t * combine);
  const double recv = e * t * std::max(dispatch, combine);
  const double signaling = 2 * e * kCountBytes;
  return 2 * (send + recv + signaling);
}

std::vector<MemoryTerm> buffer_terms(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                                     bool split) {
  const auto& mp = hw.memory;
  std::vector<MemoryTerm> t;
  if (w.mode() == DeepepMode::normal) {
    t.push_back({"DeepEP buffers", mp.deepep_normal_buffer_gb * units::kBytesPerGB,
                 "normal mode: memory.deepep_normal_buffer_gb of " + hw.name});
  } else {
    const int experts = w.physical_experts(m.routed_experts);
    const long long tokens =
        std::max<long long>(mp.deepep_ll_max_tokens_per_rank, largest_micro_batch_tokens(w, split));
    t.push_back({"DeepEP buffers", deepep_low_latency_bytes(m.hidden, experts, tokens),
                 fmt::format("low-latency layout: 2 x (send + receive) for {} experts x {} "
                             "tokens per rank of hidden {}",
                             experts, tokens, m.hidden)});
  }
  if (w.graphs())
    t.push_back({"CUDA-graph pool", mp.cuda_graph_pool_gb * units::kBytesPerGB,
                 "memory.cuda_graph_pool_gb of " + hw.name});
  t.push_back({"framework reserve", mp.framework_reserve_gb * units::kBytesPerGB,
               "memory.framework_reserve_gb of " + hw.name});
  return t;
}

}  // namespace ovs
