// overlapsim sweep SPEC.yaml --out results.csv [-j N] [--resume] [--shard i/N] [--report DIR]
// overlapsim merge OUT.csv PART.csv...
// overlapsim report RESULTS.csv --out-dir DIR [--x FIELD] [--y FIELD]
#include <fmt/format.h>
#include <unistd.h>

#include <tuple>

#include "sim/cli/commands.hpp"
#include "sim/cli/flag_checks.hpp"
#include "sim/core/error.hpp"
#include "sim/sweep/report.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace ovs {
namespace {

struct SweepCliOptions {
  std::string spec;
  SweepOptions run;
  std::string shard;
  std::string report_dir;
  std::string x = "tokens_per_gpu";
  std::string y;
  bool quiet = false;
};

int run_sweep_cmd(SweepCliOptions& o, CliContext& ctx) {
  if (!o.shard.empty())
    std::tie(o.run.shard_index, o.run.shard_count) = flags::parse_shard(o.shard);
  if (o.run.jobs <= 0) o.run.jobs = flags::default_jobs();
  o.run.progress = !o.quiet && isatty(2);
  const SweepSpec spec = load_sweep_spec(o.spec);
  const SweepSummary s = run_sweep(spec, o.run, ctx.err);
  ctx.out << fmt::format(
      "{}: {} point(s) x {} strateg{} -> {} ({} computed in {:.2f} s, {:.1f} points/s)\n",
      spec.name, s.points, spec.strategies.size(), spec.strategies.size() == 1 ? "y" : "ies",
      o.run.out, s.computed, s.seconds, s.seconds > 0 ? s.computed / s.seconds : 0.0);
  if (!o.report_dir.empty()) write_report({o.run.out, o.x, o.y, o.report_dir}, ctx.out);
  return 0;
}

}  // namespace

void add_sweep_commands(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<SweepCliOptions>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Map where overlap pays: run a sweep spec (a base what-if, axes over any workload, model or\n"
      "hardware field, strategies against a baseline) and write one CSV row per point and "
      "strategy.\n"
      "Parallel, byte-identical for any -j, resumable, shardable.");
  cmd->add_option("spec", o->spec, "Sweep spec YAML (see strategies/sweeps/)")->required();
  cmd->add_option("--out", o->run.out, "Results CSV")->required();
  cmd->add_option("-j,--jobs", o->run.jobs,
                  fmt::format("Threads, 1 to {} (default: all cores, {} here)", flags::max_jobs(),
                              flags::default_jobs()))
      ->check(flags::whole(1, flags::max_jobs()));
  cmd->add_flag("--resume", o->run.resume, "Continue an interrupted sweep in the same file");
  cmd->add_option("--shard", o->shard,
                  "Run part i of N (i/N; join the parts with overlapsim merge)")
      ->check(flags::shard());
  cmd->add_option("--report", o->report_dir,
                  "Also write the crossover table and charts to this directory");
  cmd->add_option("--x", o->x, "Report: the axis along which crossovers are found")
      ->capture_default_str();
  cmd->add_option("--y", o->y, "Report: second axis for break-even heatmaps");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress line");
  cmd->callback([o, &ctx] { ctx.exit_code = run_sweep_cmd(*o, ctx); });

  auto parts = std::make_shared<std::vector<std::string>>();
  auto merged = std::make_shared<std::string>();
  auto* merge = app.add_subcommand(
      "merge", "Join the CSVs of a sharded sweep (--shard i/N) into one, in point order.");
  merge->add_option("out", *merged, "Merged CSV")->required();
  merge->add_option("parts", *parts, "Shard CSVs")->required();
  merge->callback([parts, merged, &ctx] {
    merge_sweeps(*parts, *merged);
    ctx.out << fmt::format("merged {} part(s) into {}\n", parts->size(), *merged);
  });

  auto r = std::make_shared<ReportOptions>();
  auto* report = app.add_subcommand(
      "report",
      "Crossover table (where each strategy starts to pay) and SVG charts of a sweep's results.");
  report->add_option("results", r->results, "Results CSV of overlapsim sweep")->required();
  report->add_option("--out-dir", r->out_dir, "Directory for crossover.csv and the charts")
      ->required();
  report->add_option("--x", r->x, "Axis along which crossovers are found")->capture_default_str();
  report->add_option("--y", r->y, "Second axis: break-even heatmaps over (x, y)");
  report->callback([r, &ctx] { ctx.exit_code = write_report(*r, ctx.out) >= 0 ? 0 : 1; });
}

}  // namespace ovs
