#pragma once
// The discrete-event engine: a host thread executing a Program, FIFO streams, events, and the
// fluid sharing of SMs, HBM, L2 and links among running kernels (see README "Engine physics").
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/engine/hardware.hpp"
#include "sim/engine/observer.hpp"
#include "sim/engine/program.hpp"
#include "sim/engine/simulation_error.hpp"

namespace ovs {

struct RunResult {
  double makespan_us = 0;      // all kernels done and the host program finished
  double gpu_end_us = 0;       // last kernel end
  double host_end_us = 0;      // host finished its last action
  double host_busy_us = 0;     // launches, event calls, delays
  double host_blocked_us = 0;  // waiting on events (BlockAction)
  std::int64_t steps = 0;      // engine steps (times at which something happened)
  // Periods of identical layers the steady-state fast-forward advanced at once (counted in
  // `steps` as if simulated); 0 with the fast-forward off. Not part of any report.
  std::int64_t periods_fast_forwarded = 0;
};

// Forwards every notification to several observers, in order.
class ObserverList : public Observer {
 public:
  void add(Observer* o) {
    if (o) list_.push_back(o);
  }
  void on_host_action(double s, double e, int i, const HostAction& a) override;
  void on_host_blocked(double s, double e, int i, int ev) override;
  void on_kernel_enqueued(double t, int k) override;
  void on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) override;
  void on_kernel_sms(double t, int k, int sms) override;
  void on_kernel_end(double t, int k) override;
  void on_event_fired(double t, int ev) override;
  bool wants_counters() const override;
  bool wants_host() const override;
  void on_counters(double t, const Counters& c) override;
  void on_run_end(double t) override;

 private:
  std::vector<Observer*> list_;
};

class Engine {
 public:
  explicit Engine(Hardware hw);
  // Runs the program to completion. Throws SimulationError on deadlock or on work the hardware
  // cannot do; std::invalid_argument on a malformed program (see check_program).
  RunResult run(const Program& program, Observer* observer = nullptr) const;
  // Duration of one kernel alone on an idle GPU, launch cost excluded (same physics as run).
  double solo_time_us(const KernelSpec& kernel) const;
  const Hardware& hardware() const { return hw_; }

 private:
  Hardware hw_;
};

}  // namespace ovs
