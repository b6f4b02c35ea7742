#include "calibrate/import/trace_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "calibrate/import/kernel_families.hpp"

namespace ovs::trace {
namespace {

// A double-quoted YAML scalar (JSON string syntax is valid YAML), ASCII only.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace

ExportSummary write_program_yaml(std::ostream& out, const TraceAnalysis& a,
                                 const ExportOptions& o) {
  const KinetoTrace& t = a.trace;
  const TraceStats& st = a.stats;
  ExportSummary sum;
  sum.measured_span_us = st.span_us;
  out << "# Exported by `overlapsim import-trace --program`: the trace's kernels with their "
         "measured\n"
         "# durations, streams and start order; host_us paces the launches as the trace's host "
         "did\n"
      << fmt::format("# (gaps capped at {} us). No cross-stream waits are emitted.\n",
                     o.max_host_gap_us);
  out << "description: "
      << quoted(fmt::format("{} kernels imported from {}; measured span {} us", st.kernels, t.file,
                            st.span_us))
      << "\n";
  out << "hardware: " << quoted(o.hardware) << "\n";
  out << "launch_mode: eager\n";
  out << "streams:\n";
  for (size_t i = 0; i < st.streams.size(); ++i) {
    const StreamStats& s = st.streams[i];
    out << fmt::format("  - {{name: {}", quoted(s.name));
    if (static_cast<int>(i) == st.communication) out << ", priority: 1";
    out << fmt::format("}}   # {}, {} kernels\n", s.role, s.kernels);
  }
  out << "program:\n";
  double host_clock = 0;
  bool started = false;
  for (int id : st.start_order) {
    const KernelEvent& k = t.kernels[id];
    const long long sms = o.sm_count > 0 ? std::min<long long>(k.ctas(), o.sm_count) : 0;
    out << fmt::format("  - launch: {{name: {}, stream: {}, duration_us: {}, sms: {}, op: {}",
                       quoted(t.names[k.name]), quoted(st.streams[st.stream_of[k.stream]].name),
                       k.dur_us, sms, kernel_family(t.names[k.name]));
    const auto call = k.correlation >= 0 ? t.launches.find(k.correlation) : t.launches.end();
    if (call != t.launches.end()) {
      double gap = started ? call->second.ts_us - host_clock : call->second.dur_us;
      gap = std::max(0.0, gap);
      if (gap > o.max_host_gap_us) {
        gap = o.max_host_gap_us;
        ++sum.capped_gaps;
      }
      host_clock = started ? std::max(host_clock, call->second.ts_us) : call->second.ts_us;
      started = true;
      sum.host_us += gap;
      out << fmt::format(", host_us: {}", gap);
    } else {
      ++sum.unlinked;
    }
    out << "}\n";
    ++sum.launches;
  }
  return sum;
}

}  // namespace ovs::trace
