#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/analysis/whatif.hpp"
#include "app/analysis/whatif_json.hpp"
#include "app/strategy/sglang_gate.hpp"
#include "sim/core/units.hpp"

namespace ovs {

using Json = nlohmann::ordered_json;

namespace {
// A throughput only for a side that fits in HBM.
Json throughput(const ProgramStats& s) {
  return s.fits() ? Json(s.tokens_per_s_per_gpu) : Json(nullptr);
}

Json memory_json(const MemoryUse& m) {
  const double gb = units::kBytesPerGB;
  Json terms = Json::object();
  for (const auto& t : m.terms) terms[t.name] = t.bytes / gb;
  return Json{{"total_gb", m.total_bytes / gb},
              {"capacity_gb", m.capacity_bytes / gb},
              {"fits", m.fits()},
              {"fits_limited_by", memory_limit_name(m.limited_by)},
              {"margin", m.margin},
              {"tight", m.tight},
              {"mem_fraction_static", m.fraction},
              {"mem_fraction_static_how", m.fraction_how},
              {"weights_gb", m.weights_bytes / gb},
              {"kv_pool_gb", m.pool_bytes / gb},
              {"kv_cache_gb", m.kv_bytes / gb},
              {"transient_gb", m.transient_bytes / gb},
              {"fragmentation_gb", m.fragmentation_bytes / gb},
              {"fixed_overheads_gb", m.overhead_bytes / gb},
              {"transient_budget_gb", m.transient_budget_bytes() / gb},
              {"terms_gb", terms}};
}

// "yes", "yes (tight)" or "NO (kv_pool)".
std::string fit_word(const MemoryUse& m) {
  if (!m.fits()) return std::string("NO (") + memory_limit_name(m.limited_by) + ")";
  return m.tight ? "yes (tight)" : "yes";
}

Json stats_json(const ProgramStats& s) {
  Json solo;
  for (const auto& [k, v] : s.solo_us) solo[k] = v;
  return Json{{"strategy", s.strategy},
              {"forward_us", s.total_us},
              {"per_layer_us", s.per_layer_us},
              {"tokens_per_s_per_gpu", throughput(s)},
              {"exposed_comm_us", s.exposed_comm_us},
              {"comm_busy_us", s.comm_busy_us},
              {"compute_busy_us", s.compute_busy_us},
              {"gpu_idle_us", s.gpu_idle_us},
              {"host_busy_us", s.host_busy_us},
              {"host_blocked_us", s.host_blocked_us},
              {"launches", s.launches},
              {"two_micro_batches", s.split},
              {"kernel_time_alone_us", solo},
              {"memory", memory_json(s.memory)}};
}

// One line on SGLang's strategies at this point and the plan command for the deployment question.
void write_alternatives(std::ostream& out, const WhatIfResult& r) {
  if (r.alternatives.empty()) return;
  std::vector<std::string> items;
  for (const auto& a : r.alternatives)
    items.push_back(
        fmt::format("'{}' {:.3f}x{}", a.strategy, a.speedup, a.both_fit ? "" : " (does not fit)"));
  const auto& best = r.alternatives.front();
  std::string lead;
  if (r.alternatives.size() > 1)
    lead = fmt::format(", {:.1f} % ahead of '{}'",
                       100 * (best.speedup / r.alternatives[1].speedup - 1),
                       r.alternatives[1].strategy);
  out << fmt::format("\nSGLang's strategies here, against '{}': {}. Best at this point: '{}'{}.\n",
                     r.baseline.strategy, fmt::join(items, ", "), best.strategy, lead);
  const bool decode = r.phase == "decode";
  out << fmt::format(
      "For the deployment (batch, EP, strategy at a latency target): overlapsim plan --model {} "
      "--hw {} --phase {} --gpus {} {}\n",
      r.model, r.hw, r.phase, r.workload.ep,
      decode ? fmt::format("--context {} --tpot-ms TARGET", r.workload.context)
             : fmt::format("--prompt-len {} --ttft-ms TARGET", r.workload.context));
}

}  // namespace

void write_whatif_json(std::ostream& out, const WhatIfResult& r) {
  out << whatif_json(r).dump(2) << "\n";
}

Json whatif_json(const WhatIfResult& r) {
  const Workload& w = r.workload;
  Json j;
  j["model"] = r.model;
  j["hardware"] = r.hw;
  j["phase"] = r.phase;
  j["tokens_per_gpu"] = w.tokens_per_gpu;
  j["context"] = w.context;
  j["ep"] = w.ep;
  j["gpus_per_node"] = w.gpus_per_node;
  j["redundant_experts"] = w.redundant_experts;
  j["imbalance"] = r.hot_rank_load;  // resolved: the user's, or the routing statistics'
  j["placement"] = placement_name(w.placement);
  j["attention_backend"] = r.attention_backend.empty() ? Json(nullptr) : Json(r.attention_backend);
  j["cuda_graphs"] = w.graphs();
  j["deepep_mode"] = w.mode() == DeepepMode::normal ? "normal" : "low_latency";
  j["strategy"] = r.overlapped.strategy;
  j["baseline"] = r.baseline.strategy;
  j["baseline_us"] = r.baseline.total_us;
  j["overlapped_us"] = r.overlapped.total_us;
  const bool both_fit = r.baseline.fits() && r.overlapped.fits();
  // The ratio of the simulated forwards, whether or not they fit (both_fit says whether SGLang
  // would run them with its memory settings; a side that does not fit has no throughput).
  j["speedup"] = r.speedup;
  j["both_fit"] = both_fit;
  j["advantage_us"] = r.advantage_us;
  j["degradation_us"] = r.degradation_us;
  j["comm_hidden_us"] = r.comm_hidden_us;
  j["side_by_side_us"] = r.side_by_side_us;
  j["net_us"] = r.net_us;
  // 0 unless the halves differ: then the advantage's terms are those of the halves evened out.
  j["even_halves_us"] = r.even_halves_us;
  j["even_halves_exposed_comm_us"] = r.even_halves_exposed_comm_us;
  // net = advantage - degradation, every term named: the advantage's terms add up to it, the
  // degradation's causes (below) to the degradation.
  j["advantage_terms"] =
      Json::array({{{"term", "communication hidden"}, {"us", r.comm_hidden_us}},
                   {{"term", "kernel time run side by side"}, {"us", r.side_by_side_us}}});
  j["verdict"] = r.verdict;
  j["baseline_per_layer_us"] = r.baseline.per_layer_us;
  j["overlapped_per_layer_us"] = r.overlapped.per_layer_us;
  j["baseline_tokens_per_s_per_gpu"] = throughput(r.baseline);
  j["overlapped_tokens_per_s_per_gpu"] = throughput(r.overlapped);
  j["baseline_memory_gb"] = r.baseline.memory.total_bytes / units::kBytesPerGB;
  j["overlapped_memory_gb"] = r.overlapped.memory.total_bytes / units::kBytesPerGB;
  j["baseline_fits"] = r.baseline.fits();
  j["overlapped_fits"] = r.overlapped.fits();
  // The limit each side breaks, or (when it fits) the nearest one: weights, kv_pool, transient.
  j["baseline_fits_limited_by"] = memory_limit_name(r.baseline.memory.limited_by);
  j["overlapped_fits_limited_by"] = memory_limit_name(r.overlapped.memory.limited_by);
  j["baseline_memory_tight"] = r.baseline.memory.tight;
  j["overlapped_memory_tight"] = r.overlapped.memory.tight;
  j["hbm_capacity_gb"] = r.baseline.memory.capacity_bytes / units::kBytesPerGB;
  Json deg = Json::array();
  for (const auto& d : r.degradation) deg.push_back({{"cause", cause_name(d.cause)}, {"us", d.us}});
  j["degradation"] = deg;
  j["baseline_detail"] = stats_json(r.baseline);
  j["overlapped_detail"] = stats_json(r.overlapped);
  if (!r.overlapped.note.empty()) j["note"] = r.overlapped.note;
  if (!r.notes.empty()) j["notes"] = r.notes;
  auto gate = [](const std::string& why) { return why.empty() ? Json(nullptr) : Json(why); };
  j["strategy_outside_sglang"] = gate(r.strategy_outside_sglang);
  j["baseline_outside_sglang"] = gate(r.baseline_outside_sglang);
  j["v4_kernels"] = to_string(r.workload.v4_kernels);
  if (r.split) {
    // SGLang's names: A holds sequences [0, seq_index) (and the first part of sequence seq_index
    // when one is cut) and tokens [0, token_index).
    j["tbo_split_seq_index"] = r.tbo_split.seq_index;
    j["tbo_split_token_index"] = r.tbo_split.token_index;
    j["tbo_split_cuts_sequence"] = r.tbo_split.cut;
    j["micro_batches"] = Json::array({Json{{"sequences", r.a_sequences}, {"tokens", r.a_tokens}},
                                      Json{{"sequences", r.b_sequences}, {"tokens", r.b_tokens}}});
  } else {
    j["tbo_split_seq_index"] = nullptr;
    j["tbo_split_token_index"] = nullptr;
  }
  Json kl = Json::array();
  for (const auto& k : r.kernels_per_layer)
    kl.push_back({{"layer_type", k.type},
                  {"kernels", k.kernels},
                  {"side_branch_kernels", k.side_branch_kernels}});
  j["kernels_per_layer"] = kl;
  if (!r.alternatives.empty()) {
    Json alts = Json::array();
    for (const auto& a : r.alternatives)
      alts.push_back({{"strategy", a.strategy}, {"speedup", a.speedup}, {"both_fit", a.both_fit}});
    j["sglang_alternatives"] = alts;
    j["best_sglang_strategy"] = r.alternatives.front().strategy;
  }
  return j;
}

void write_whatif_table(std::ostream& out, const WhatIfResult& r) {
  const Workload& w = r.workload;
  out << fmt::format(
      "{} on {}, {}: {} {} per GPU, context {}, EP {}, {} GPUs/node, DeepEP {}, {}\n", r.model,
      r.hw, r.phase, w.tokens_per_gpu, r.phase == "prefill" ? "tokens" : "requests", w.context,
      w.ep, w.gpus_per_node, w.mode() == DeepepMode::normal ? "normal" : "low-latency",
      w.graphs() ? "CUDA graphs" : "eager");
  out << "\n" << r.verdict << "\n";
  if (r.split)
    out << fmt::format(
        "split (SGLang's rule): A = sequences [0, {}){}, tokens [0, {}): {} sequence(s), {} "
        "tokens; B = {} sequence(s), {} tokens\n",
        r.tbo_split.seq_index,
        r.tbo_split.cut ? fmt::format(" + the first part of sequence {}", r.tbo_split.seq_index)
                        : std::string(),
        r.tbo_split.token_index, r.a_sequences, r.a_tokens, r.b_sequences, r.b_tokens);
  if (r.even_halves_us > 0)
    out << fmt::format(
        "the halves differ: evened out, the overlapped forward would take {:.3f} ms with {:.3f} "
        "ms of communication exposed; the ledger below is theirs, plus the micro-batch imbalance "
        "(what these halves lose against them)\n",
        r.even_halves_us / 1e3, r.even_halves_exposed_comm_us / 1e3);
  for (const auto* why : {&r.strategy_outside_sglang, &r.baseline_outside_sglang})
    if (!why->empty()) out << kOutsideSglangWarning << *why << "\n";
  out << "\n";
  out << fmt::format("{:<34} {:>14} {:>14}\n", "", r.baseline.strategy, r.overlapped.strategy);
  // Forward and layer times in ms (the JSON keeps us).
  auto row = [&](const char* label, double a_us, double b_us) {
    out << fmt::format("{:<34} {:>11.3f} ms {:>11.3f} ms\n", label, a_us / 1e3, b_us / 1e3);
  };
  row("forward", r.baseline.total_us, r.overlapped.total_us);
  row("per MoE layer (steady state)", r.baseline.per_layer_us, r.overlapped.per_layer_us);
  auto tokens = [](const ProgramStats& s) {
    return s.fits() ? fmt::format("{:.0f}", s.tokens_per_s_per_gpu) : std::string("no fit");
  };
  out << fmt::format("{:<34} {:>14} {:>14}\n", "tokens/s per GPU", tokens(r.baseline),
                     tokens(r.overlapped));
  row("communication exposed", r.baseline.exposed_comm_us, r.overlapped.exposed_comm_us);
  row("communication running", r.baseline.comm_busy_us, r.overlapped.comm_busy_us);
  row("compute running", r.baseline.compute_busy_us, r.overlapped.compute_busy_us);
  row("GPU idle (host-bound, waits)", r.baseline.gpu_idle_us, r.overlapped.gpu_idle_us);
  out << fmt::format("{:<34} {:>14} {:>14}\n", "kernel launches", r.baseline.launches,
                     r.overlapped.launches);
  {
    // Per layer type: the kernels one layer launches for the whole batch (V4: and how many of
    // them are the attention prepare's side branches, which --v4-kernels changes).
    std::string line;
    for (const auto& k : r.kernels_per_layer) {
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", k.type, k.kernels);
      if (k.side_branch_kernels > 0)
        line += fmt::format(" ({} side-branch)", k.side_branch_kernels);
    }
    const bool v4 = std::any_of(r.kernels_per_layer.begin(), r.kernels_per_layer.end(),
                                [](const auto& k) { return k.side_branch_kernels > 0; });
    if (!line.empty())
      out << fmt::format("{:<34} {}{}\n", "kernels per layer, one batch", line,
                         v4 ? fmt::format("; --v4-kernels {}", to_string(w.v4_kernels)) : "");
  }
  out << fmt::format("{:<34} {:>11.1f} GB {:>11.1f} GB\n",
                     fmt::format("HBM per GPU (of {:.1f} GB)",
                                 r.baseline.memory.capacity_bytes / units::kBytesPerGB),
                     r.baseline.memory.total_bytes / units::kBytesPerGB,
                     r.overlapped.memory.total_bytes / units::kBytesPerGB);
  out << fmt::format("{:<34} {:>14} {:>14}\n", "fits in HBM", fit_word(r.baseline.memory),
                     fit_word(r.overlapped.memory));
  if (!r.baseline.fits() || !r.overlapped.fits())
    out << "\n(a side that does not fit has no throughput; its times are what the simulation "
           "gives if the memory existed)\n";
  const bool both_fit = r.baseline.fits() && r.overlapped.fits();
  out << fmt::format(
      "\nspeedup {}   advantage {:.3f} ms   degradation {:.3f} ms   net {:+.3f} ms\n",
      fmt::format("{:.3f}x{}", r.speedup, both_fit ? "" : " (if the memory existed)"),
      r.advantage_us / 1e3, r.degradation_us / 1e3,
      (r.baseline.total_us - r.overlapped.total_us) / 1e3);
  out << fmt::format(
      "\nadvantage {:.3f} ms = communication hidden {:.3f} ms + kernel time run side by side "
      "{:.3f} ms\n",
      r.advantage_us / 1e3, r.comm_hidden_us / 1e3, r.side_by_side_us / 1e3);
  out << "degradation by cause (time alone, overlapped minus baseline):\n";
  for (const auto& d : r.degradation)
    out << fmt::format("  {:<32} {:>+10.3f} ms\n", cause_name(d.cause), d.us / 1e3);
  if (!r.overlapped.note.empty()) out << "\nnote: " << r.overlapped.note << "\n";
  for (const auto& n : r.notes) out << "note: " << n << "\n";
  write_alternatives(out, r);
}

void write_memory_breakdown(std::ostream& out, const WhatIfResult& r) {
  const double gb = units::kBytesPerGB;
  out << fmt::format(
      "\nMemory per GPU as SGLang holds it (GB = 1e9 bytes; {} has {:.1f} GB; "
      "--mem-fraction-static {:.3f} / {:.3f}):\n",
      r.hw, r.baseline.memory.capacity_bytes / gb, r.baseline.memory.fraction,
      r.overlapped.memory.fraction);
  out << fmt::format("  {:<36} {:>12} {:>12}\n", "", r.baseline.strategy, r.overlapped.strategy);
  // Both sides have the same terms in the same order except where a mode differs.
  std::vector<std::string> names;
  for (const auto* s : {&r.baseline, &r.overlapped})
    for (const auto& t : s->memory.terms)
      if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  for (const auto& n : names)
    out << fmt::format("  {:<36} {:>12.3f} {:>12.3f}\n", n, r.baseline.memory.bytes_of(n) / gb,
                       r.overlapped.memory.bytes_of(n) / gb);
  out << fmt::format("  {:<36} {:>12.3f} {:>12.3f}\n", "total", r.baseline.memory.total_bytes / gb,
                     r.overlapped.memory.total_bytes / gb);
  out << fmt::format("  {:<36} {:>12} {:>12}\n", "fits", fit_word(r.baseline.memory),
                     fit_word(r.overlapped.memory));
  for (const auto* s : {&r.baseline, &r.overlapped})
    out << fmt::format("  '{}': {}{}\n", s->strategy, s->memory.limit_sentence(),
                       s->memory.tight ? " - tight (within 5 %)" : "");
  out << "The KV pool and the KV cache of the batch are inside --mem-fraction-static x memory "
         "with the weights; the transients, fragmentation and fixed overheads in the rest.\n";
  out << "How each term of '" << r.overlapped.strategy << "' is computed:\n";
  for (const auto& t : r.overlapped.memory.terms)
    out << fmt::format("  {:<36} {}\n", t.name, t.how);
}

}  // namespace ovs
