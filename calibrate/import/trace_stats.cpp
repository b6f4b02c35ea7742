#include "calibrate/import/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "calibrate/import/kernel_families.hpp"
#include "sim/core/intervals.hpp"

namespace ovs::trace {
namespace {

std::string stream_name(const StreamKey& k, bool several_gpus) {
  std::string s = "stream" + std::to_string(k.stream);
  return several_gpus ? "gpu" + std::to_string(k.device) + "." + s : s;
}

// The SM count that holds the most kernel time among `use` (CTAs capped at the GPU's SMs).
long long dominant_sms(const std::map<long long, double>& use) {
  long long best = 0;
  double best_us = -1;
  for (const auto& [sms, us] : use)
    if (us > best_us) best = sms, best_us = us;
  return best;
}

}  // namespace

Quantiles quantiles(std::vector<double> v) {
  Quantiles q;
  q.count = static_cast<long long>(v.size());
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  auto at = [&](double p) {
    const double r = p * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(r));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (r - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  q.median_us = at(0.5);
  q.p90_us = at(0.9);
  return q;
}

TraceStats compute_trace_stats(const KinetoTrace& t) {
  TraceStats st;
  const auto& ks = t.kernels;
  st.kernels = static_cast<long long>(ks.size());
  st.start_order.resize(ks.size());
  std::iota(st.start_order.begin(), st.start_order.end(), 0);
  std::stable_sort(st.start_order.begin(), st.start_order.end(),
                   [&](int a, int b) { return ks[a].ts_us < ks[b].ts_us; });
  st.t0_us = ks[st.start_order.front()].ts_us;
  double end = st.t0_us;
  for (const auto& k : ks) end = std::max(end, k.end_us());
  st.span_us = end - st.t0_us;
  if (auto it = t.device_sms.find(t.streams[ks.front().stream].device); it != t.device_sms.end())
    st.gpu_sms = it->second;

  // Streams, ordered by device then stream id.
  std::vector<int> by_key(t.streams.size());
  std::iota(by_key.begin(), by_key.end(), 0);
  std::sort(by_key.begin(), by_key.end(), [&](int a, int b) {
    const auto &x = t.streams[a], &y = t.streams[b];
    return x.device != y.device ? x.device < y.device : x.stream < y.stream;
  });
  bool several_gpus = false;
  for (const auto& s : t.streams) several_gpus |= s.device != t.streams.front().device;
  st.stream_of.assign(t.streams.size(), 0);
  for (size_t i = 0; i < by_key.size(); ++i) {
    StreamStats s;
    s.stream = by_key[i];
    s.name = stream_name(t.streams[by_key[i]], several_gpus);
    st.stream_of[by_key[i]] = static_cast<int>(i);
    st.streams.push_back(std::move(s));
  }

  // Per stream: intervals in start order, grids, communication time, SMs.
  const size_t ns = st.streams.size();
  std::vector<std::vector<Interval>> intervals(ns);
  std::vector<std::map<long long, double>> sms_all(ns), sms_comm(ns);
  std::vector<std::map<std::string_view, double>> family_us(ns);
  std::map<std::string_view, FamilyStats> fam;
  std::vector<std::string_view> family_of_name(t.names.size());
  for (size_t n = 0; n < t.names.size(); ++n) family_of_name[n] = kernel_family(t.names[n]);
  for (int id : st.start_order) {
    const KernelEvent& k = ks[id];
    StreamStats& s = st.streams[st.stream_of[k.stream]];
    const int si = st.stream_of[k.stream];
    intervals[si].push_back({k.ts_us, k.end_us()});
    ++s.kernels;
    s.kernel_us += k.dur_us;
    const std::string_view f = family_of_name[k.name];
    FamilyStats& fs = fam[f];
    ++fs.kernels;
    fs.total_us += k.dur_us;
    family_us[si][f] += k.dur_us;
    auto g = std::find_if(s.grids.begin(), s.grids.end(),
                          [&](const GridUse& u) { return u.grid == k.grid; });
    if (g == s.grids.end()) g = s.grids.insert(s.grids.end(), GridUse{k.grid, 0, 0});
    ++g->kernels;
    g->busy_us += k.dur_us;
    if (k.ctas() > 0) {
      const long long sms = st.gpu_sms > 0 ? std::min<long long>(k.ctas(), st.gpu_sms) : k.ctas();
      sms_all[si][sms] += k.dur_us;
      if (is_communication_family(f)) sms_comm[si][sms] += k.dur_us;
    }
    if (is_communication_family(f)) s.communication_us += k.dur_us;
  }
  std::vector<IntervalUnion> unions(ns);
  for (size_t i = 0; i < ns; ++i) {
    StreamStats& s = st.streams[i];
    unions[i] = IntervalUnion(intervals[i]);
    s.busy_us = unions[i].length_us();
    double most = -1;
    for (const auto& [f, us] : family_us[i])
      if (us > most) s.main_family = std::string(f), most = us;
    // In start order, so the first starts first; a kernel of no duration counts too.
    double last_end_us = intervals[i].front().end_us;
    for (const Interval& k : intervals[i]) last_end_us = std::max(last_end_us, k.end_us);
    s.first_start_us = intervals[i].front().start_us - st.t0_us;
    s.last_end_us = last_end_us - st.t0_us;
    std::stable_sort(s.grids.begin(), s.grids.end(),
                     [](const GridUse& a, const GridUse& b) { return a.busy_us > b.busy_us; });
  }

  // Roles: the communication stream is the one with the most communication-kernel time among
  // those where such kernels are most of the kernel time; the compute stream is the busiest of
  // the others (by kernel time).
  for (size_t i = 0; i < ns; ++i) {
    const StreamStats& s = st.streams[i];
    if (s.communication_us > 0.5 * s.kernel_us &&
        (st.communication < 0 ||
         s.communication_us > st.streams[st.communication].communication_us))
      st.communication = static_cast<int>(i);
  }
  for (size_t i = 0; i < ns; ++i) {
    if (static_cast<int>(i) == st.communication) continue;
    if (st.compute < 0 || st.streams[i].kernel_us > st.streams[st.compute].kernel_us)
      st.compute = static_cast<int>(i);
  }
  if (st.compute < 0) st.compute = st.communication;  // a trace of communication kernels only
  for (size_t i = 0; i < ns; ++i) {
    StreamStats& s = st.streams[i];
    const bool comm = static_cast<int>(i) == st.communication && static_cast<int>(i) != st.compute;
    s.role = comm ? "communication" : static_cast<int>(i) == st.compute ? "compute" : "other";
    s.sms = dominant_sms(comm ? sms_comm[i] : sms_all[i]);
  }

  // Overlap between streams.
  st.multi_stream_us = covered_by_at_least_us(2, unions);
  for (size_t a = 0; a < ns; ++a)
    for (size_t b = a + 1; b < ns; ++b)
      st.pairs.push_back(
          {static_cast<int>(a), static_cast<int>(b), intersection_us(unions[a], unions[b])});

  // Launches: the API call of each kernel (by correlation id), and the stream predecessor.
  std::vector<double> to_start, ready, host;
  std::vector<std::vector<double>> by_api(t.launch_apis.size());
  for (const auto& [corr, call] : t.launches) {
    host.push_back(call.dur_us);
    by_api[call.api].push_back(call.dur_us);
  }
  std::vector<double> prev_end(ns, -1e300);
  for (int id : st.start_order) {
    const KernelEvent& k = ks[id];
    const int si = st.stream_of[k.stream];
    if (k.correlation >= 0) {
      if (auto it = t.launches.find(k.correlation); it != t.launches.end()) {
        ++st.launch.kernels_linked;
        to_start.push_back(k.ts_us - it->second.ts_us);
        ready.push_back(k.ts_us - std::max(it->second.ts_us + it->second.dur_us, prev_end[si]));
      }
    }
    prev_end[si] = std::max(prev_end[si], k.end_us());
  }
  st.launch.host_launch = quantiles(std::move(host));
  st.launch.launch_to_start = quantiles(std::move(to_start));
  st.launch.ready_to_start = quantiles(std::move(ready));
  for (size_t a = 0; a < t.launch_apis.size(); ++a)
    st.launch.by_api.push_back({t.launch_apis[a], quantiles(std::move(by_api[a]))});

  for (auto& [name, fs] : fam) {
    fs.family = std::string(name);
    fs.mean_us = fs.total_us / static_cast<double>(fs.kernels);
    st.families.push_back(fs);
  }
  std::stable_sort(
      st.families.begin(), st.families.end(),
      [](const FamilyStats& a, const FamilyStats& b) { return a.total_us > b.total_us; });
  return st;
}

}  // namespace ovs::trace
