#pragma once
// Streaming reader of PyTorch-profiler (Kineto) Chrome-trace JSON. The document is never held in
// memory: a SAX handler keeps the GPU kernel events ("cat": "kernel", "ph": "X") and the
// kernel-launch API calls (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel...) that carry
// a correlation id, and drops every other event as soon as its object closes. Memory grows
// with the number of kernels (and their launches), not with the size of the file.
//
// Accepted layouts: {"traceEvents": [...], ...} (Kineto) and a bare array of events (Chrome's
// JSON array format). Bad input (missing file, invalid or truncated JSON, no traceEvents, no
// kernel event, a kernel event without a numeric ts/dur or a stream) is an InputError naming
// the file, the field and the byte offset.
#include <array>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ovs::trace {

struct StreamKey {
  long long device = 0;  // the event's pid (Kineto: the GPU index) or args.device
  long long stream = 0;  // args.stream, else the event's tid
};

struct KernelEvent {
  int name = 0;    // index into KinetoTrace::names
  int stream = 0;  // index into KinetoTrace::streams
  double ts_us = 0;
  double dur_us = 0;
  std::array<long long, 3> grid{};  // all 0 when the trace gives no grid
  long long correlation = -1;       // -1: none

  long long ctas() const { return grid[0] * grid[1] * grid[2]; }
  double end_us() const { return ts_us + dur_us; }
};

struct LaunchCall {  // one kernel-launch API call on the host
  double ts_us = 0;
  double dur_us = 0;
  int api = 0;  // index into KinetoTrace::launch_apis
};

struct KinetoTrace {
  std::string file;
  std::vector<std::string> names;    // distinct kernel names
  std::vector<StreamKey> streams;    // distinct (device, stream) pairs, in order of appearance
  std::vector<KernelEvent> kernels;  // in file order
  std::unordered_map<long long, LaunchCall> launches;  // by correlation id
  std::vector<std::string> launch_apis;                // distinct launch API names
  std::map<long long, int> device_sms;                 // deviceProperties: id -> numSms
  long long events = 0;                                // traceEvents entries read
  long long bytes = 0;                                 // bytes parsed
};

// A kernel-launch API call: a runtime or driver call whose name has "Launch" and "Kernel"
// (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cudaLaunchCooperativeKernel).
bool is_launch_api(const std::string& name);

KinetoTrace read_kineto_trace(const std::string& path);
// `label` names the input in error messages.
KinetoTrace read_kineto_trace(std::istream& in, const std::string& label);

}  // namespace ovs::trace
