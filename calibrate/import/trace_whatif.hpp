#pragma once
// Overlap on a measured trace (`overlapsim import-trace TRACE --whatif STRATEGY`): the kernels of
// a no-overlap forward, as measured, re-planned into a strategy's order.
//
// The model builds the baseline forward of the given point and matches the trace's kernels to its
// kernels: by name and order when every kernel name the model launches occurs as often in the
// trace (a trace this project wrote, or one whose names the model shares: per layer, op and
// kernel), else by kernel family (GEMM, attention, communication, memory kernels: one ratio each,
// the trace holding `forwards` forwards). Each match anchors the model's kernel to its measured
// time: its Work (FLOPs, bytes, fixed latency) is scaled so that the baseline, simulated again,
// gives every matched kernel its measured time - a fixed point, reached in a few passes because
// a kernel's time is not quite proportional to its Work (link latency, L2 residency, waiting on
// other kernels). The strategy's kernels take the same scale as the baseline kernel they come
// from: a kernel whose shape the strategy keeps runs at its measured time; one whose shape
// splitting changes (a GEMM of half the rows, a dispatch of half the tokens) at the model's time
// for the new shape times the measured-over-model ratio of the whole one; a kernel the baseline
// has no match for at the model's time. Both forwards then run in the engine as any what-if does
// (streams, SM sharing, HBM and L2 contention), with the advantage/degradation ledger.
#include <ostream>
#include <string>
#include <vector>

#include "app/analysis/whatif.hpp"
#include "calibrate/import/kineto_reader.hpp"

namespace ovs::trace {

struct TraceWhatIfRequest {
  WhatIfRequest point;          // model, hw, workload, strategy and baseline
  long long device = -1;        // the trace's GPU (its pid); -1: the first GPU in the trace
  int forwards = 1;             // forwards the trace holds (matching by family only)
  double max_overlap = 0.25;    // share of communication time beside compute beyond which the
                                // trace is refused (it is not a no-overlap forward)
  RunWatcher* watch = nullptr;  // sees the two anchored runs (a Perfetto file)
};

// One anchoring ratio: the kernels of a layer/op/kernel name (by name) or a family.
struct AnchorGroup {
  std::string name;
  std::string kernel;         // "op/kernel" (its layer left out), or the family
  int kernels = 0;            // baseline kernels in it
  double measured_us = 0;     // per forward
  double model_us = 0;        // the model's time for them in the baseline run, not anchored
  double resimulated_us = 0;  // anchored, in the last pass
  double scale = 1;           // what their Work was scaled by
};

struct TraceWhatIfResult {
  WhatIfResult anchored;  // both forwards from the measured kernels
  WhatIfResult model;     // the same point from the model alone, for reference
  std::string matching;   // "name" or "family"
  long long device = 0;
  int devices = 0;                 // GPUs in the trace
  long long trace_kernels = 0;     // on the device
  long long matched_kernels = 0;   // of them matched to a model kernel
  double measured_span_us = 0;     // first kernel start to last kernel end, on the device
  double comm_beside_compute = 0;  // share of the communication stream's busy time
  int passes = 0;
  double max_residual = 0;  // largest |resimulated / measured - 1| over the groups
  // The strategy's kernels by what their time comes from.
  int kept = 0;        // same shape as a matched baseline kernel: its measured time
  int rescaled = 0;    // shape changed: the model's time for it x the measured/model ratio
  int model_only = 0;  // no matched baseline kernel: the model's time
  std::vector<AnchorGroup> groups;  // largest measured first
  std::vector<std::string> notes;
};

TraceWhatIfResult trace_whatif(const KinetoTrace& trace, const TraceWhatIfRequest& r);

void write_trace_whatif_table(std::ostream& out, const TraceWhatIfResult& r);
void write_trace_whatif_json(std::ostream& out, const TraceWhatIfResult& r);

}  // namespace ovs::trace
