#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/analysis/whatif.hpp"

namespace ovs {

using Json = nlohmann::ordered_json;

namespace {
Json stats_json(const ProgramStats& s) {
  Json solo;
  for (const auto& [k, v] : s.solo_us) solo[k] = v;
  return Json{{"strategy", s.strategy},
              {"forward_us", s.total_us},
              {"per_layer_us", s.per_layer_us},
              {"tokens_per_s_per_gpu", s.tokens_per_s_per_gpu},
              {"exposed_comm_us", s.exposed_comm_us},
              {"comm_busy_us", s.comm_busy_us},
              {"compute_busy_us", s.compute_busy_us},
              {"gpu_idle_us", s.gpu_idle_us},
              {"host_busy_us", s.host_busy_us},
              {"host_blocked_us", s.host_blocked_us},
              {"launches", s.launches},
              {"two_micro_batches", s.split},
              {"kernel_time_alone_us", solo}};
}
}  // namespace

void write_whatif_json(std::ostream& out, const WhatIfResult& r) {
  const Workload& w = r.workload;
  Json j;
  j["model"] = r.model;
  j["hardware"] = r.hw;
  j["phase"] = r.phase;
  j["tokens_per_gpu"] = w.tokens_per_gpu;
  j["context"] = w.context;
  j["ep"] = w.ep;
  j["gpus_per_node"] = w.gpus_per_node;
  j["imbalance"] = w.imbalance;
  j["cuda_graphs"] = w.graphs();
  j["deepep_mode"] = w.mode() == DeepepMode::normal ? "normal" : "low_latency";
  j["strategy"] = r.overlapped.strategy;
  j["baseline"] = r.baseline.strategy;
  j["baseline_us"] = r.baseline.total_us;
  j["overlapped_us"] = r.overlapped.total_us;
  j["speedup"] = r.speedup;
  j["advantage_us"] = r.advantage_us;
  j["degradation_us"] = r.degradation_us;
  j["comm_hidden_us"] = r.comm_hidden_us;
  j["verdict"] = r.verdict;
  j["baseline_per_layer_us"] = r.baseline.per_layer_us;
  j["overlapped_per_layer_us"] = r.overlapped.per_layer_us;
  j["baseline_tokens_per_s_per_gpu"] = r.baseline.tokens_per_s_per_gpu;
  j["overlapped_tokens_per_s_per_gpu"] = r.overlapped.tokens_per_s_per_gpu;
  Json deg = Json::array();
  for (const auto& d : r.degradation) deg.push_back({{"cause", d.cause}, {"us", d.us}});
  j["degradation"] = deg;
  j["baseline_detail"] = stats_json(r.baseline);
  j["overlapped_detail"] = stats_json(r.overlapped);
  if (!r.overlapped.note.empty()) j["note"] = r.overlapped.note;
  out << j.dump(2) << "\n";
}

void write_whatif_table(std::ostream& out, const WhatIfResult& r) {
  const Workload& w = r.workload;
  out << fmt::format(
      "{} on {}, {}: {} {} per GPU, context {}, EP {}, {} GPUs/node, DeepEP {}, {}\n", r.model,
      r.hw, r.phase, w.tokens_per_gpu, r.phase == "prefill" ? "tokens" : "requests", w.context,
      w.ep, w.gpus_per_node, w.mode() == DeepepMode::normal ? "normal" : "low-latency",
      w.graphs() ? "CUDA graphs" : "eager");
  out << "\n" << r.verdict << "\n\n";
  out << fmt::format("{:<34} {:>14} {:>14}\n", "", r.baseline.strategy, r.overlapped.strategy);
  auto row = [&](const char* label, double a, double b, const char* unit) {
    out << fmt::format("{:<34} {:>11.1f} {:<2} {:>11.1f} {:<2}\n", label, a, unit, b, unit);
  };
  row("forward", r.baseline.total_us, r.overlapped.total_us, "us");
  row("per MoE layer (steady state)", r.baseline.per_layer_us, r.overlapped.per_layer_us, "us");
  out << fmt::format("{:<34} {:>14.0f} {:>14.0f}\n", "tokens/s per GPU",
                     r.baseline.tokens_per_s_per_gpu, r.overlapped.tokens_per_s_per_gpu);
  row("communication exposed", r.baseline.exposed_comm_us, r.overlapped.exposed_comm_us, "us");
  row("communication running", r.baseline.comm_busy_us, r.overlapped.comm_busy_us, "us");
  row("compute running", r.baseline.compute_busy_us, r.overlapped.compute_busy_us, "us");
  row("GPU idle (host-bound, waits)", r.baseline.gpu_idle_us, r.overlapped.gpu_idle_us, "us");
  out << fmt::format("{:<34} {:>14} {:>14}\n", "kernel launches", r.baseline.launches,
                     r.overlapped.launches);
  out << fmt::format(
      "\nspeedup {:.3f}x   advantage {:.1f} us   degradation {:.1f} us   net {:+.1f} us\n",
      r.speedup, r.advantage_us, r.degradation_us, r.baseline.total_us - r.overlapped.total_us);
  out << "\nadvantage: communication hidden " << fmt::format("{:.1f} us", r.comm_hidden_us) << "\n";
  out << "degradation by cause (time alone, overlapped minus baseline):\n";
  for (const auto& d : r.degradation) out << fmt::format("  {:<32} {:>+10.1f} us\n", d.cause, d.us);
  if (!r.overlapped.note.empty()) out << "\nnote: " << r.overlapped.note << "\n";
}

}  // namespace ovs
