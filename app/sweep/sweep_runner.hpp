#pragma once
// Runs a sweep: points computed in parallel, rows written in point order as they complete
// (memory flat in the number of points), identical bytes for any number of threads, resumable
// after an interruption, and shardable over machines (--shard i/N, joined by merge_sweeps).
#include <ostream>
#include <string>
#include <vector>

#include "app/sweep/sweep_spec.hpp"

namespace ovs {

struct SweepOptions {
  std::string out;
  int jobs = 0;  // threads; 0: all cores (resolve_jobs)
  bool resume = false;
  int shard_index = 0;
  int shard_count = 1;
  bool progress = false;  // done / total, rate, ETA on the error stream
};

struct SweepSummary {
  long long points = 0;    // this shard's points
  long long computed = 0;  // computed by this run (the rest came from --resume)
  long long written = 0;   // complete points in the file now
  double seconds = 0;
  int interrupted_by = 0;  // SIGINT / SIGTERM when the run stopped early, else 0
};

// Writes the provenance lines, the header and one block of rows per point. With --resume, an
// existing file must have this sweep's provenance and rows (InputError at the first line that
// does not); a cut last row or unfinished last point is dropped and recomputed. A SIGINT or
// SIGTERM stops the run after the complete points already computed are written.
SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& o, std::ostream& err);

}  // namespace ovs
