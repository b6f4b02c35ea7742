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

ExportedProgram export_program(const TraceAnalysis& a, const ExportOptions& o) {
  const KinetoTrace& t = a.trace;
  const TraceStats& st = a.stats;
  ExportedProgram out;
  Program& p = out.program;
  ExportSummary& sum = out.summary;
  sum.measured_span_us = st.span_us;
  p.launch_mode = LaunchMode::eager;
  for (size_t i = 0; i < st.streams.size(); ++i)
    p.streams.push_back({st.streams[i].name, static_cast<int>(i) == st.communication ? 1 : 0});
  double host_clock_us = 0;
  bool started = false;
  for (int id : st.start_order) {
    const KernelEvent& k = t.kernels[id];
    KernelSpec spec;
    spec.name = t.names[k.name];
    spec.stream = st.stream_of[k.stream];
    spec.duration_us = k.dur_us;
    spec.sms = o.sm_count > 0 ? static_cast<int>(std::min<long long>(k.ctas(), o.sm_count)) : 0;
    spec.op = std::string(kernel_family(t.names[k.name]));
    LaunchAction launch{static_cast<int>(p.kernels.size()), std::nullopt};
    const auto call = k.correlation >= 0 ? t.launches.find(k.correlation) : t.launches.end();
    if (call != t.launches.end()) {
      double gap_us = started ? call->second.ts_us - host_clock_us : call->second.dur_us;
      gap_us = std::max(0.0, gap_us);
      if (gap_us > o.max_host_gap_us) {
        gap_us = o.max_host_gap_us;
        ++sum.capped_gaps;
      }
      host_clock_us = started ? std::max(host_clock_us, call->second.ts_us) : call->second.ts_us;
      started = true;
      sum.host_us += gap_us;
      launch.host_us = gap_us;
    } else {
      ++sum.unlinked;
    }
    p.actions.push_back({launch, spec.op});
    p.kernels.push_back(std::move(spec));
    ++sum.launches;
  }
  return out;
}

void write_program_yaml(std::ostream& out, const TraceAnalysis& a, const ExportedProgram& e,
                        const ExportOptions& o) {
  const TraceStats& st = a.stats;
  const Program& p = e.program;
  out << "# Exported by `overlapsim import-trace --program`: the trace's kernels with their "
         "measured\n"
         "# durations, streams and start order; host_us paces the launches as the trace's host "
         "did\n"
      << fmt::format("# (gaps capped at {} us). No cross-stream waits are emitted.\n",
                     o.max_host_gap_us);
  out << "description: "
      << quoted(fmt::format("{} kernels imported from {}; measured span {} us", st.kernels,
                            a.trace.file, st.span_us))
      << "\n";
  out << "hardware: " << quoted(o.hardware) << "\n";
  out << "launch_mode: eager\n";
  out << "streams:\n";
  for (size_t i = 0; i < p.streams.size(); ++i) {
    const StreamSpec& s = p.streams[i];
    out << fmt::format("  - {{name: {}", quoted(s.name));
    if (s.priority != 0) out << fmt::format(", priority: {}", s.priority);
    out << fmt::format("}}   # {}, {} kernels\n", st.streams[i].role, st.streams[i].kernels);
  }
  out << "program:\n";
  for (const HostAction& action : p.actions) {
    const auto& launch = std::get<LaunchAction>(action.step);
    const KernelSpec& k = p.kernels[launch.kernel];
    out << fmt::format("  - launch: {{name: {}, stream: {}, duration_us: {}, sms: {}, op: {}",
                       quoted(k.name), quoted(p.streams[k.stream].name), *k.duration_us, k.sms,
                       k.op);
    if (launch.host_us) out << fmt::format(", host_us: {}", *launch.host_us);
    out << "}\n";
  }
}

}  // namespace ovs::trace
