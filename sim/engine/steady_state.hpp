#pragma once
// The parts of the engine's steady-state fast-forward that need no engine internals: the period
// of a kernel sequence (identical layers), and a log of the observer notifications of one period
// that can be replayed shifted by whole periods.
#include <cstdint>
#include <vector>

#include "sim/engine/observer.hpp"

namespace ovs {

// The longest prefix of seq[from..) made of at least `reps` repetitions of one block, and the
// block's length (its smallest period). {0, 0} when no prefix of two or more elements repeats.
struct LeadingPeriod {
  int period = 0;
  int length = 0;
};
LeadingPeriod leading_period(const std::vector<std::uint64_t>& seq, size_t from, int reps);

// Forwards every notification to `next`; while recording, also keeps those of the GPU side
// (kernel start, SMs, end, event fired) so they can be replayed for later periods.
class ObserverLog : public Observer {
 public:
  explicit ObserverLog(Observer* next) : next_(next) {}

  void start_recording() {
    entries_.clear();
    ends_ = 0;
    recording_ = true;
  }
  // Notifications logged since start_recording with a kernel end among them.
  bool saw_kernel_end() const { return ends_ > 0; }
  // Sends the logged notifications again `periods` times: the j-th time (1-based) with times
  // + j x period_us, kernel indices + j x kernels and event indices + j x events.
  void replay(std::int64_t periods, double period_us, int kernels, int events);

  void on_host_action(double s, double e, int i, const HostAction& a) override {
    next_->on_host_action(s, e, i, a);
  }
  void on_host_blocked(double s, double e, int i, int ev) override {
    next_->on_host_blocked(s, e, i, ev);
  }
  void on_kernel_enqueued(double t, int k) override { next_->on_kernel_enqueued(t, k); }
  void on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) override;
  void on_kernel_sms(double t, int k, int sms) override;
  void on_kernel_end(double t, int k) override;
  void on_event_fired(double t, int ev) override;
  bool wants_counters() const override { return next_->wants_counters(); }
  bool wants_host() const override { return next_->wants_host(); }
  void on_counters(double t, const Counters& c) override { next_->on_counters(t, c); }
  void on_run_end(double t) override { next_->on_run_end(t); }

 private:
  struct Entry {
    enum Kind : char { kernel_start, kernel_sms, kernel_end, event_fired } kind;
    int id;  // kernel, or event
    int sms;
    double t_us;
    KernelTraffic traffic;
  };
  Observer* next_;
  bool recording_ = false;
  std::int64_t ends_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace ovs
