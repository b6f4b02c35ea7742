// overlapsim whatif --model M --hw H --phase P --tokens-per-gpu N --context C --ep E --strategy S
#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <memory>

#include "app/analysis/explain.hpp"
#include "app/analysis/layer_export.hpp"
#include "app/analysis/whatif.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/cli/memory_flags.hpp"
#include "app/cli/trace_file.hpp"
#include "app/cli/v4_kernels_flag.hpp"
#include "sim/core/caches.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/fast_forward.hpp"

namespace ovs {
namespace {

struct WhatIfOptions {
  std::string model = "deepseek-v3";
  std::string hw = "h800-sxm";
  WorkloadWords workload;
  std::string strategy;
  std::string baseline = "no-overlap";
  bool json = false;
  bool explain = false;
  std::string trace;
  bool no_cache = false;
  bool no_fast_forward = false;
  bool no_alternatives = false;
  std::string export_layers;  // path prefix
  LayerExportRequest export_request;
};

// The what-if's point as given (CLI11's record of the options set, flags without a value),
// without the strategy (each exported plan names its own) and the export's own options.
std::string point_flags(const CLI::App& cmd) {
  std::string out;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    const std::string& name = opt->get_lnames().front();
    if (name == "help" || name == "strategy" || name.rfind("export-", 0) == 0) continue;
    out += (out.empty() ? "--" : " --") + name;
    if (opt->get_expected_max() != 0)
      for (const std::string& v : opt->results()) out += " " + v;
  }
  return out;
}

void write_layer_exports(const WhatIfOptions& o, const WhatIfRequest& r,
                         const std::string& strategy, CliContext& ctx) {
  for (const LayerExport& e : export_whatif_layers(r, strategy, o.export_request)) {
    const std::string stem = o.export_layers + "-" + e.plan.strategy;
    {
      std::ofstream yaml(stem + ".yaml");
      if (!yaml) throw flag_error("--export-layers", "cannot write '" + stem + ".yaml'");
      write_program_yaml(yaml, e.program, o.hw,
                         fmt::format("layers {}..{} of `overlapsim whatif {}` ('{}'), exported for "
                                     "the layer benchmark: `overlapsim run` predicts it",
                                     e.plan.first_layer, e.plan.first_layer + e.plan.layers - 1,
                                     e.plan.point, e.plan.strategy));
    }
    std::ofstream plan(stem + ".plan");
    if (!plan) throw flag_error("--export-layers", "cannot write '" + stem + ".plan'");
    bench_plan::write(plan, e.plan);
    ctx.err << fmt::format(
        "wrote {0}.yaml and {0}.plan: {1} kernels of layers {2}..{3}, {4:.3f} "
        "ms predicted ({5:.3f} ms per layer)\n",
        stem, e.plan.kernels.size(), e.plan.first_layer, e.plan.first_layer + e.plan.layers - 1,
        e.window_us / 1000, e.window_us / 1000 / e.plan.layers);
  }
}

int run(const WhatIfOptions& o, CliContext& ctx) {
  WhatIfRequest r;
  r.model = o.model;
  r.hw = o.hw;
  r.strategy = o.strategy;
  r.baseline = o.baseline;
  r.alternatives = !o.no_alternatives;
  r.workload = resolve_workload(o.workload, RequestSource{});
  std::unique_ptr<TraceFile> trace;
  if (!o.trace.empty()) trace = std::make_unique<TraceFile>(o.trace);
  if (o.explain) {
    const Explanation e = explain(r, trace.get());
    if (trace) trace->commit();
    if (o.json)
      write_explanation_json(ctx.out, e);
    else
      write_explanation(ctx.out, e);
    return 0;
  }
  const WhatIfResult res = run_whatif(r, trace.get());
  if (trace) trace->commit();
  if (!o.export_layers.empty())
    write_layer_exports(o, r, o.strategy.empty() ? res.overlapped.strategy : o.strategy, ctx);
  if (o.json)
    write_whatif_json(ctx.out, res);
  else
    write_whatif_table(ctx.out, res);
  return 0;
}

}  // namespace

void add_whatif_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<WhatIfOptions>();
  auto* cmd = app.add_subcommand(
      "whatif",
      "Does overlap pay? One forward pass of a model on a GPU with a strategy against the "
      "baseline,\n"
      "the verdict in one sentence, and why: communication hidden (advantage) against what "
      "splitting\n"
      "the batch costs (degradation: tile waste, weight re-reads, launches, ...).");
  cmd->add_option("--model", o->model,
                  "Model: deepseek-v3, deepseek-v4-flash, deepseek-v4-pro, or a YAML path")
      ->capture_default_str();
  cmd->add_option("--hw", o->hw,
                  "Hardware profile: h100-sxm, h800-sxm, h200-sxm, h20, b200, gb200, mi355x (or an "
                  "alias such as GB200), or a YAML path")
      ->capture_default_str();
  cmd->add_option("--phase", o->workload.phase, "prefill or decode")
      ->check(flags::one_of({"prefill", "decode"}))
      ->capture_default_str();
  cmd->add_option("--tokens-per-gpu", o->workload.tokens_per_gpu,
                  "Prefill: tokens per GPU; decode: requests per GPU (required unless "
                  "--prompt-lens / --context-lens give the batch)")
      ->check(flags::whole_count(1));
  cmd->add_option("--context", o->workload.context,
                  "Prefill: prompt length; decode: KV length (required unless the lengths are "
                  "given per request)")
      ->check(flags::whole_count(1));
  cmd->add_option("--prompt-lens", o->workload.prompt_lens,
                  "Prefill: each prompt's length on this GPU, comma-separated (e.g. 4095,4096,1), "
                  "file:PATH, or a distribution as --isl; sets --tokens-per-gpu (their sum) and "
                  "--context (the longest)");
  cmd->add_option("--context-lens", o->workload.context_lens,
                  "Decode: each request's KV length, comma-separated, file:PATH, or a distribution "
                  "as --isl (--tokens-per-gpu requests); sets --tokens-per-gpu (their count) and "
                  "--context (the longest)");
  cmd->add_option("--isl", o->workload.isl,
                  "Input length per request: N, uniform:A,B, normal:MEAN,SD, lognormal:MEAN,SD "
                  "or file:PATH (CSV/JSON of lengths to draw from). Prefill: prompts drawn until "
                  "they hold --tokens-per-gpu tokens; decode: --tokens-per-gpu requests");
  cmd->add_option("--osl", o->workload.osl,
                  "Decode: output length per request, as --isl; each request's context is its "
                  "input plus a uniform share of its output (caught at a random moment)");
  cmd->add_option("--seed", o->workload.seed,
                  "Seed of the length draws (--isl, --osl, distributions in --prompt-lens / "
                  "--context-lens): the same seed, the same batch")
      ->capture_default_str();
  cmd->add_option("--tbo-token-distribution-threshold",
                  o->workload.tbo_token_distribution_threshold,
                  "SGLang's: a prefill batch whose best sequence boundary leaves less than this "
                  "share of the tokens on one side is cut at half its tokens, inside a sequence")
      ->check(flags::real(0, 0.5))
      ->capture_default_str();
  cmd->add_option("--ep,--ep-size,--expert-parallel-size", o->workload.ep,
                  "Expert-parallel size (GPUs)")
      ->required()
      ->check(flags::whole_int(1));
  cmd->add_option("--gpus-per-node", o->workload.gpus_per_node,
                  "GPUs per NVLink domain (default: the profile's nvlink_domain_gpus, 8 on HGX "
                  "boards, 72 on GB200 NVL72); EP beyond it crosses RDMA")
      ->check(flags::whole_int(1));
  cmd->add_option("--redundant-experts", o->workload.redundant_experts,
                  "Extra physical expert copies (SGLang --ep-num-redundant-experts); EP must "
                  "divide routed + redundant")
      ->capture_default_str()
      ->check(flags::whole_int(0));
  cmd->add_option("--imbalance", o->workload.imbalance,
                  "Hottest rank's expert load over the mean: auto (from the routing statistics, "
                  "the EP size and --placement) or a number >= 1")
      ->capture_default_str()
      ->check(flags::auto_or_real(1, std::numeric_limits<double>::infinity()));
  cmd->add_option("--placement", o->workload.placement,
                  "Expert placement: eplb (SGLang's EPLB placement, its default) or balanced (a "
                  "perfect placement, SGLang's simulated perfect EPLB)")
      ->check(flags::one_of({"eplb", "balanced"}))
      ->capture_default_str();
  cmd->add_option("--attention-backend", o->workload.attention_backend,
                  "SGLang's MLA attention backend: fa3, flashmla, flashinfer, triton (those the "
                  "GPU's profile lists), or auto (what SGLang picks for the phase on the GPU)")
      ->capture_default_str();
  add_v4_kernels_flag(cmd, o->workload.v4_kernels);
  cmd->add_option("--cuda-graphs", o->workload.cuda_graphs, "on, off, or auto (on for decode)")
      ->check(flags::one_of({"on", "off", "auto"}))
      ->capture_default_str();
  cmd->add_option("--deepep-mode", o->workload.deepep_mode,
                  "normal, low_latency, or auto (normal for prefill)")
      ->check(flags::one_of({"normal", "low_latency", "auto"}))
      ->capture_default_str();
  cmd->add_option("--decode-q-len", o->workload.decode_q_len,
                  "Query tokens per request per decode step (2 with MTP)")
      ->check(flags::whole_int(1));
  add_memory_flags(cmd, o->workload.memory);
  cmd->add_option("--strategy", o->strategy,
                  "Strategy name in strategies/<model family>/ or a YAML path (default: the best "
                  "of the strategies SGLang runs for the phase at this point)");
  cmd->add_option("--baseline", o->baseline, "Strategy to compare against")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->add_flag("--no-alternatives", o->no_alternatives,
                "With --strategy: do not also run SGLang's other strategies for the phase "
                "(faster)");
  cmd->add_flag("--explain", o->explain,
                "Also explain: the critical path by op, communication exposed per op, resource use "
                "per stage");
  cmd->add_option("--trace", o->trace, "Write both runs to a Perfetto trace");
  cmd->add_option("--export-layers", o->export_layers,
                  "Write a few layers of both runs for the layer benchmark (calibrate/bench): "
                  "PREFIX-<strategy>.yaml (an engine program; `overlapsim run` predicts it) and "
                  "PREFIX-<strategy>.plan (what the GPU runs)");
  cmd->add_option("--export-first-layer", o->export_request.first_layer,
                  "First layer exported (default: the middle MoE layer)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--export-layer-count", o->export_request.layers, "Layers exported")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_flag("--no-cache", o->no_cache,
                "Compute every kernel cost, layer plan and run afresh (same results, slower)");
  cmd->add_flag("--no-fast-forward", o->no_fast_forward,
                "Simulate every period of identical layers step by step (same results, slower)");
  cmd->callback([o, cmd, &ctx] {
    o->export_request.point = point_flags(*cmd);
    o->export_request.hardware = o->hw;
    const CachesOff off(o->no_cache);
    const FastForwardOff no_ff(o->no_fast_forward);
    ctx.exit_code = run(*o, ctx);
  });
}

}  // namespace ovs
