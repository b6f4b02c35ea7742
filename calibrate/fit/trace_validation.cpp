#include "calibrate/fit/trace_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "calibrate/import/kernel_families.hpp"
#include "calibrate/import/trace_export.hpp"
#include "sim/core/intervals.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {
namespace {

// One kernel on the trace's clock: measured (its ts and dur) or replayed (the engine's start,
// shifted by the trace's first start, and its duration).
struct TimedKernel {
  int stream = 0;  // index into TraceStats::streams
  std::string family;
  double ts_us = 0;
  double dur_us = 0;
  double end_us() const { return ts_us + dur_us; }
};

// What the validation compares, measured or replayed, from kernel times alone.
struct StreamTimes {
  long long kernels = 0;
  double first_start_us = 0, last_end_us = 0;  // relative to the first kernel's start
  double busy_us = 0;                          // union of its kernels' intervals
  double overlapped_us = 0;                    // busy while another stream is busy
};
struct FamilyTimes {
  long long kernels = 0;
  double kernel_us = 0;      // sum of durations
  double overlapped_us = 0;  // its kernels' time beside another stream's kernels
};
struct Times {
  double t0_us = 0;            // the first kernel's start
  double span_us = 0;          // first start to last end
  double multi_stream_us = 0;  // two or more streams busy
  std::vector<StreamTimes> streams;
  std::map<std::string, FamilyTimes> families;
};

// `kernels` in any order; sums over kernels run in that order.
Times times_of(const std::vector<TimedKernel>& kernels, size_t streams) {
  Times m;
  m.t0_us = kernels.front().ts_us;
  double end_us = kernels.front().end_us();
  for (const auto& k : kernels) {
    m.t0_us = std::min(m.t0_us, k.ts_us);
    end_us = std::max(end_us, k.end_us());
  }
  m.span_us = end_us - m.t0_us;
  std::vector<std::vector<Interval>> per(streams);
  m.streams.resize(streams);
  std::vector<double> first(streams, 0), last(streams, 0);
  for (const auto& k : kernels) {
    StreamTimes& s = m.streams[k.stream];
    first[k.stream] = s.kernels == 0 ? k.ts_us : std::min(first[k.stream], k.ts_us);
    last[k.stream] = s.kernels == 0 ? k.end_us() : std::max(last[k.stream], k.end_us());
    ++s.kernels;
    per[k.stream].push_back({k.ts_us, k.end_us()});
  }
  std::vector<IntervalUnion> unions(streams), others(streams);
  for (size_t i = 0; i < streams; ++i) unions[i] = IntervalUnion(std::move(per[i]));
  for (size_t i = 0; i < streams; ++i) {
    std::vector<Interval> rest;
    for (size_t j = 0; j < streams; ++j)
      if (j != i)
        rest.insert(rest.end(), unions[j].intervals().begin(), unions[j].intervals().end());
    others[i] = IntervalUnion(std::move(rest));
    StreamTimes& s = m.streams[i];
    s.first_start_us = first[i] - m.t0_us;
    s.last_end_us = last[i] - m.t0_us;
    s.busy_us = unions[i].length_us();
    s.overlapped_us = intersection_us(unions[i], others[i]);
  }
  m.multi_stream_us = covered_by_at_least_us(2, unions);
  for (const auto& k : kernels) {
    FamilyTimes& f = m.families[k.family];
    f.overlapped_us += intersection_us(Interval{k.ts_us, k.end_us()}, others[k.stream]);
    f.kernel_us += k.dur_us;
    ++f.kernels;
  }
  return m;
}

double mape(const std::vector<ReplayPair>& v) {
  double s = 0;
  for (const auto& p : v) s += std::fabs(p.error());
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

TraceValidation validate_trace(const trace::TraceAnalysis& a, const HwProfile& hw) {
  const trace::KinetoTrace& t = a.trace;
  const trace::TraceStats& st = a.stats;
  TraceValidation v;
  v.trace = t.file;
  v.hardware = hw.name;
  v.kernels = st.kernels;

  // The replay: the exported program (kernel i is the trace's kernel start_order[i]) run by the
  // engine.
  const trace::ExportedProgram exported = trace::export_program(
      a, {hw.name, hw.engine.sm_count, trace::ExportOptions{}.max_host_gap_us});
  Timeline timeline(exported.program);
  Engine(hw.engine).run(exported.program, &timeline);
  auto family = [&](const trace::KernelEvent& k) {
    return std::string(trace::kernel_family(t.names[k.name]));
  };
  std::vector<TimedKernel> measured, replayed;  // in file order; in start order
  for (const auto& k : t.kernels)
    measured.push_back({st.stream_of[k.stream], family(k), k.ts_us, k.dur_us});
  for (size_t i = 0; i < st.start_order.size(); ++i) {
    const trace::KernelEvent& k = t.kernels[st.start_order[i]];
    const KernelRecord& r = timeline.kernels()[i];
    replayed.push_back({st.stream_of[k.stream], family(k), st.t0_us + r.start_us, r.duration_us()});
  }
  const Times mt = times_of(measured, st.streams.size()),
              rt = times_of(replayed, st.streams.size());

  v.makespan_us = {mt.span_us, rt.span_us};
  v.multi_stream_us = {mt.multi_stream_us, rt.multi_stream_us};
  std::vector<ReplayPair> spans, stream_overlaps, family_overlaps;
  for (size_t i = 0; i < st.streams.size(); ++i) {
    const StreamTimes &ms = mt.streams[i], &rs = rt.streams[i];
    TraceStreamRow row{st.streams[i].name,
                       st.streams[i].role,
                       ms.kernels,
                       {ms.last_end_us - ms.first_start_us, rs.last_end_us - rs.first_start_us},
                       {ms.overlapped_us, rs.overlapped_us},
                       {ms.busy_us, rs.busy_us}};
    spans.push_back(row.span_us);
    if (row.overlapped_us.measured > 0.01 * mt.span_us)
      stream_overlaps.push_back(row.overlapped_us);
    v.streams.push_back(row);
  }
  for (const auto& [name, mf] : mt.families) {
    const FamilyTimes& rf = rt.families.at(name);
    TraceFamilyRow row{name,
                       mf.kernels,
                       {mf.overlapped_us, rf.overlapped_us},
                       {mf.kernel_us, rf.kernel_us},
                       mf.overlapped_us >= 0.01 * mt.span_us};
    if (row.in_mape) family_overlaps.push_back(row.overlapped_us);
    v.families.push_back(row);
  }
  std::stable_sort(v.families.begin(), v.families.end(), [](const auto& x, const auto& y) {
    return x.overlapped_us.measured > y.overlapped_us.measured;
  });
  v.mape_stream_span = mape(spans);
  v.mape_stream_overlap = mape(stream_overlaps);
  v.mape_family_overlap = mape(family_overlaps);

  // Layers (repeating segments of the compute stream), measured against replayed.
  if (a.segments.found) {
    std::vector<std::pair<double, double>> compute;  // replayed (start, end) in stream order
    for (const auto& k : replayed)
      if (k.stream == st.compute) compute.push_back({k.ts_us - rt.t0_us, k.end_us() - rt.t0_us});
    const auto& segs = a.segments.segments;
    for (size_t i = 0; i < segs.size(); ++i) {
      const auto first = static_cast<size_t>(segs[i].first_kernel);
      const size_t last = static_cast<size_t>(segs[i].first_kernel + segs[i].kernels) - 1;
      if (last >= compute.size()) break;
      const double end = i + 1 < segs.size() && size_t(segs[i + 1].first_kernel) < compute.size()
                             ? compute[segs[i + 1].first_kernel].first
                             : compute[last].second;
      v.layers_us.push_back({segs[i].duration_us(), end - compute[first].first});
    }
  }

  // Profile parameters the trace measures.
  if (st.launch.host_launch.count > 0)
    v.profile.push_back({"host launch cost (median launch call)", "host.launch_eager_us",
                         st.launch.host_launch.median_us, hw.engine.launch_eager_us, "us"});
  if (st.communication >= 0 && st.streams[st.communication].main_family == "deepep")
    v.profile.push_back({"SMs of the DeepEP stream's kernels", "kernels.comm.deepep_normal_sms",
                         double(st.streams[st.communication].sms),
                         double(hw.kernels.comm.deepep_normal_sms), "SMs"});
  if (st.gpu_sms > 0)
    v.profile.push_back({"GPU SMs (deviceProperties)", "sm_count", double(st.gpu_sms),
                         double(hw.engine.sm_count), "SMs"});
  double given = 0, stretched = 0;
  for (const auto& f : v.families) {
    given += f.kernel_us.measured;
    stretched += f.kernel_us.replayed;
  }
  v.notes.push_back(fmt::format(
      "kernel durations are the trace's (inputs): the replay stretched them by {:+.2f}% in all "
      "through SM contention",
      100 * (stretched / given - 1)));
  v.notes.push_back(
      "not priced by the cost models: a Kineto trace gives grids and durations, not the GEMM "
      "shapes, token counts or bytes they need");
  return v;
}

}  // namespace ovs
