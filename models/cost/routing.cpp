#include "models/cost/routing.hpp"
#include "sim/core/caches.hpp"

#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ovs {
namespace {

// log of the binomial coefficient C(n, k).
double log_choose(int n, int k) {
  if (k < 0 || k > n) return -INFINITY;
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

// Probability that a set of `held` experts among `pool` gets none of `draws` uniform draws
// without replacement.
double p_miss(int pool, int held, int draws) {
  if (held <= 0) return 1.0;
  if (pool - held < draws) return 0.0;
  return std::exp(log_choose(pool - held, draws) - log_choose(pool, draws));
}

// Calls f(mask) for each subset of `n` groups with `k` members.
template <typename F>
void for_each_subset(int n, int k, int start, unsigned mask, int chosen, F& f) {
  if (chosen == k) {
    f(mask);
    return;
  }
  for (int g = start; g < n; ++g) for_each_subset(n, k, g + 1, mask | (1u << g), chosen + 1, f);
}

}  // namespace

namespace {
RoutingStats compute_routing_stats(const RoutingSpec& r);
}  // namespace

RoutingStats routing_stats(const RoutingSpec& r) {
  // The same few layouts are asked for by every layer of every program: remember them (per
  // thread, so sweeps need no lock).
  if (!caches_enabled()) return compute_routing_stats(r);
  thread_local std::map<std::array<int, 6>, RoutingStats> memo;
  const std::array<int, 6> key{r.experts,     r.topk,    r.groups,
                               r.topk_groups, r.ep_size, r.gpus_per_node};
  auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  const RoutingStats s = compute_routing_stats(r);
  if (memo.size() > 4096) memo.clear();
  memo.emplace(key, s);
  return s;
}

namespace {
RoutingStats compute_routing_stats(const RoutingSpec& r) {
  if (r.ep_size <= 0 || r.experts % r.ep_size != 0)
    throw std::invalid_argument(std::to_string(r.experts) +
                                " experts cannot be spread evenly over EP " +
                                std::to_string(r.ep_size));
  if (r.gpus_per_node <= 0) throw std::invalid_argument("GPUs per node must be positive");
  if (r.groups <= 0 || r.experts % r.groups != 0 || r.topk_groups <= 0 || r.topk_groups > r.groups)
    throw std::invalid_argument(
        "expert groups must divide the experts and top-k groups be <= groups");
  if (r.groups > 30) throw std::invalid_argument("at most 30 expert groups");
  const int per_group = r.experts / r.groups;
  if (r.topk > r.topk_groups * per_group)
    throw std::invalid_argument("top-k exceeds the experts a token may use");
  const int per_rank = r.experts / r.ep_size;
  const int gpn = std::min(r.gpus_per_node, r.ep_size);
  const int nodes = (r.ep_size + gpn - 1) / gpn;
  RoutingStats s;
  s.nodes = nodes;

  // Experts of each rank (and node) inside a set of groups: each span of experts, as (group, how
  // many of the span's experts it holds) pairs, so a subset costs one add per group touched.
  using Span = std::vector<std::pair<int, int>>;
  auto span_of = [&](int first_expert, int count) {
    Span out;
    for (int e = first_expert; e < first_expert + count; ++e) {
      const int g = e / per_group;
      if (out.empty() || out.back().first != g) out.push_back({g, 0});
      ++out.back().second;
    }
    return out;
  };
  auto experts_in = [](const Span& span, unsigned mask) {
    int n = 0;
    for (const auto& [g, count] : span)
      if ((mask >> g) & 1u) n += count;
    return n;
  };

  double subsets = 0;
  std::vector<double> p_rank(r.ep_size, 0.0), p_node(nodes, 0.0);
  // p_miss for every count of held experts, computed once (the subsets repeat the same counts).
  const int pool = r.topk_groups * per_group;
  std::vector<double> miss(static_cast<size_t>(r.experts) + 1);
  for (size_t held = 0; held < miss.size(); ++held)
    miss[held] = p_miss(pool, static_cast<int>(held), r.topk);
  std::vector<Span> rank_spans, node_spans;
  for (int k = 0; k < r.ep_size; ++k) rank_spans.push_back(span_of(k * per_rank, per_rank));
  for (int n = 0; n < nodes; ++n)
    node_spans.push_back(
        span_of(n * gpn * per_rank, std::min(gpn, r.ep_size - n * gpn) * per_rank));
  auto visit = [&](unsigned mask) {
    subsets += 1;
    for (int k = 0; k < r.ep_size; ++k)
      p_rank[k] += 1 - miss[static_cast<size_t>(experts_in(rank_spans[k], mask))];
    for (int n = 0; n < nodes; ++n)
      p_node[n] += 1 - miss[static_cast<size_t>(experts_in(node_spans[n], mask))];
  };
  for_each_subset(r.groups, r.topk_groups, 0, 0u, 0, visit);
  for (auto& p : p_rank) p /= subsets;
  for (auto& p : p_node) p /= subsets;

  // The sender is rank 0 of node 0; by symmetry of uniform routing over its tokens' groups this
  // stands for every rank.
  for (int k = 0; k < r.ep_size; ++k) {
    s.ranks_per_token += p_rank[k];
    if (k != 0) s.remote_ranks_per_token += p_rank[k];
    if (k != 0 && k < gpn) s.same_node_ranks_per_token += p_rank[k];
  }
  for (int n = 0; n < nodes; ++n) {
    s.nodes_per_token += p_node[n];
    if (n != 0) s.remote_nodes_per_token += p_node[n];
    // Inside node n the token arrives at the rank with the sender's local index (node 0: the
    // sender itself) and is copied to every other rank of that node that holds its experts.
    for (int k = n * gpn + 1; k < std::min((n + 1) * gpn, r.ep_size); ++k)
      s.nvlink_copies_per_token += p_rank[k];
  }
  return s;
}
}  // namespace

}  // namespace ovs
