#include "sim/engine/timeline.hpp"

#include "sim/core/intervals.hpp"

namespace ovs {

Timeline::Timeline(const Program& p, bool counters, bool host) {
  reset(p, counters, host);
}

void Timeline::reset(const Program& p, bool counters, bool host) {
  kernels_.resize(p.kernels.size());
  for (auto& k : kernels_) {  // as new, keeping each step list's storage
    k.enqueue_us = k.start_us = k.end_us = -1;
    k.sms.clear();
    k.traffic = {};
  }
  stream_of_.resize(p.kernels.size());
  for (size_t k = 0; k < p.kernels.size(); ++k) stream_of_[k] = p.kernels[k].stream;
  host_.clear();
  counters_.clear();
  end_us_ = 0;
  record_counters_ = counters;
  record_host_ = host;
}

void Timeline::on_host_action(double s, double e, int i, const HostAction&) {
  if (record_host_) host_.push_back({s, e, i, false});
}
void Timeline::on_host_blocked(double s, double e, int i, int) {
  if (record_host_) host_.push_back({s, e, i, true});
}
void Timeline::on_kernel_enqueued(double t, int k) {
  kernels_[k].enqueue_us = t;
}
void Timeline::on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) {
  kernels_[k].start_us = t;
  kernels_[k].sms.emplace_back(t, sms);
  kernels_[k].traffic = tr;
}
void Timeline::on_kernel_sms(double t, int k, int sms) {
  kernels_[k].sms.emplace_back(t, sms);
}
void Timeline::on_kernel_end(double t, int k) {
  kernels_[k].end_us = t;
}
void Timeline::on_counters(double t, const Counters& c) {
  if (!counters_.empty() && counters_.back().t_us == t)
    counters_.back().c = c;
  else
    counters_.push_back({t, c});
}

double Timeline::stream_busy_us(int stream) const {
  double busy = 0;
  for (size_t k = 0; k < kernels_.size(); ++k)
    if (stream_of_[k] == stream && kernels_[k].end_us >= 0) busy += kernels_[k].duration_us();
  return busy;
}

double Timeline::sm_us() const {
  double total = 0;
  for (const auto& k : kernels_) {
    for (size_t i = 0; i < k.sms.size(); ++i) {
      const double until = i + 1 < k.sms.size() ? k.sms[i + 1].first : k.end_us;
      total += k.sms[i].second * (until - k.sms[i].first);
    }
  }
  return total;
}

double Timeline::gpu_busy_us() const {
  std::vector<Interval> spans;
  for (const auto& k : kernels_) spans.push_back({k.start_us, k.end_us});
  return IntervalUnion(std::move(spans)).length_us();
}

}  // namespace ovs
