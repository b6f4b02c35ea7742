#pragma once
// Statistics of an imported trace: kernels per stream (busy time, grids, role), the time two or
// more streams run kernels at once, launch gaps and host launch cost, kernel families. Times
// are in us; "relative" times count from the first kernel's start.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/import/kineto_reader.hpp"

namespace ovs::trace {

struct Quantiles {
  long long count = 0;
  double median_us = 0;
  double p90_us = 0;
};

// Median and 90th percentile, interpolating linearly between ranks (numpy's default).
Quantiles quantiles(std::vector<double> values);

struct GridUse {
  std::array<long long, 3> grid{};
  long long kernels = 0;
  double busy_us = 0;  // sum of the durations of its kernels
};

struct StreamStats {
  int stream = 0;    // index into KinetoTrace::streams
  std::string name;  // "stream7" ("gpu1.stream7" when the trace has several GPUs)
  std::string role;  // compute | communication | other
  long long kernels = 0;
  double kernel_us = 0;         // sum of kernel durations
  double busy_us = 0;           // union of its kernels' intervals
  double communication_us = 0;  // of which kernels of a communication family
  std::string main_family;      // the family with the most kernel time on this stream
  double first_start_us = 0;    // relative
  double last_end_us = 0;       // relative
  // SMs its kernels ask for during most of its kernel time: min(CTAs, the GPU's SMs) weighted
  // by duration (a communication stream: over its communication kernels only). 0: no grids.
  long long sms = 0;
  std::vector<GridUse> grids;  // by busy time, longest first
};

struct PairOverlap {
  int a = 0, b = 0;  // indices into TraceStats::streams
  double overlap_us = 0;
};

struct FamilyStats {
  std::string family;
  long long kernels = 0;
  double total_us = 0;
  double mean_us = 0;
};

struct LaunchStats {
  long long kernels_linked = 0;  // kernels whose launch call is in the trace
  Quantiles host_launch;         // durations of the launch API calls
  Quantiles launch_to_start;     // kernel start - launch call start
  // kernel start - max(launch call end, end of the previous kernel on its stream): how long a
  // kernel that could run waited to start (the GPU's own launch latency when not queued).
  Quantiles ready_to_start;
  std::vector<std::pair<std::string, Quantiles>> by_api;  // host_launch per API name
};

struct TraceStats {
  double t0_us = 0;    // the first kernel's start, as in the trace
  double span_us = 0;  // first kernel start to last kernel end
  long long kernels = 0;
  int gpu_sms = 0;  // from deviceProperties (the GPU of the first kernel); 0 when absent
  std::vector<int> start_order;      // kernel indices by start time (file order on ties)
  std::vector<StreamStats> streams;  // by device, then stream id
  std::vector<int> stream_of;        // KinetoTrace stream index -> index into `streams`
  int compute = -1;                  // index into `streams`
  int communication = -1;            // index into `streams`, -1 when none
  double multi_stream_us = 0;        // time during which >= 2 streams run a kernel
  std::vector<PairOverlap> pairs;    // every pair of streams with their overlap
  LaunchStats launch;
  std::vector<FamilyStats> families;  // by total time, longest first
};

TraceStats compute_trace_stats(const KinetoTrace& t);

}  // namespace ovs::trace
