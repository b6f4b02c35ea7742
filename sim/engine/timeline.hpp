#pragma once
// The timeline of a run, recorded as an observer: every kernel (enqueue, start, end, stream,
// SMs held over time, traffic after L2 resolution), the host's spans and the resource counters.
#include <utility>
#include <vector>

#include "sim/engine/observer.hpp"
#include "sim/engine/program.hpp"

namespace ovs {

// SMs a kernel held over time: (time, SMs held from then on). Most kernels keep the SMs they
// start with to the end, so the first step is kept inline (no allocation per kernel).
class SmSteps {
 public:
  using Step = std::pair<double, int>;
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Step& front() const { return first_; }
  const Step& operator[](size_t i) const { return i == 0 ? first_ : rest_[i - 1]; }
  void clear() {
    rest_.clear();
    n_ = 0;
  }
  void emplace_back(double t_us, int sms) {
    if (n_ == 0)
      first_ = {t_us, sms};
    else
      rest_.emplace_back(t_us, sms);
    ++n_;
  }

 private:
  Step first_{};
  std::vector<Step> rest_;
  size_t n_ = 0;
};

// Timeline::reset() puts every field back to these defaults: keep the two together.
struct KernelRecord {
  double enqueue_us = -1;
  double start_us = -1;
  double end_us = -1;
  SmSteps sms;
  KernelTraffic traffic;
  double duration_us() const { return end_us - start_us; }
};

struct HostSpan {
  double start_us = 0;
  double end_us = 0;
  int action = 0;
  bool blocked = false;  // waiting on an event rather than working
};

struct CounterSample {
  double t_us = 0;
  Counters c;
};

class Timeline : public Observer {
 public:
  // `counters`: also record the resource counters (explain's per-stage use needs them).
  // `host`: also record the host's spans (traces, explain and critical paths read them; the
  // statistics of a what-if or a sweep do not).
  explicit Timeline(const Program& p, bool counters = true, bool host = true);
  // Empty again, for a run of `p`: as if newly made, keeping the storage.
  void reset(const Program& p, bool counters = true, bool host = true);

  void on_host_action(double s, double e, int i, const HostAction& a) override;
  void on_host_blocked(double s, double e, int i, int ev) override;
  void on_kernel_enqueued(double t, int k) override;
  void on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) override;
  void on_kernel_sms(double t, int k, int sms) override;
  void on_kernel_end(double t, int k) override;
  bool wants_counters() const override { return record_counters_; }
  bool wants_host() const override { return record_host_; }
  void on_counters(double t, const Counters& c) override;
  void on_run_end(double t) override { end_us_ = t; }

  const std::vector<KernelRecord>& kernels() const { return kernels_; }
  const std::vector<HostSpan>& host() const { return host_; }
  const std::vector<CounterSample>& counters() const { return counters_; }
  double end_us() const { return end_us_; }

  // Time the stream had a kernel running (its kernels never overlap each other).
  double stream_busy_us(int stream) const;
  // Integral of SMs held over the run, in SM x us.
  double sm_us() const;
  // Time at least one kernel was running anywhere.
  double gpu_busy_us() const;

 private:
  std::vector<int> stream_of_;  // per kernel (the timeline does not keep the program)
  std::vector<KernelRecord> kernels_;
  std::vector<HostSpan> host_;
  std::vector<CounterSample> counters_;
  double end_us_ = 0;
  bool record_counters_ = true;
  bool record_host_ = true;
};

}  // namespace ovs
