// What an SGLang process holds besides weights, its KV pool and the transients, all of it in the
// (1 - f) x C that --mem-fraction-static leaves: DeepEP's buffers, the CUDA-graph pool, a
// framework reserve and the request-to-token table. The low-latency buffer follows DeepEP's own
// layout and the request-to-token table SGLang's (sglang_flags_memory.md B2); the rest are the
// hardware profile's memory: numbers (each with its source).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/memory/memory_model.hpp"
#include "models/memory/sglang_server.hpp"
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
                 "normal mode: memory.deepep_normal_buffer_gb of " + hw.name,
                 MemoryKind::overhead});
  } else {
    const int experts = w.physical_experts(m.routed_experts);
    const long long tokens =
        std::max<long long>(mp.deepep_ll_max_tokens_per_rank, largest_micro_batch_tokens(w, split));
    t.push_back({"DeepEP buffers", deepep_low_latency_bytes(m.hidden, experts, tokens),
                 fmt::format("low-latency layout: 2 x (send + receive) for {} experts x {} "
                             "tokens per rank of hidden {}",
                             experts, tokens, m.hidden),
                 MemoryKind::overhead});
  }
  if (w.graphs())
    t.push_back({"CUDA-graph pool", mp.cuda_graph_pool_gb * units::kBytesPerGB,
                 "memory.cuda_graph_pool_gb of " + hw.name, MemoryKind::overhead});
  t.push_back({"framework reserve", mp.framework_reserve_gb * units::kBytesPerGB,
               "memory.framework_reserve_gb of " + hw.name + " (CUDA context, NCCL, workspaces)",
               MemoryKind::overhead});
  return t;
}

MemoryTerm req_to_token_term(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                             double pool_tokens) {
  // SGLang's ReqToTokenPool: int32 [max requests per DP rank + 1, context_len + 4 + draft
  // tokens]. The requests per rank: the server's --max-running-requests divided over the DP
  // ranks, else the model's own default likewise, else min(clamp(pool tokens / context_len x
  // 512, 2048, 4096), pool tokens / 2) (sglang_flags_memory.md A.2 --max-running-requests, B2).
  const auto& r = hw.memory.sglang_requests;
  const SglangServer s = sglang_server_of(w);
  const double dp = double(std::max(1, s.dp));
  const double half_pool = std::floor(std::max(0.0, pool_tokens) / 2);
  double requests = 0;
  std::string why;
  const long long given =
      s.max_running_requests > 0 ? s.max_running_requests : m.kv_default_max_running_requests;
  if (given > 0) {
    requests = std::min(std::floor(double(given) / dp), half_pool);
    why = fmt::format(
        "min({} {} / {:g} DP ranks, {:g} = pool tokens / 2)", given,
        s.max_running_requests > 0 ? "--max-running-requests" : "(the model's SGLang default)", dp,
        half_pool);
  } else {
    const double by_pool =
        std::floor(std::max(0.0, pool_tokens) / m.kv_context_len * r.default_per_pool_context);
    requests = std::min(std::clamp(by_pool, r.default_min, r.default_max), half_pool);
    why = fmt::format("min(clamp({:g} pool tokens / {} x {:g}, {:g}, {:g}), {:g})", pool_tokens,
                      m.kv_context_len, r.default_per_pool_context, r.default_min, r.default_max,
                      half_pool);
  }
  const double width = double(m.kv_context_len) + r.table_extra_tokens + double(s.draft_tokens);
  constexpr double kInt32Bytes = 4;
  MemoryTerm t{"request-to-token table", (requests + 1) * width * kInt32Bytes, "",
               MemoryKind::overhead};
  t.how = fmt::format("({:g} requests per rank = {}, + 1) x ({} context + {:g} + {} draft) x 4 B",
                      requests, why, m.kv_context_len, r.table_extra_tokens, s.draft_tokens);
  return t;
}

}  // namespace ovs
