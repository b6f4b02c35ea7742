#pragma once
// `overlapsim validate TRACE.json --hw H`: what overlapsim predicts for an imported Kineto trace
// against what the trace measured.
//
// What is predicted, and what is not. The trace gives each kernel's name, grid, stream and
// duration, and the host's launch calls; without `record_shapes` it gives no GEMM shapes,
// token counts or bytes, so the cost models cannot price its kernels from the trace alone.
// What can be validated:
//   replay   the imported program (trace::export_program, which import-trace --program writes:
//            measured durations, streams, start order, host pacing) run by the engine, which
//            decides when each kernel starts (host launch cost, stream order, SM hand-out; a kernel
//            given fewer SMs than its grid stretches). Per stream its span (first start to last
//            end) and the time it runs beside another stream; per kernel family the time its
//            kernels run beside another stream; overall the makespan and the time two or more
//            streams are busy, each replayed against measured, with MAPE. Kernel durations are the
//            trace's own: per-stream busy time and per-family kernel time are inputs, not
//            predictions, and are shown only as how much the replay stretched them.
//   profile  parameters of the hardware profile the trace measures directly: the host launch
//            cost (median launch call) against host.launch_eager_us, the SMs of the
//            communication stream's kernels against kernels.comm.deepep_normal_sms, the GPU's
//            SM count against sm_count.
// The exported program has no cross-stream waits (the trace does not record them), so the
// replay lets each stream run ahead as its host pacing allows: a replayed makespan or overlap
// off from measured says how much the measured run was shaped by dependencies the program does
// not have.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/import/trace_analysis.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct ReplayPair {
  double measured = 0;
  double replayed = 0;
  double error() const { return measured > 0 ? (replayed - measured) / measured : 0; }
};

struct TraceStreamRow {
  std::string name, role;
  long long kernels = 0;
  ReplayPair span_us;        // first start to last end
  ReplayPair overlapped_us;  // busy while another stream is busy
  ReplayPair busy_us;        // input (given durations); the replay may stretch it
};

struct TraceFamilyRow {
  std::string family;
  long long kernels = 0;
  ReplayPair overlapped_us;  // its kernels' time beside another stream's kernels
  ReplayPair kernel_us;      // input; stretched by SM contention in the replay
  bool in_mape = false;      // overlapped >= 1 % of the measured span
};

struct ProfileCheck {
  std::string what;       // in words
  std::string parameter;  // profile path
  double measured = 0;
  double predicted = 0;  // the profile's number
  std::string unit;
};

struct TraceValidation {
  std::string trace, hardware;
  long long kernels = 0;
  ReplayPair makespan_us;
  ReplayPair multi_stream_us;  // two or more streams busy
  std::vector<TraceStreamRow> streams;
  std::vector<TraceFamilyRow> families;
  std::vector<ReplayPair> layers_us;  // repeating segments of the compute stream
  double mape_stream_span = 0, mape_stream_overlap = 0, mape_family_overlap = 0;
  std::vector<ProfileCheck> profile;
  std::vector<std::string> notes;
};

// The replayed program is trace::export_program(a, {name, hw's SMs}) (calibrate/import/
// trace_export.hpp), run in memory on `hw`.
TraceValidation validate_trace(const trace::TraceAnalysis& a, const HwProfile& hw);

void write_trace_validation(std::ostream& out, const TraceValidation& v);
nlohmann::ordered_json trace_validation_json(const TraceValidation& v);

}  // namespace ovs
