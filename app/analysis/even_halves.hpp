#pragma once
// The counterfactual behind the degradation ledger's "micro-batch imbalance": the same two
// micro-batches with their work evened out. Each kernel of micro-batch A and its counterpart in B
// (same layer, op, kernel name and occurrence) both do the mean of the two - FLOPs, bytes, CTAs,
// given durations - so every stage of A costs what the same stage of B costs, and the overlap
// loses nothing to one half outlasting the other. What the real halves lose against it is the
// imbalance (WhatIfSession::compare).
#include "app/analysis/whatif.hpp"
#include "models/graph/workload.hpp"

namespace ovs {

class EvenHalves : public ProgramAdjuster {
 public:
  void adjust(BuiltProgram& b) override;
  // Kernels of the last program with no counterpart in the other micro-batch (per-request loops
  // of unequal length): they keep their own work, and the imbalance is understated by them.
  int unpaired = 0;
};

// Whether two micro-batches do the same work (same tokens and attention segments): evening them
// out would change nothing.
bool same_halves(const MicroBatch& a, const MicroBatch& b);

}  // namespace ovs
