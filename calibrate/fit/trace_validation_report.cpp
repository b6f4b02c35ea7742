// The two ways to print a trace validation: a table for people, one JSON object for scripts.
#include <fmt/format.h>

#include <cmath>

#include "calibrate/fit/trace_validation.hpp"

namespace ovs {
namespace {

std::string pct(const ReplayPair& p) {
  return p.measured > 0 ? fmt::format("{:+.1f}%", 100 * p.error()) : "-";
}

nlohmann::ordered_json pair_json(const ReplayPair& p) {
  return {{"measured", p.measured}, {"replayed", p.replayed}, {"error", p.error()}};
}

}  // namespace

void write_trace_validation(std::ostream& out, const TraceValidation& v) {
  out << fmt::format("{} on {}: {} kernels, replayed by the engine\n", v.trace, v.hardware,
                     v.kernels);
  out << "(kernel durations are the trace's; the engine decides when each starts: host launch "
         "pacing,\n stream order, SM hand-out. What is compared is scheduling, not kernel "
         "cost.)\n\n";
  out << fmt::format("{:<34} {:>14} {:>14} {:>8}\n", "", "measured_us", "replayed_us", "error");
  out << fmt::format("{:<34} {:>14.1f} {:>14.1f} {:>8}\n", "makespan", v.makespan_us.measured,
                     v.makespan_us.replayed, pct(v.makespan_us));
  out << fmt::format("{:<34} {:>14.1f} {:>14.1f} {:>8}\n", "two or more streams busy",
                     v.multi_stream_us.measured, v.multi_stream_us.replayed,
                     pct(v.multi_stream_us));
  for (size_t i = 0; i < v.layers_us.size(); ++i)
    out << fmt::format("{:<34} {:>14.1f} {:>14.1f} {:>8}\n", fmt::format("layer {}", i + 1),
                       v.layers_us[i].measured, v.layers_us[i].replayed, pct(v.layers_us[i]));
  out << "\nper stream                  span: measured   replayed  error | beside another "
         "stream: measured   replayed  error\n";
  for (const auto& s : v.streams)
    out << fmt::format("  {:<14} {:<13} {:>8} {:>10.1f} {:>7} | {:>25.1f} {:>10.1f} {:>7}\n",
                       s.name, s.role, fmt::format("{:.1f}", s.span_us.measured),
                       s.span_us.replayed, pct(s.span_us), s.overlapped_us.measured,
                       s.overlapped_us.replayed, pct(s.overlapped_us));
  out << "\nper kernel family (time beside another stream)  measured   replayed   error  "
         "kernels  kernel time stretch\n";
  for (const auto& f : v.families)
    out << fmt::format("  {:<12}{:<34} {:>9.1f} {:>10.1f} {:>7} {:>8} {:>+8.2f}%\n", f.family,
                       f.in_mape ? "" : " (under 1 % of span)", f.overlapped_us.measured,
                       f.overlapped_us.replayed, pct(f.overlapped_us), f.kernels,
                       100 * f.kernel_us.error());
  out << "\n";
  out << fmt::format("MAPE per-stream span              {:.1f} %\n", 100 * v.mape_stream_span);
  out << fmt::format("MAPE per-stream time beside other {:.1f} %\n", 100 * v.mape_stream_overlap);
  out << fmt::format("MAPE per-family time beside other {:.1f} %\n", 100 * v.mape_family_overlap);
  if (!v.profile.empty()) {
    out << "\nprofile parameters the trace measures:\n";
    for (const auto& p : v.profile)
      out << fmt::format("  {:<38} measured {:>8.2f} {:<3}  {} = {:.6g}\n", p.what, p.measured,
                         p.unit, p.parameter, p.predicted);
  }
  for (const auto& n : v.notes) out << "note: " << n << "\n";
}

nlohmann::ordered_json trace_validation_json(const TraceValidation& v) {
  nlohmann::ordered_json j;
  j["trace"] = v.trace;
  j["hardware"] = v.hardware;
  j["kind"] = "replay";
  j["kernels"] = v.kernels;
  j["makespan_us"] = pair_json(v.makespan_us);
  j["multi_stream_us"] = pair_json(v.multi_stream_us);
  auto layers = nlohmann::ordered_json::array();
  for (const auto& l : v.layers_us) layers.push_back(pair_json(l));
  j["layers_us"] = layers;
  auto streams = nlohmann::ordered_json::array();
  for (const auto& s : v.streams)
    streams.push_back({{"name", s.name},
                       {"role", s.role},
                       {"kernels", s.kernels},
                       {"span_us", pair_json(s.span_us)},
                       {"beside_other_us", pair_json(s.overlapped_us)},
                       {"busy_us_given", pair_json(s.busy_us)}});
  j["streams"] = streams;
  auto families = nlohmann::ordered_json::array();
  for (const auto& f : v.families)
    families.push_back({{"family", f.family},
                        {"kernels", f.kernels},
                        {"beside_other_us", pair_json(f.overlapped_us)},
                        {"kernel_us_given", pair_json(f.kernel_us)},
                        {"in_mape", f.in_mape}});
  j["families"] = families;
  j["mape"] = {{"stream_span", v.mape_stream_span},
               {"stream_beside_other", v.mape_stream_overlap},
               {"family_beside_other", v.mape_family_overlap}};
  auto profile = nlohmann::ordered_json::array();
  for (const auto& p : v.profile)
    profile.push_back({{"what", p.what},
                       {"parameter", p.parameter},
                       {"measured", p.measured},
                       {"profile", p.predicted},
                       {"unit", p.unit}});
  j["profile"] = profile;
  j["notes"] = v.notes;
  return j;
}

}  // namespace ovs
