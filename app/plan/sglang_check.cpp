#include "app/plan/sglang_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/analysis/request.hpp"
#include "app/plan/plan.hpp"
#include "models/config/model_config.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/core/error.hpp"

namespace ovs {

namespace {

// The fastest of SGLang's strategies in `r` (no-overlap when none beats it), among those whose
// both sides fit.
std::pair<std::string, double> fastest(const WhatIfResult& r) {
  std::pair<std::string, double> best{"no-overlap", 1.0};
  for (const auto& a : r.alternatives)
    if (a.both_fit && a.speedup > best.second) best = {a.strategy, a.speedup};
  return best;
}

std::vector<std::string> strategy_flags(const std::string& name, ModelFamily family) {
  if (name == "no-overlap") return {};
  return load_request_strategy(name, family, "strategy").sglang.flags;
}

WhatIfRequest request_at(const SglangCheckRequest& r, const std::string& phase, long long tokens,
                         const std::string& strategy) {
  const SglangDeployment& d = r.deployment;
  const bool decode = phase == "decode";
  WorkloadWords w;
  w.phase = phase;
  w.tokens_per_gpu = tokens;
  w.context = r.context;
  w.ep = d.effective_ep();
  w.redundant_experts = d.redundant_experts;
  w.tbo_token_distribution_threshold = d.tbo_threshold;
  w.cuda_graphs = d.cuda_graph ? "auto" : "off";
  w.deepep_mode = d.deepep_mode;
  w.decode_q_len = decode ? d.decode_q_len() : 1;
  w.memory.mem_fraction_static = d.mem_fraction_static;
  w.memory.kv_cache_dtype = d.kv_cache_dtype == "bfloat16" ? "bf16" : d.kv_cache_dtype;
  if (d.moe_dense_tp_size == 1) w.memory.moe_dense_tp_size = "1";
  WhatIfRequest q;
  q.model = d.model;
  q.hw = r.hw;
  q.workload = resolve_workload(w, RequestSource{});
  q.strategy = strategy;
  q.alternatives = true;
  return q;
}

}  // namespace

std::string strategy_of(const SglangDeployment& d, bool v4, bool decode) {
  if (v4 && decode) {
    // V4's multi-stream plan runs under a captured decode graph (sglang_v4_platforms.md).
    const bool ms = d.multi_stream && d.cuda_graph;
    if (d.tbo) return ms ? "multistream+tbo-decode" : "tbo-decode";
    if (d.sbo) return "sbo";
    return ms ? "multistream" : "no-overlap";
  }
  if (d.tbo) return decode ? "tbo-decode" : "tbo-prefill";
  if (d.sbo) return "sbo";
  return "no-overlap";
}

SglangCheck run_sglang_check(const SglangCheckRequest& r) {
  const SglangDeployment& d = r.deployment;
  if (d.model.empty())
    throw InputError("command line", 0, "--model-path",
                     "the launch command names no model (--model-path or sglang serve MODEL)");
  ModelConfig model;
  try {
    model = load_model_config(d.model);
  } catch (const InputError& e) {
    throw InputError("command line", 0, "--model-path", e.message());
  }
  SglangCheck c;
  c.model = model.name;
  c.phase = !r.phase.empty() ? r.phase : d.disaggregation == "prefill" ? "prefill" : "decode";
  const bool decode = c.phase == "decode";
  c.ep = d.effective_ep();
  // The batch of one GPU: asked, or what the launch allows (per instance over its --tp-size GPUs).
  c.tokens_per_gpu = r.tokens_per_gpu;
  if (c.tokens_per_gpu <= 0 && decode)
    c.tokens_per_gpu = d.cuda_graph_max_bs > 0 ? d.cuda_graph_max_bs
                       : d.max_running_requests > 0
                           ? std::max(1LL, d.max_running_requests / std::max(1, d.tp))
                           : 0;
  // Prefill: one rank's forward (--max-prefill-tokens), else the instance's chunk over its ranks.
  if (c.tokens_per_gpu <= 0 && !decode)
    c.tokens_per_gpu = d.max_prefill_tokens > 0 ? d.max_prefill_tokens
                       : d.chunked_prefill_size > 0
                           ? std::max(1LL, d.chunked_prefill_size / std::max(1, d.dp))
                           : 0;
  if (c.tokens_per_gpu <= 0)
    throw flag_error("--tokens-per-gpu",
                     "the launch gives no batch (--cuda-graph-max-bs, --max-running-requests or "
                     "--chunked-prefill-size): give the batch per GPU to check");
  c.strategy = strategy_of(d, model.family == ModelFamily::v4, decode);

  c.result = run_whatif(request_at(r, c.phase, c.tokens_per_gpu, c.strategy));
  const double current = c.strategy == "no-overlap" ? 1.0 : c.result.speedup;
  const auto [best, best_speedup] = fastest(c.result);
  c.best = best_speedup > current ? best : c.strategy;
  c.gain = (best_speedup > current ? best_speedup : current) / current - 1;
  if (c.best != c.strategy) {
    const auto now = strategy_flags(c.strategy, model.family);
    const auto then = strategy_flags(c.best, model.family);
    for (const auto& f : now)
      if (std::find(then.begin(), then.end(), f) == then.end()) c.drop.push_back(f);
    for (const auto& f : then)
      if (std::find(now.begin(), now.end(), f) == now.end()) c.add.push_back(f);
  }

  // Where the best strategy changes with the batch (the launch's other settings kept).
  for (long long n : default_plan_tokens(decode ? Phase::decode : Phase::prefill)) {
    try {
      const WhatIfResult at = run_whatif(request_at(r, c.phase, n, ""));
      const bool any_fits =
          std::any_of(at.alternatives.begin(), at.alternatives.end(),
                      [](const WhatIfResult::Alternative& a) { return a.both_fit; });
      if (any_fits || at.alternatives.empty()) {
        const auto [name, speedup] = fastest(at);
        c.by_batch.push_back({n, name, speedup, true});
      } else {
        const auto& a = at.alternatives.front();  // fastest first
        c.by_batch.push_back(
            {n, a.speedup > 1 ? a.strategy : "no-overlap", std::max(1.0, a.speedup), false});
      }
    } catch (const InputError&) {
      // A batch the launch cannot run (SGLang's limits at that size): left out of the scan.
    }
  }

  // Limits SGLang or DeepEP enforce that the launch breaks at this batch.
  const HwProfile hw = load_hw_profile(r.hw);
  const long long per_rank =
      (c.result.split ? (c.tokens_per_gpu + 1) / 2 : c.tokens_per_gpu) * d.decode_q_len();
  const long long ll_max =
      d.deepep_ll_max_tokens > 0 ? d.deepep_ll_max_tokens : hw.memory.deepep_ll_max_tokens_per_rank;
  if (decode && per_rank > ll_max)
    c.limits.push_back(fmt::format(
        "DeepEP low-latency buffer: {} tokens per rank per dispatch > "
        "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK={} (DeepEP asserts; set it to at least {}, "
        "at most 1024)",
        per_rank, ll_max, per_rank));
  if (decode && d.cuda_graph && d.cuda_graph_max_bs > 0 && c.tokens_per_gpu > d.cuda_graph_max_bs)
    c.limits.push_back(
        fmt::format("--cuda-graph-max-bs {} < {} requests per GPU: larger batches "
                    "run without CUDA graphs (eager launches)",
                    d.cuda_graph_max_bs, c.tokens_per_gpu));
  if (d.dp_attention && d.tp % d.dp != 0)
    c.limits.push_back(
        fmt::format("--tp-size {} is not a multiple of --dp-size {} (SGLang asserts)", d.tp, d.dp));
  const int experts = model.routed_experts + d.redundant_experts;
  if (c.ep > 1 && experts % c.ep != 0)
    c.limits.push_back(
        fmt::format("{} physical experts do not divide over --ep-size {} (SGLang "
                    "asserts; --ep-num-redundant-experts to make them)",
                    experts, c.ep));
  if ((d.tp % d.nnodes) != 0)
    c.limits.push_back(fmt::format("--tp-size {} is not a multiple of --nnodes {} (SGLang asserts)",
                                   d.tp, d.nnodes));
  // Version-dependent: the newest SGLang refuses SBO on Hopper (sglang_flags_memory.md A.2).
  if ((c.strategy == "sbo" || c.best == "sbo") && hw.arch == "hopper")
    c.limits.push_back(
        "--enable-single-batch-overlap: SGLang's newest layers/moe/utils.py raises on SM90 (\"not "
        "supported on SM90 with latest sgl-deep-gemm wheel\"); older releases ran it - check your "
        "version before taking the SBO advice on this GPU");
  if (!c.result.overlapped.fits())
    c.limits.push_back(
        "the launch's strategy does not fit in memory at this batch (see whatif "
        "--explain for the memory)");
  return c;
}

}  // namespace ovs
