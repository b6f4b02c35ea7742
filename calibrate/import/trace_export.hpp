#pragma once
// An imported trace's kernels as a program (sim/engine/program.hpp), built in memory: one
// given-duration launch per kernel, in measured start order, on its measured stream, for its
// measured duration, on min(CTAs, the profile's SMs) SMs, with its family as `op`. The host
// paces the launches as measured: each launch's host_us is how far the host's launch clock
// (the latest launch call so far) moved forward since the previous launch, capped at
// max_host_gap_us (longer gaps are the host blocked on the GPU or doing framework work, which
// the engine models by itself). No stream waits or event records: kernels keep their streams'
// order, and cross-stream dependencies are not inferred. The communication stream gets
// priority 1. `overlapsim validate` runs this program directly; `import-trace --program` writes
// it as an `overlapsim run` YAML file (README "Programs").
#include <ostream>
#include <string>

#include "calibrate/import/trace_analysis.hpp"
#include "sim/engine/program.hpp"

namespace ovs::trace {

struct ExportOptions {
  std::string hardware;  // written to `hardware:` (a profile name or path)
  int sm_count = 0;      // that profile's SMs
  double max_host_gap_us = 100;
};

struct ExportSummary {
  long long launches = 0;
  long long capped_gaps = 0;  // host gaps cut to max_host_gap_us
  long long unlinked = 0;     // kernels without a launch call (the profile's launch cost applies)
  double host_us = 0;         // sum of the host_us given
  double measured_span_us = 0;
};

struct ExportedProgram {
  Program program;  // kernel i is the trace's kernel stats.start_order[i]
  ExportSummary summary;
};

ExportedProgram export_program(const TraceAnalysis& a, const ExportOptions& o);

// The program as YAML, with where it came from in comments (`a`: the analysis it was exported
// from; `o`: the options it was exported with).
void write_program_yaml(std::ostream& out, const TraceAnalysis& a, const ExportedProgram& p,
                        const ExportOptions& o);

}  // namespace ovs::trace
