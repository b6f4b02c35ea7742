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

std::vector<int> plan_eps(int gpus, int gpus_per_node, int gpus_per_host) {
  // One EP group is one SGLang instance (DP attention and EP over the same GPUs); the GPUs hold
  // gpus / EP instances. A group is whole hosts (SGLang's nodes): inside an NVLink domain any
  // number of them that tiles the domain, so no instance straddles two domains (or any that
  // divides the GPUs when they are one domain or less: GB200's published EP 48 on 48 GPUs);
  // beyond a domain, whole domains. All the GPUs when they are fewer than a host.
  const int host = gpus_per_host > 0 ? gpus_per_host : gpus_per_node;
  std::vector<int> out;
  for (int ep = 1; ep <= gpus; ++ep) {
    if (gpus % ep != 0) continue;
    const bool whole_hosts = ep % host == 0;
    const bool in_domain =
        ep <= gpus_per_node && (gpus <= gpus_per_node || gpus_per_node % ep == 0);
    const bool whole_domains = ep % gpus_per_node == 0;
    if ((whole_hosts && (in_domain || whole_domains)) || ep == gpus) out.push_back(ep);
  }
  return out;
}

std::vector<int> larger_eps(int gpus, int gpus_per_node, int gpus_per_host, int limit) {
  // gpus_per_host divides gpus_per_node (the profile and run_plan check it), so the host steps
  // land on the domain, then the steps are whole domains.
  const int host = gpus_per_host > 0 ? gpus_per_host : gpus_per_node;
  std::vector<int> out;
  for (int ep = host; ep <= limit; ep += ep < gpus_per_node ? host : gpus_per_node)
    if (ep > gpus) out.push_back(ep);
  return out;
}

int sglang_nnodes(int ep, int gpus_per_host) {
  return gpus_per_host <= 0 || ep <= gpus_per_host ? 1 : (ep + gpus_per_host - 1) / gpus_per_host;
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
