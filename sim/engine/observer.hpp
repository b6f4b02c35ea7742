#pragma once
// Observers see a run as it happens (Taskflow's observer idea): the timeline, the Chrome trace
// and any counter are observers; none of them is woven into the engine.
#include <array>

#include "sim/core/work.hpp"

namespace ovs {

struct HostAction;

struct Counters {
  int sms_busy = 0;       // SMs holding at least one CTA
  int sms_shared = 0;     // SMs holding CTAs of two or more kernels (co-residency)
  int ctas_resident = 0;  // CTAs resident on the whole GPU
  double hbm_bytes_per_us = 0;
  double l2_bytes_per_us = 0;
  std::array<double, kNumLinks> link_bytes_per_us{};
};

// Traffic a kernel actually caused once the engine resolved its tensor reads against L2.
struct KernelTraffic {
  double hbm_bytes = 0;
  double l2_bytes = 0;
};

class Observer {
 public:
  virtual ~Observer() = default;
  // The host spent [start, end) on action `index` (launch, record, wait, delay).
  virtual void on_host_action(double /*start_us*/, double /*end_us*/, int /*index*/,
                              const HostAction& /*action*/) {}
  // The host waited for an event (BlockAction) over [start, end).
  virtual void on_host_blocked(double /*start_us*/, double /*end_us*/, int /*index*/,
                               int /*event*/) {}
  virtual void on_kernel_enqueued(double /*t_us*/, int /*kernel*/) {}
  // `sms`: SMs holding at least one of the kernel's CTAs (on_kernel_sms: when that changes).
  virtual void on_kernel_start(double /*t_us*/, int /*kernel*/, int /*sms*/,
                               const KernelTraffic& /*traffic*/) {}
  virtual void on_kernel_sms(double /*t_us*/, int /*kernel*/, int /*sms*/) {}
  virtual void on_kernel_end(double /*t_us*/, int /*kernel*/) {}
  virtual void on_event_fired(double /*t_us*/, int /*event*/) {}
  // Resource use from t onwards, until the next call. The engine computes counters only for
  // observers that want them.
  virtual bool wants_counters() const { return true; }
  // Whether it reads the host's spans (on_host_action, on_host_blocked); the engine sends them
  // only to observers that do.
  virtual bool wants_host() const { return true; }
  virtual void on_counters(double /*t_us*/, const Counters& /*c*/) {}
  virtual void on_run_end(double /*t_us*/) {}
};

}  // namespace ovs
