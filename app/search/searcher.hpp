#pragma once
// The search engine, independent of what a candidate costs: branches (op order, DeepEP mode,
// SM cap, side streams) are explored best bound first and pruned when their lower bound cannot
// beat the best found; inside a branch the yield placements and deltas are enumerated
// exhaustively when the space fits the budget, else improved by a beam of single-gap changes.
#include <functional>
#include <limits>
#include <vector>

#include "app/search/search_space.hpp"

namespace ovs {

// Per-layer time of a candidate in us (infinity if it cannot run).
using Evaluator = std::function<double(const Candidate&)>;
// A lower bound on the per-layer time of every candidate of a branch (same ops, mode, caps).
using BranchBound = std::function<double(const Candidate&)>;

struct Scored {
  Candidate c;
  double us = std::numeric_limits<double>::infinity();
};

struct SearchStats {
  long long space = 0;      // candidates in the space
  long long evaluated = 0;  // candidates simulated
  int branches = 0;
  int pruned_branches = 0;
  bool exhaustive = true;  // every branch enumerated (none searched by beam)
};

struct LayerSearch {
  std::vector<Scored> top;  // best first
  // The best candidate of each kind (DeepEP mode, SM cap, side streams, two-batch or not), so
  // that a full-model check can compare kinds the short model may rank wrongly.
  std::vector<Scored> best_by_kind;
  SearchStats stats;
};

// The kind of a candidate: its options apart from the op order and yields.
std::string kind_of(const Candidate& c);

// `budget`: candidates simulated at most (deterministic: the same inputs explore the same
// candidates). A branch whose whole space fits in what is left is enumerated exhaustively;
// otherwise a beam of single-gap changes improves the seeds (yields splitting every
// communication op from its other half, after attention, at the layer's end).
LayerSearch search_layer(const std::vector<Candidate>& branches, const Evaluator& eval,
                         const BranchBound& bound, int top_k, long long budget);

}  // namespace ovs
