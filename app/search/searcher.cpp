#include "app/search/searcher.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ovs {
namespace {

struct TopK {
  int k;
  std::vector<Scored> items;
  double worst() const {
    return int(items.size()) < k ? std::numeric_limits<double>::infinity() : items.back().us;
  }
  double best() const {
    return items.empty() ? std::numeric_limits<double>::infinity() : items.front().us;
  }
  void offer(const Candidate& c, double us) {
    if (!(us < worst())) return;
    const std::string key = c.describe() + "|" + std::to_string(c.delta) + std::to_string(c.tbo) +
                            std::to_string(c.deep_gemm_auto) + std::to_string(int(c.mode)) +
                            std::to_string(c.side_streams);
    for (const auto& s : items)
      if (s.c.describe() + "|" + std::to_string(s.c.delta) + std::to_string(s.c.tbo) +
              std::to_string(s.c.deep_gemm_auto) + std::to_string(int(s.c.mode)) +
              std::to_string(s.c.side_streams) ==
          key)
        return;
    items.push_back({c, us});
    std::stable_sort(items.begin(), items.end(),
                     [](const Scored& a, const Scored& b) { return a.us < b.us; });
    if (int(items.size()) > k) items.pop_back();
  }
};

Candidate with_mask(const Candidate& branch, const std::vector<int>& gaps,
                    unsigned long long mask) {
  Candidate c = branch;
  c.tbo = true;
  c.yield_after.assign(c.ops.size(), 0);
  for (size_t g = 0; g < gaps.size(); ++g)
    if (mask >> g & 1ULL) c.yield_after[gaps[g]] = 1;
  return c;
}

// Delta stages 0-3, at most the yields a layer has.
int max_delta(const Candidate& c) {
  return std::min<int>(3,
                       static_cast<int>(std::count(c.yield_after.begin(), c.yield_after.end(), 1)));
}

}  // namespace

namespace {
// Seed masks: a yield between each communication op and its other half, with and without one
// after attention and at the layer's end.
std::vector<unsigned long long> seed_masks(const std::vector<std::string>& ops,
                                           const std::vector<int>& gaps) {
  auto pos = [&](const char* op) {
    return static_cast<int>(std::find(ops.begin(), ops.end(), op) - ops.begin());
  };
  auto bit_for = [&](int gap) {
    for (size_t g = 0; g < gaps.size(); ++g)
      if (gaps[g] == gap) return 1ULL << g;
    return 0ULL;
  };
  unsigned long long split = 0;
  for (auto [a, b] : {std::pair<const char*, const char*>{"dispatch_a", "dispatch_b"},
                      {"combine_a", "combine_b"}}) {
    const int pa = pos(a), pb = pos(b);
    if (pa < int(ops.size()) && pb < int(ops.size()))
      split |= bit_for(pb - 1);  // right before the _b half
  }
  unsigned long long attn = 0;
  for (const char* op : {"attn.prepare", "attn.core", "attn"})
    if (pos(op) < int(ops.size())) attn |= bit_for(pos(op));
  const unsigned long long end = 1ULL << (gaps.size() - 1);
  std::vector<unsigned long long> out;
  for (unsigned long long m : {split, split | attn, split | end, split | attn | end})
    if (m && std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  return out;
}
}  // namespace

std::string kind_of(const Candidate& c) {
  return std::string(c.mode == DeepepMode::normal ? "normal" : "low_latency") +
         (c.deep_gemm_auto ? "+cap" : "") + (c.side_streams ? "+side" : "") + (c.tbo ? "+tbo" : "");
}

LayerSearch search_layer(const std::vector<Candidate>& branches, const Evaluator& eval,
                         const BranchBound& bound, int top_k, long long budget) {
  LayerSearch out;
  TopK top{std::max(1, top_k), {}};
  std::map<std::string, Scored> by_kind;
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < branches.size(); ++i) order.emplace_back(bound(branches[i]), i);
  std::stable_sort(order.begin(), order.end());
  out.stats.branches = static_cast<int>(branches.size());
  auto try_one = [&](const Candidate& c) {
    ++out.stats.evaluated;
    const double us = eval(c);
    top.offer(c, us);
    auto& k = by_kind[kind_of(c)];
    if (us < k.us) k = {c, us};
    return us;
  };
  for (size_t bi = 0; bi < order.size(); ++bi) {
    const auto& [lb, idx] = order[bi];
    const Candidate& branch = branches[idx];
    const auto gaps = yield_gaps(branch.ops);
    const long long subsets = 1LL << gaps.size();
    out.stats.space += 1 + (subsets - 1) * 4;
    if (lb >= top.best()) {
      ++out.stats.pruned_branches;
      continue;
    }
    // The budget left is shared fairly by the branches still to come.
    const long long share = std::max<long long>(
        8, (budget - out.stats.evaluated) / static_cast<long long>(order.size() - bi));
    const long long stop = out.stats.evaluated + share;
    std::set<unsigned long long> visited;
    // Deltas in increasing order; a deeper head start that does worse than the shallower one
    // ends the walk (the pipeline only fills further from there).
    auto score_mask = [&](unsigned long long mask) {
      double best = std::numeric_limits<double>::infinity();
      Candidate c = with_mask(branch, gaps, mask);
      for (int d = 0; d <= max_delta(c); ++d) {
        c.delta = d;
        const double us = try_one(c);
        if (us > best) break;
        best = us;
      }
      return best;
    };
    // Without two-batch overlap: the order alone (single-batch overlap when it interleaves).
    Candidate single = branch;
    single.tbo = false;
    single.delta = 0;
    single.yield_after.assign(branch.ops.size(), 0);
    try_one(single);
    if ((subsets - 1) * 4 <= stop - out.stats.evaluated) {
      for (unsigned long long mask = 1; mask < static_cast<unsigned long long>(subsets); ++mask)
        score_mask(mask);
      continue;
    }
    out.stats.exhaustive = false;
    std::vector<std::pair<double, unsigned long long>> frontier;
    for (unsigned long long m : seed_masks(branch.ops, gaps))
      if (visited.insert(m).second) frontier.emplace_back(score_mask(m), m);
    std::sort(frontier.begin(), frontier.end());
    const size_t beam = 3;
    if (frontier.size() > beam) frontier.resize(beam);
    while (!frontier.empty() && out.stats.evaluated < stop) {
      std::vector<std::pair<double, unsigned long long>> next;
      for (const auto& [s, mask] : frontier)
        for (size_t g = 0; g < gaps.size() && out.stats.evaluated < stop; ++g) {
          const unsigned long long m = mask ^ (1ULL << g);
          if (!m || !visited.insert(m).second) continue;
          const double us = score_mask(m);
          if (us < s) next.emplace_back(us, m);
        }
      std::sort(next.begin(), next.end());
      if (next.size() > beam) next.resize(beam);
      frontier = next;
    }
  }
  out.top = top.items;
  for (const auto& [kind, s] : by_kind)
    if (std::isfinite(s.us)) out.best_by_kind.push_back(s);
  std::stable_sort(out.best_by_kind.begin(), out.best_by_kind.end(),
                   [](const Scored& a, const Scored& b) { return a.us < b.us; });
  return out;
}

}  // namespace ovs
