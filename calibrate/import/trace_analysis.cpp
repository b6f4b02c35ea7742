#include "calibrate/import/trace_analysis.hpp"

#include <fmt/format.h>

namespace ovs::trace {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kGridsShown = 8;

std::string grid_text(const std::array<long long, 3>& g) {
  if (g[0] == 0) return "none";
  return fmt::format("[{},{},{}]", g[0], g[1], g[2]);
}

std::string shorten(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

Json quantiles_json(const Quantiles& q, const char* median_key, const char* p90_key) {
  return Json{{"count", q.count}, {median_key, q.median_us}, {p90_key, q.p90_us}};
}

}  // namespace

TraceAnalysis analyze_trace(KinetoTrace trace) {
  TraceAnalysis a{std::move(trace), {}, {}};
  a.stats = compute_trace_stats(a.trace);
  const int compute_index = a.stats.streams[a.stats.compute].stream;
  std::vector<int> names;
  std::vector<double> start, end;
  for (int id : a.stats.start_order) {
    const KernelEvent& k = a.trace.kernels[id];
    if (k.stream != compute_index) continue;
    names.push_back(k.name);
    start.push_back(k.ts_us - a.stats.t0_us);
    end.push_back(k.end_us() - a.stats.t0_us);
  }
  a.segments = find_segments(names, start, end);
  return a;
}

Json trace_json(const TraceAnalysis& a) {
  const TraceStats& st = a.stats;
  Json j;
  j["trace"] = a.trace.file;
  j["bytes"] = a.trace.bytes;
  j["events"] = a.trace.events;
  j["kernels"] = st.kernels;
  j["start_ts_us"] = st.t0_us;
  j["span_us"] = st.span_us;
  j["gpu_sms"] = st.gpu_sms;
  j["compute_stream"] = st.streams[st.compute].name;
  if (st.communication >= 0) {
    j["communication_stream"] = st.streams[st.communication].name;
    j["communication_sms"] = st.streams[st.communication].sms;
  } else {
    j["communication_stream"] = nullptr;
    j["communication_sms"] = 0;
  }
  Json streams = Json::array();
  for (const auto& s : st.streams) {
    const StreamKey& key = a.trace.streams[s.stream];
    Json grids = Json::array();
    for (size_t g = 0; g < s.grids.size() && g < kGridsShown; ++g)
      grids.push_back(Json{{"grid", s.grids[g].grid[0] ? Json(s.grids[g].grid) : Json(nullptr)},
                           {"kernels", s.grids[g].kernels},
                           {"total_us", s.grids[g].busy_us}});
    streams.push_back(Json{{"name", s.name},
                           {"device", key.device},
                           {"stream", key.stream},
                           {"role", s.role},
                           {"main_family", s.main_family},
                           {"kernels", s.kernels},
                           {"busy_us", s.busy_us},
                           {"busy_fraction", st.span_us > 0 ? s.busy_us / st.span_us : 0.0},
                           {"kernel_us", s.kernel_us},
                           {"communication_us", s.communication_us},
                           {"first_start_us", s.first_start_us},
                           {"last_end_us", s.last_end_us},
                           {"sms", s.sms},
                           {"distinct_grids", s.grids.size()},
                           {"grids", grids}});
  }
  j["streams"] = streams;
  Json pairs = Json::array();
  for (const auto& p : st.pairs)
    pairs.push_back(Json{{"streams", {st.streams[p.a].name, st.streams[p.b].name}},
                         {"overlap_us", p.overlap_us}});
  j["overlap"] =
      Json{{"multi_stream_us", st.multi_stream_us},
           {"multi_stream_fraction", st.span_us > 0 ? st.multi_stream_us / st.span_us : 0.0},
           {"pairs", pairs}};
  Json apis = Json::array();
  for (const auto& [api, q] : st.launch.by_api)
    apis.push_back(Json{{"api", api}, {"count", q.count}, {"median_us", q.median_us}});
  j["launch"] = Json{
      {"kernels_linked", st.launch.kernels_linked},
      {"host_launch", quantiles_json(st.launch.host_launch, "median_us", "p90_us")},
      {"launch_to_start", quantiles_json(st.launch.launch_to_start, "median_gap_us", "p90_gap_us")},
      {"ready_to_start", quantiles_json(st.launch.ready_to_start, "median_gap_us", "p90_gap_us")},
      {"host_launch_by_api", apis}};
  Json fams = Json::array();
  for (const auto& f : st.families)
    fams.push_back(Json{{"family", f.family},
                        {"kernels", f.kernels},
                        {"total_us", f.total_us},
                        {"mean_us", f.mean_us}});
  j["families"] = fams;
  const SegmentSearch& sg = a.segments;
  Json seg{{"found", sg.found}, {"stream", st.streams[st.compute].name}};
  if (sg.found) {
    Json list = Json::array();
    for (size_t i = 0; i < sg.segments.size(); ++i) {
      const Segment& s = sg.segments[i];
      list.push_back(Json{{"index", i},
                          {"start_us", s.start_us},
                          {"end_us", s.end_us},
                          {"duration_us", s.duration_us()},
                          {"first_kernel", s.first_kernel},
                          {"kernels", s.kernels}});
    }
    seg["count"] = sg.segments.size();
    seg["period_kernels"] = sg.period_kernels;
    seg["marker"] = a.trace.names[sg.marker];
    seg["agreeing_markers"] = sg.agreeing_markers;
    seg["self_similarity"] = sg.self_similarity;
    seg["prologue_kernels"] = sg.prologue_kernels;
    seg["mean_us"] = sg.mean_us;
    seg["min_us"] = sg.min_us;
    seg["max_us"] = sg.max_us;
    seg["list"] = list;
  } else {
    seg["count"] = 0;
    seg["reason"] = sg.reason;
  }
  j["segments"] = seg;
  return j;
}

void write_trace_table(std::ostream& out, const TraceAnalysis& a) {
  const TraceStats& st = a.stats;
  const double span = st.span_us;
  auto pct = [&](double us) { return span > 0 ? 100.0 * us / span : 0.0; };
  out << fmt::format("trace      {} ({} events, {} bytes)\n", a.trace.file, a.trace.events,
                     a.trace.bytes);
  out << fmt::format(
      "kernels    {} on {} streams, span {:.1f} us (first kernel start to last end)\n", st.kernels,
      st.streams.size(), span);
  if (st.gpu_sms > 0) out << fmt::format("gpu        {} SMs (deviceProperties)\n", st.gpu_sms);
  const StreamStats& c = st.streams[st.compute];
  out << fmt::format(
      "compute    {} ({}): {} kernels, busy {:.1f} us ({:.1f} %), most time on {} SMs\n", c.name,
      c.main_family, c.kernels, c.busy_us, pct(c.busy_us), c.sms);
  if (st.communication >= 0) {
    const StreamStats& m = st.streams[st.communication];
    out << fmt::format("comm       {} ({}): {} kernels, busy {:.1f} us ({:.1f} %), holds {} SMs\n",
                       m.name, m.main_family, m.kernels, m.busy_us, pct(m.busy_us), m.sms);
  } else {
    out << "comm       no stream runs mostly communication kernels\n";
  }
  out << fmt::format("overlap    >= 2 streams busy {:.1f} us ({:.1f} % of span)\n",
                     st.multi_stream_us, pct(st.multi_stream_us));
  const LaunchStats& l = st.launch;
  out << fmt::format(
      "launch     {} of {} kernels linked to their launch call; host launch cost median {:.1f} "
      "us\n",
      l.kernels_linked, st.kernels, l.host_launch.median_us);
  out << fmt::format(
      "gaps       launch-to-start median {:.1f} us, p90 {:.1f} us; ready-to-start median {:.1f} "
      "us, p90 {:.1f} us\n",
      l.launch_to_start.median_us, l.launch_to_start.p90_us, l.ready_to_start.median_us,
      l.ready_to_start.p90_us);
  const SegmentSearch& sg = a.segments;
  if (sg.found)
    out << fmt::format(
        "segments   {} on {}, mean {:.1f} us ({:.1f}-{:.1f}), period {:.0f} kernels, "
        "self-similarity {:.2f}; boundary '{}'\n",
        sg.segments.size(), c.name, sg.mean_us, sg.min_us, sg.max_us, sg.period_kernels,
        sg.self_similarity, shorten(a.trace.names[sg.marker], 48));
  else
    out << fmt::format("segments   none on {}: {}\n", c.name, sg.reason);

  out << fmt::format("\n{:<16}{:<15}{:>8}{:>13}{:>8}{:>6}  {}\n", "stream", "role", "kernels",
                     "busy_us", "busy", "sms", "top grids (kernels)");
  for (const auto& s : st.streams) {
    std::string grids;
    for (size_t g = 0; g < s.grids.size() && g < 3; ++g)
      grids +=
          (g ? " " : "") + grid_text(s.grids[g].grid) + fmt::format(" ({})", s.grids[g].kernels);
    out << fmt::format("{:<16}{:<15}{:>8}{:>13.1f}{:>7.1f}%{:>6}  {}\n", s.name, s.role, s.kernels,
                       s.busy_us, pct(s.busy_us), s.sms, grids);
  }
  out << fmt::format("\n{:<32}{:>12}\n", "streams", "overlap_us");
  for (const auto& p : st.pairs)
    out << fmt::format("{:<32}{:>12.1f}\n", st.streams[p.a].name + " + " + st.streams[p.b].name,
                       p.overlap_us);
  out << fmt::format("\n{:<16}{:>8}{:>13}{:>10}\n", "family", "kernels", "total_us", "mean_us");
  for (const auto& f : st.families)
    out << fmt::format("{:<16}{:>8}{:>13.1f}{:>10.1f}\n", f.family, f.kernels, f.total_us,
                       f.mean_us);
  if (sg.found) {
    out << fmt::format("\n{:<10}{:>13}{:>13}{:>9}\n", "segment", "start_us", "duration_us",
                       "kernels");
    for (size_t i = 0; i < sg.segments.size(); ++i)
      out << fmt::format("{:<10}{:>13.1f}{:>13.1f}{:>9}\n", i, sg.segments[i].start_us,
                         sg.segments[i].duration_us(), sg.segments[i].kernels);
  }
}

}  // namespace ovs::trace
