#pragma once
// `overlapsim plan`: from a verdict to a deployment. For a model, a GPU, a phase and a number of
// GPUs, every candidate (strategy x batch per GPU x EP size x redundant experts x MTP) is run
// through the what-if; the ones that fit in HBM and run in SGLang's limits give a Pareto frontier
// of tokens/s per GPU against latency (decode: time per output token; prefill: time to first
// token of a prompt), and the best point within the latency target comes with SGLang's flags.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/analysis/request.hpp"
#include "models/graph/workload.hpp"

namespace ovs {

struct PlanRequest {
  std::string model = "deepseek-v3";
  std::string hw = "h800-sxm";
  Phase phase = Phase::decode;
  int gpus = 8;
  int gpus_per_node = 0;  // 0: the hardware profile's NVLink domain
  int gpus_per_host = 0;  // 0: the hardware profile's gpus_per_host (SGLang's --nnodes counts them)
  double target_ms = 0;   // decode: time per output token; prefill: time to first token
  // Decode: KV length of every request; prefill: the prompt length of the TTFT target.
  long long context = 4096;
  // Decode: the requests' KV lengths instead, drawn for each point's batch with `seed`: a
  // distribution, file or list (repeated) of KV lengths, or input/output lengths (each request
  // caught at a random moment of its output; app/analysis/length_spec.hpp). Empty: `context`.
  // Prefill: `isl` instead of one prompt length: each point's batch is prompts drawn from it until
  // they hold its tokens (the last cut to fit), and the TTFT is that of the longest prompt drawn
  // (a prompt longer than the batch: the batch is planned as its chunks, as for that
  // --prompt-len).
  std::string context_lens, isl, osl;
  std::uint64_t seed = 0;
  std::vector<std::string> strategies;   // empty: every shipped strategy of the model's family
  std::vector<long long> tokens;         // batch per GPU (decode: requests); empty: default grid
  std::vector<int> eps;                  // EP sizes; empty: from the GPU count (plan_eps)
  std::vector<int> redundant;            // redundant experts; empty: plan_redundant per EP
  std::string mtp = "auto";              // auto (both where the model gives an acceptance), on, off
  std::optional<double> mtp_acceptance;  // overrides the model config's mtp.acceptance_rate
  double imbalance = 0;  // 0: from the routing statistics per point (rank_spread.hpp)
  std::string placement = "eplb";
  std::string v4_kernels = "fused";  // fused | rocm-2605 | torch-fallback
  int jobs = 0;                      // threads; 0: all cores (resolve_jobs)
  // SGLang's memory flags for every point (--mem-fraction-static, --kv-cache-dtype,
  // --moe-dense-tp-size: auto or 1).
  MemoryWords memory;
  // When no point SGLang runs meets the target: try larger GPU counts (one EP group each, in the
  // steps of plan_eps) and name the smallest that would. Off inside that search.
  bool suggest_gpus = true;
  // Draw the best point's what-if this many times within the files' spreads (whatif
  // --uncertainty) and count the draws that meet the target; 0: not drawn.
  int uncertainty = 0;
};

// One candidate and what the what-if made of it.
struct PlanPoint {
  std::string strategy;
  long long tokens_per_gpu = 0;  // decode: requests per GPU
  int ep = 0;
  int redundant_experts = 0;
  bool mtp = false;
  // Results (when `excluded` is empty).
  // Prefill: the prompt the TTFT is of (the target's --prompt-len, or the longest drawn from --isl
  // for this batch).
  long long ttft_prompt = 0;
  double forward_us = 0;            // one forward pass (one decode step without its MTP draft)
  double step_us = 0;               // decode: forward + MTP draft; prefill: forward x chunks
  double latency_ms = 0;            // decode: time per output token; prefill: time to first token
  double tokens_per_s_per_gpu = 0;  // decode: output tokens; prefill: prompt tokens
  double memory_gb = 0;
  bool fits = false;
  // The memory limit the point breaks, or (when it fits) its nearest one: weights, kv_pool,
  // transient; tight: it fits within 5 % of that limit.
  std::string memory_limited_by;
  bool memory_tight = false;
  // --mem-fraction-static as the memory model used it.
  double mem_fraction_static = 0;

  std::string deepep_mode;  // normal | low_latency, as the strategy ran
  bool cuda_graphs = false;
  bool split = false;       // ran as two micro-batches
  std::string excluded;     // why the point has no result ("does not fit in HBM: ...")
  std::string exclusion;    // its kind: no-fit, sglang-limit, invalid
  bool deployable = false;  // SGLang runs this strategy for this phase
  bool on_frontier = false;
  bool meets_target = false;
};

// Decode: the KV lengths of a point's `requests` from the request's --context-lens or --isl /
// --osl (empty when it gives neither); flag_error on a malformed spec.
std::vector<std::int64_t> plan_context_lens(const PlanRequest& r, long long requests);
// Prefill: the prompts of a point's batch of `tokens` drawn from the request's --isl (the last cut
// to fit); `longest_drawn` gets the longest as drawn. flag_error on a malformed spec.
std::vector<std::int64_t> plan_prompt_lens(const PlanRequest& r, long long tokens,
                                           std::int64_t* longest_drawn);

// SGLang's launch flags for a point (sglang_flags.cpp).
struct SglangLaunch {
  std::vector<std::string> flags;  // "--flag value", in launch order
  std::vector<std::string> env;    // NAME=VALUE
  std::vector<std::string> notes;  // what the flags do not say, and what is unsure
};

struct PlanResult {
  PlanRequest request;
  std::string model, hw, arch, family;
  double hbm_capacity_gb = 0;
  double mtp_acceptance = 0;  // 0: MTP not searched
  std::string mtp_source;     // where the acceptance rate came from
  std::vector<std::string> strategies;
  std::vector<long long> tokens;
  std::vector<int> eps;
  std::vector<PlanPoint> points;  // grid order
  std::vector<size_t> frontier;   // indices into points, by latency
  // The table's two parts: the frontier of the points SGLang runs (it holds `best`), then the
  // points of strategies SGLang does not ship that beat it (on `frontier`, not deployable).
  std::vector<size_t> sglang_frontier;
  std::vector<size_t> beyond_sglang;
  std::vector<std::pair<std::string, std::vector<size_t>>> frontier_by_strategy;
  std::optional<size_t> best;      // the best point SGLang can run within the target
  std::optional<size_t> best_any;  // the best within the target of all, when not `best`
  std::optional<size_t> fastest;   // lowest latency of all that ran (when nothing meets it)
  SglangLaunch launch;             // for `best`
  // No `best`: the smallest GPU count (one EP group of that size) whose best point SGLang runs
  // within the target, and that point; `suggest_limit` is the largest count tried.
  struct Suggestion {
    int gpus = 0;
    PlanPoint point;
  };
  std::optional<Suggestion> suggestion;
  int suggest_limit = 0;
  int simulated = 0, no_fit = 0, sglang_limit = 0, invalid = 0;
  // The points that do not fit by the limit they break: weights, kv_pool, transient.
  std::map<std::string, int> no_fit_by;

  std::vector<std::string> notes;  // assumptions the numbers rest on
  double seconds = 0;
  // With request.uncertainty: the share of draws in which `best` meets the target (its latency
  // scaled by the draw's forward over the point's), and the P10 / P90 of that latency (ms); a
  // best point met in fewer than kRobustShare of the draws is marked. -1: not drawn.
  static constexpr double kRobustShare = 0.8;
  double best_met_share = -1;
  double best_latency_p10_ms = 0, best_latency_p90_ms = 0;
};

PlanResult run_plan(const PlanRequest& r);

// The search grid's defaults (documented in the README): batch sizes per GPU by phase, EP sizes
// that divide the GPUs and step by whole hosts inside an NVLink domain (GB200 NVL72: 4, 8, 12,
// ..., 72), by whole domains beyond it (or all the GPUs when they are fewer than a host),
// redundant experts that let EP divide the physical experts. gpus_per_host 0: the domain.
std::vector<long long> default_plan_tokens(Phase phase);
std::vector<int> plan_eps(int gpus, int gpus_per_node, int gpus_per_host = 0);
// The EP sizes above `gpus` that the suggestion for an infeasible request tries, smallest first:
// whole hosts up to the domain, then whole domains, up to `limit` GPUs.
std::vector<int> larger_eps(int gpus, int gpus_per_node, int gpus_per_host, int limit);
// SGLang's --nnodes for an instance of `ep` GPUs: the hosts it spans (1 when it fits one host).
int sglang_nnodes(int ep, int gpus_per_host);
// The fewest redundant experts >= 0 that make EP divide routed + redundant.
int min_redundant_experts(int routed_experts, int ep);

// Indices of the points not dominated by another (no other has at least the throughput at no
// more latency, one of them strictly better), by latency ascending; of equal points the first.
std::vector<size_t> pareto_frontier(const std::vector<std::pair<double, double>>& latency_tput);

// Outputs (plan_report.cpp, plan_chart.cpp).
void write_plan_table(std::ostream& out, const PlanResult& r);
void write_plan_json(std::ostream& out, const PlanResult& r);
std::string plan_csv(const PlanResult& r);
std::string plan_chart_svg(const PlanResult& r);

}  // namespace ovs
