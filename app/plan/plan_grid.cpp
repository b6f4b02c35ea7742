// The search grid of `overlapsim plan` and its Pareto frontier.
#include <algorithm>
#include <numeric>

#include "app/plan/plan.hpp"

namespace ovs {

std::vector<long long> default_plan_tokens(Phase phase) {
  // Decode: requests per GPU from 1 to 512 (SGLang's low-latency DeepEP buffers are sized per
  // rank; past a few hundred the KV cache fills an 80 GB GPU); prefill: tokens per GPU from a
  // short chunk to 32K (TBO prefill measured at 16K tokens per GPU, BRIEF section 5).
  if (phase == Phase::decode) return {1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512};
  return {512, 1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768};
}

std::vector<int> plan_eps(int gpus, int gpus_per_node) {
  // One EP group is one SGLang instance (DP attention and EP over the same GPUs); the GPUs hold
  // gpus / EP instances. A group spans whole nodes, or all the GPUs when they are fewer.
  std::vector<int> out;
  for (int ep = 1; ep <= gpus; ++ep) {
    if (gpus % ep != 0) continue;
    const bool whole_nodes = ep % gpus_per_node == 0;
    if (whole_nodes || ep == gpus) out.push_back(ep);
  }
  return out;
}

int min_redundant_experts(int routed_experts, int ep) {
  return ep <= 0 ? 0 : (ep - routed_experts % ep) % ep;
}

std::vector<size_t> pareto_frontier(const std::vector<std::pair<double, double>>& latency_tput) {
  std::vector<size_t> order(latency_tput.size());
  std::iota(order.begin(), order.end(), 0);
  // Latency ascending, then throughput descending, then the first given.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (latency_tput[a].first != latency_tput[b].first)
      return latency_tput[a].first < latency_tput[b].first;
    return latency_tput[a].second > latency_tput[b].second;
  });
  // Walking up in latency, a point is on the frontier when it beats every faster point's
  // throughput: otherwise one of them has at least its throughput at no more latency.
  std::vector<size_t> out;
  double best_tput = -1;
  for (size_t i : order)
    if (latency_tput[i].second > best_tput) {
      out.push_back(i);
      best_tput = latency_tput[i].second;
    }
  return out;
}

}  // namespace ovs
