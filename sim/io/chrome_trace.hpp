#pragma once
// Chrome Trace Event Format / Perfetto JSON, written as an observer of the run: a track per
// stream, a host track, and counter tracks (SMs busy, HBM GB/s, L2 GB/s, link GB/s).
// Open the file in ui.perfetto.dev or chrome://tracing.
#include <memory>
#include <ostream>
#include <string>

#include "sim/engine/observer.hpp"
#include "sim/engine/program.hpp"

namespace ovs {

// One trace file: {"traceEvents": [...], "displayTimeUnit": "ns"}. Several runs may write into
// one sink as separate processes (e.g. baseline and overlapped).
class TraceSink {
 public:
  explicit TraceSink(std::ostream& out);
  ~TraceSink();
  void append(const std::string& json_object);
  void finish();

 private:
  std::ostream& out_;
  bool first_ = true;
  bool finished_ = false;
};

class ChromeTraceWriter : public Observer {
 public:
  ChromeTraceWriter(TraceSink& sink, const Program& p, const std::string& process_name, int pid);
  ~ChromeTraceWriter() override;

  void on_host_action(double s, double e, int i, const HostAction& a) override;
  void on_host_blocked(double s, double e, int i, int ev) override;
  void on_kernel_enqueued(double t, int k) override;
  void on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) override;
  void on_kernel_end(double t, int k) override;
  void on_event_fired(double t, int ev) override;
  void on_counters(double t, const Counters& c) override;
  void on_run_end(double t) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ovs
