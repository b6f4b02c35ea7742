#include "calibrate/fit/trace_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "calibrate/import/kernel_families.hpp"
#include "calibrate/import/trace_export.hpp"
#include "sim/core/error.hpp"
#include "sim/core/intervals.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/io/program_loader.hpp"

namespace ovs {
namespace {

// Time each stream, and each kernel family, runs while another stream runs a kernel.
struct Overlaps {
  std::vector<double> stream;               // by index into TraceStats::streams
  std::map<std::string, double> family;     // by family
  std::map<std::string, double> kernel_us;  // by family
  std::map<std::string, long long> kernels;
};

Overlaps overlaps(const trace::KinetoTrace& t, const trace::TraceStats& st) {
  const size_t ns = st.streams.size();
  std::vector<std::vector<Interval>> per(ns);
  for (const auto& k : t.kernels) per[st.stream_of[k.stream]].push_back({k.ts_us, k.end_us()});
  std::vector<IntervalUnion> unions(ns), others(ns);
  for (size_t i = 0; i < ns; ++i) unions[i] = IntervalUnion(std::move(per[i]));
  Overlaps o;
  o.stream.assign(ns, 0);
  for (size_t i = 0; i < ns; ++i) {
    std::vector<Interval> rest;
    for (size_t j = 0; j < ns; ++j)
      if (j != i)
        rest.insert(rest.end(), unions[j].intervals().begin(), unions[j].intervals().end());
    others[i] = IntervalUnion(std::move(rest));
    o.stream[i] = intersection_us(unions[i], others[i]);
  }
  for (const auto& k : t.kernels) {
    const std::string f(trace::kernel_family(t.names[k.name]));
    o.family[f] += intersection_us(Interval{k.ts_us, k.end_us()}, others[st.stream_of[k.stream]]);
    o.kernel_us[f] += k.dur_us;
    ++o.kernels[f];
  }
  return o;
}

double mape(const std::vector<ReplayPair>& v) {
  double s = 0;
  for (const auto& p : v) s += std::fabs(p.error());
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

TraceValidation validate_trace(const trace::TraceAnalysis& a, const HwProfile& hw,
                               const std::string& hw_arg, std::string* program_out) {
  const trace::KinetoTrace& t = a.trace;
  const trace::TraceStats& st = a.stats;
  TraceValidation v;
  v.trace = t.file;
  v.hardware = hw.name;
  v.kernels = st.kernels;

  // The replay: the exported program run by the engine.
  std::ostringstream yaml_text;
  trace::write_program_yaml(yaml_text, a, {hw_arg, hw.engine.sm_count, 100});
  const LoadedProgram lp = parse_program(yaml::load_string(yaml_text.str(), t.file + " (replay)"));
  if (lp.program.kernels.size() != st.start_order.size())
    throw SimulationError("replay of " + t.file + ": the exported program has " +
                          std::to_string(lp.program.kernels.size()) + " kernels, the trace " +
                          std::to_string(st.start_order.size()));
  Timeline timeline(lp.program);
  Engine(lp.hw.engine).run(lp.program, &timeline);
  if (program_out) *program_out = yaml_text.str();
  trace::KinetoTrace r;
  r.file = t.file + " (replay)";
  r.names = t.names;
  r.streams = t.streams;
  r.device_sms = t.device_sms;
  for (size_t i = 0; i < st.start_order.size(); ++i) {
    trace::KernelEvent e = t.kernels[st.start_order[i]];
    e.ts_us = st.t0_us + timeline.kernels()[i].start_us;
    e.dur_us = timeline.kernels()[i].duration_us();
    e.correlation = -1;
    r.kernels.push_back(e);
  }
  const trace::TraceStats rs = trace::compute_trace_stats(r);
  const Overlaps mo = overlaps(t, st), ro = overlaps(r, rs);

  v.makespan_us = {st.span_us, rs.span_us};
  v.multi_stream_us = {st.multi_stream_us, rs.multi_stream_us};
  std::vector<ReplayPair> spans, stream_overlaps, family_overlaps;
  for (size_t i = 0; i < st.streams.size(); ++i) {
    const auto &ms = st.streams[i], &rp = rs.streams[i];
    TraceStreamRow row{ms.name,
                       ms.role,
                       ms.kernels,
                       {ms.last_end_us - ms.first_start_us, rp.last_end_us - rp.first_start_us},
                       {mo.stream[i], ro.stream[i]},
                       {ms.busy_us, rp.busy_us}};
    spans.push_back(row.span_us);
    if (row.overlapped_us.measured > 0.01 * st.span_us)
      stream_overlaps.push_back(row.overlapped_us);
    v.streams.push_back(row);
  }
  for (const auto& [family, us] : mo.family) {
    TraceFamilyRow row{family,
                       mo.kernels.at(family),
                       {us, ro.family.at(family)},
                       {mo.kernel_us.at(family), ro.kernel_us.at(family)},
                       us >= 0.01 * st.span_us};
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
    const int cs = st.streams[st.compute].stream;
    for (const auto& k : r.kernels)
      if (k.stream == cs) compute.push_back({k.ts_us - rs.t0_us, k.end_us() - rs.t0_us});
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
