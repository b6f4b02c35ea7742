#include "sim/engine/steady_state.hpp"

namespace ovs {

LeadingPeriod leading_period(const std::vector<std::uint64_t>& seq, size_t from, int reps) {
  // Prefix function (Knuth-Morris-Pratt) of seq[from..): the smallest period of the prefix of
  // length L is L - pi[L - 1].
  const size_t n = seq.size() > from ? seq.size() - from : 0;
  std::vector<int> pi(n, 0);
  LeadingPeriod best;
  for (size_t i = 1; i < n; ++i) {
    int j = pi[i - 1];
    while (j > 0 && seq[from + i] != seq[from + static_cast<size_t>(j)]) j = pi[j - 1];
    if (seq[from + i] == seq[from + static_cast<size_t>(j)]) ++j;
    pi[i] = j;
    const int length = static_cast<int>(i) + 1;
    const int period = length - j;
    if (j > 0 && length >= reps * period) best = {period, length};
  }
  return best;
}

void ObserverLog::replay(std::int64_t periods, double period_us, int kernels, int events) {
  for (std::int64_t j = 1; j <= periods; ++j) {
    const double dt = static_cast<double>(j) * period_us;
    const int dk = static_cast<int>(j * kernels);
    const int de = static_cast<int>(j * events);
    for (const Entry& e : entries_) {
      switch (e.kind) {
        case Entry::kernel_start:
          next_->on_kernel_start(e.t_us + dt, e.id + dk, e.sms, e.traffic);
          break;
        case Entry::kernel_sms:
          next_->on_kernel_sms(e.t_us + dt, e.id + dk, e.sms);
          break;
        case Entry::kernel_end:
          next_->on_kernel_end(e.t_us + dt, e.id + dk);
          break;
        case Entry::event_fired:
          next_->on_event_fired(e.t_us + dt, e.id + de);
          break;
      }
    }
  }
}

void ObserverLog::on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) {
  next_->on_kernel_start(t, k, sms, tr);
  if (recording_) entries_.push_back({Entry::kernel_start, k, sms, t, tr});
}
void ObserverLog::on_kernel_sms(double t, int k, int sms) {
  next_->on_kernel_sms(t, k, sms);
  if (recording_) entries_.push_back({Entry::kernel_sms, k, sms, t, {}});
}
void ObserverLog::on_kernel_end(double t, int k) {
  next_->on_kernel_end(t, k);
  if (recording_) {
    entries_.push_back({Entry::kernel_end, k, 0, t, {}});
    ++ends_;
  }
}
void ObserverLog::on_event_fired(double t, int ev) {
  next_->on_event_fired(t, ev);
  if (recording_) entries_.push_back({Entry::event_fired, ev, 0, t, {}});
}

}  // namespace ovs
