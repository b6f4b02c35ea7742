// overlapsim whatif --model M --hw H --phase P --tokens-per-gpu N --context C --ep E --strategy S
#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <memory>

#include "app/analysis/explain.hpp"
#include "app/analysis/layer_export.hpp"
#include "app/analysis/uncertainty.hpp"
#include "app/analysis/whatif.hpp"
#include "app/analysis/whatif_json.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/cli/point_flags.hpp"
#include "app/cli/trace_file.hpp"
#include "app/sweep/threads.hpp"
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
  int uncertainty_draws = 0;  // 0: no --uncertainty
  std::uint64_t uncertainty_seed = 1;
  int jobs = 0;
  std::string chart;  // SVG tornado path
};

// The what-if's point as given (CLI11's record of the options set, flags without a value),
// without the strategy (each exported plan names its own) and the export's own options.
std::string point_flags(const CLI::App& cmd) {
  std::string out;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    const std::string& name = opt->get_lnames().front();
    if (name == "help" || name == "strategy" || name.rfind("export-", 0) == 0 ||
        name.rfind("uncertainty", 0) == 0 || name == "jobs" || name == "chart")
      continue;
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
  if (o.uncertainty_draws == 0) {
    if (o.json)
      write_whatif_json(ctx.out, res);
    else
      write_whatif_table(ctx.out, res);
    return 0;
  }
  UncertaintyRequest ur;
  ur.what = r;
  ur.what.strategy = o.strategy.empty() ? res.overlapped.strategy : o.strategy;
  ur.draws = o.uncertainty_draws;
  ur.seed = o.uncertainty_seed;
  ur.threads = resolve_jobs(o.jobs);
  const UncertaintyResult u = run_uncertainty(ur);
  constexpr int kTop = 5;
  if (!o.chart.empty()) {
    std::ofstream svg(o.chart);
    if (!svg) throw flag_error("--chart", "cannot write '" + o.chart + "'");
    svg << tornado_svg(u, kTop);
  }
  if (o.json) {
    auto j = whatif_json(res);
    add_uncertainty_json(j, u, kTop);
    ctx.out << j.dump(2) << "\n";
  } else {
    write_whatif_table(ctx.out, res);
    write_uncertainty_table(ctx.out, u, kTop);
  }
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
  add_point_flags(cmd, o->model, o->hw, o->workload, /*ep_required=*/true);
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
  auto* uncertainty =
      cmd->add_option("--uncertainty",
                      "Run the what-if N times (default 64) with the profile's and the model's "
                      "uncertain numbers drawn jointly within their stated spreads: P10/P50/P90 "
                      "of the speedup and latencies, the probability that it pays, and the five "
                      "numbers that decide it with how to measure each")
          ->expected(0, 1)
          ->type_name("[N]");
  cmd->add_option("--uncertainty-seed", o->uncertainty_seed,
                  "Seed of the --uncertainty draws (the same seed gives the same bytes)")
      ->capture_default_str();
  cmd->add_option("-j,--jobs", o->jobs, "Threads for --uncertainty (default: all cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--chart", o->chart, "With --uncertainty: write the tornado chart (SVG)");
  cmd->add_flag("--no-cache", o->no_cache,
                "Compute every kernel cost, layer plan and run afresh (same results, slower)");
  cmd->add_flag("--no-fast-forward", o->no_fast_forward,
                "Simulate every period of identical layers step by step (same results, slower)");
  cmd->callback([o, cmd, uncertainty, &ctx] {
    o->uncertainty_draws = flags::optional_count(*uncertainty, 64);
    if (o->uncertainty_draws > 0 && o->explain)
      throw flag_error("--uncertainty", "does not go with --explain");
    // The draws' own options mean nothing without the draws.
    if (o->uncertainty_draws == 0)
      for (const char* flag : {"--uncertainty-seed", "--jobs", "--chart"})
        if (cmd->get_option(flag)->count() > 0)
          throw flag_error(flag == std::string("--jobs") ? "-j/--jobs" : flag,
                           "goes with --uncertainty");
    o->export_request.point = point_flags(*cmd);
    o->export_request.hardware = o->hw;
    const CachesOff off(o->no_cache);
    const FastForwardOff no_ff(o->no_fast_forward);
    ctx.exit_code = run(*o, ctx);
  });
}

}  // namespace ovs
