#include "app/program/run_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace ovs {

using Json = nlohmann::ordered_json;

void write_run_json(std::ostream& out, const RunSummary& s) {
  const Program& p = s.loaded.program;
  const Hardware& hw = s.loaded.hw.engine;
  Json j;
  j["program"] = s.loaded.file;
  j["hardware"] = s.loaded.hw.name;
  j["launch_mode"] = p.launch_mode == LaunchMode::graph ? "graph" : "eager";
  j["makespan_us"] = s.result.makespan_us;
  j["serial_us"] = s.serial_us;
  j["overlap_saving_us"] = s.serial_us - s.result.makespan_us;
  j["gpu_end_us"] = s.result.gpu_end_us;
  j["host_end_us"] = s.result.host_end_us;
  j["host_busy_us"] = s.result.host_busy_us;
  j["host_blocked_us"] = s.result.host_blocked_us;
  j["gpu_busy_us"] = s.timeline.gpu_busy_us();
  j["sm_utilization"] =
      s.result.makespan_us > 0 ? s.timeline.sm_us() / (hw.sm_count * s.result.makespan_us) : 0.0;
  j["engine_steps"] = s.result.steps;
  Json streams = Json::array();
  for (size_t i = 0; i < p.streams.size(); ++i) {
    int n = 0;
    for (const auto& k : p.kernels) n += k.stream == int(i);
    streams.push_back(Json{{"name", p.streams[i].name},
                           {"kernels", n},
                           {"busy_us", s.timeline.stream_busy_us(int(i))}});
  }
  j["streams"] = streams;
  Json kernels = Json::array();
  const auto& rec = s.timeline.kernels();
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const auto& k = p.kernels[i];
    Json kj{{"name", k.name},
            {"stream", p.streams[k.stream].name},
            {"enqueued_us", rec[i].enqueue_us},
            {"start_us", rec[i].start_us},
            {"end_us", rec[i].end_us},
            {"sms_at_start", rec[i].sms.empty() ? 0 : rec[i].sms.front().second},
            {"hbm_bytes", rec[i].traffic.hbm_bytes},
            {"l2_bytes", rec[i].traffic.l2_bytes}};
    if (!k.op.empty()) kj["op"] = k.op;
    kernels.push_back(kj);
  }
  j["kernels"] = kernels;
  out << j.dump(2) << "\n";
}

void write_run_table(std::ostream& out, const RunSummary& s) {
  const Program& p = s.loaded.program;
  const Hardware& hw = s.loaded.hw.engine;
  const double mk = s.result.makespan_us;
  out << fmt::format("program    {}\n", s.loaded.file);
  out << fmt::format("hardware   {} ({} {}), {} launches\n", s.loaded.hw.name, hw.sm_count,
                     s.loaded.hw.vendor == "amd" ? "CUs" : "SMs",
                     p.launch_mode == LaunchMode::graph ? "CUDA-graph" : "eager");
  out << fmt::format("kernels    {} on {} streams, {} host actions\n", p.kernels.size(),
                     p.streams.size(), p.actions.size());
  out << fmt::format("makespan   {:.1f} us\n", mk);
  out << fmt::format("serial     {:.1f} us (every kernel on one stream, program order)\n",
                     s.serial_us);
  if (s.serial_us > 0)
    out << fmt::format("overlap    saves {:.1f} us ({:.1f} % of serial)\n", s.serial_us - mk,
                       100.0 * (s.serial_us - mk) / s.serial_us);
  out << fmt::format("host       busy {:.1f} us, blocked {:.1f} us, done at {:.1f} us\n",
                     s.result.host_busy_us, s.result.host_blocked_us, s.result.host_end_us);
  const double sm_us = s.timeline.sm_us();
  out << fmt::format("GPU        busy {:.1f} us of {:.1f}; ", s.timeline.gpu_busy_us(), mk);
  if (sm_us > 0 && mk > 0)
    out << fmt::format("SM utilization {:.1f} %\n", 100.0 * sm_us / (hw.sm_count * mk));
  else
    out << "no kernel holds SMs (given durations)\n";
  out << fmt::format("\n{:<16} {:>8} {:>12} {:>8}\n", "stream", "kernels", "busy_us", "busy");
  for (size_t i = 0; i < p.streams.size(); ++i) {
    int n = 0;
    for (const auto& k : p.kernels) n += k.stream == int(i);
    const double busy = s.timeline.stream_busy_us(int(i));
    out << fmt::format("{:<16} {:>8} {:>12.1f} {:>7.1f}%\n", p.streams[i].name, n, busy,
                       mk > 0 ? 100.0 * busy / mk : 0.0);
  }
}

}  // namespace ovs
