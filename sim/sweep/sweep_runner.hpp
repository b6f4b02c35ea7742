#pragma once
// Runs a sweep: points computed in parallel, rows written in point order as they complete
// (memory flat in the number of points), identical bytes for any number of threads, resumable
// after an interruption, and shardable over machines (--shard i/N, joined by merge_sweeps).
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweep/sweep_spec.hpp"

namespace ovs {

struct SweepOptions {
  std::string out;
  int jobs = 1;
  bool resume = false;
  int shard_index = 0;
  int shard_count = 1;
  bool progress = false;  // done / total, rate, ETA on the error stream
};

struct SweepSummary {
  long long points = 0;    // this shard's points
  long long computed = 0;  // computed by this run (the rest came from --resume)
  double seconds = 0;
};

SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& o, std::ostream& err);

// Joins shard outputs (each in point order) into one CSV identical to an unsharded run.
void merge_sweeps(const std::vector<std::string>& parts, const std::string& out);

}  // namespace ovs
