// overlapsim sweep SPEC.yaml --out results.csv [-j N] [--resume] [--shard i/N] [--report DIR]
//                  [--uncertainty [N]]
// overlapsim merge OUT.csv PART.csv...
// overlapsim report RESULTS.csv --out-dir DIR [--x FIELD] [--y FIELD]
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include <tuple>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/sweep/merge.hpp"
#include "app/sweep/report.hpp"
#include "app/sweep/sweep_runner.hpp"
#include "app/sweep/threads.hpp"
#include "sim/core/caches.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/fast_forward.hpp"

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
  bool json = false;
  bool no_cache = false;
  bool no_fast_forward = false;
  int uncertainty = -1;  // --uncertainty [N]: the spec's `uncertainty` (-1: as the spec says)
};

int run_sweep_cmd(SweepCliOptions& o, CliContext& ctx) {
  if (!o.shard.empty())
    std::tie(o.run.shard_index, o.run.shard_count) = flags::parse_shard(o.shard);
  o.run.progress = !o.quiet && isatty(2);
  SweepSpec spec = load_sweep_spec(o.spec);
  if (o.uncertainty > 0) spec.uncertainty = o.uncertainty;
  if (!o.report_dir.empty()) check_report_axes(spec, o.x, o.y);
  const SweepSummary s = run_sweep(spec, o.run, ctx.err);
  if (s.interrupted_by) {
    ctx.err << fmt::format(
        "\n{}: stopped by {}: {} of {} point(s) are complete in {}; continue with:\n"
        "  overlapsim sweep {} --out {}{} --resume\n",
        spec.name, s.interrupted_by == SIGINT ? "SIGINT" : "SIGTERM", s.written, s.points,
        o.run.out, o.spec, o.run.out, o.shard.empty() ? "" : " --shard " + o.shard);
    return 128 + s.interrupted_by;
  }
  if (o.json) {
    nlohmann::ordered_json j{
        {"sweep", spec.name}, {"points", s.points},     {"strategies", spec.strategies},
        {"out", o.run.out},   {"computed", s.computed}, {"resumed", s.points - s.computed}};
    if (!o.shard.empty()) j["shard"] = o.shard;
    if (!o.report_dir.empty())
      j["report"] = report_json(write_report({o.run.out, o.x, o.y, o.report_dir}));
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << fmt::format(
      "{}: {} point(s) x {} strateg{} -> {} ({} computed in {:.2f} s, {:.1f} points/s)\n",
      spec.name, s.points, spec.strategies.size(), spec.strategies.size() == 1 ? "y" : "ies",
      o.run.out, s.computed, s.seconds, s.seconds > 0 ? s.computed / s.seconds : 0.0);
  if (!o.report_dir.empty())
    print_report(ctx.out, write_report({o.run.out, o.x, o.y, o.report_dir}), o.report_dir);
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
                              all_cores()))
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
  cmd->add_flag("--json", o->json, "Print the summary (and the report's) as one JSON object");
  cmd->add_flag("--no-cache", o->no_cache,
                "Compute every kernel cost, layer plan and run afresh (same bytes, slower)");
  cmd->add_flag("--no-fast-forward", o->no_fast_forward,
                "Simulate every period of identical layers step by step (same results, slower)");
  auto* uncertainty =
      cmd->add_option("--uncertainty",
                      "Draw each point's what-ifs N times (default 64) within the files' spreads "
                      "and add speedup_p10/_p50/_p90 and p_pays columns (the spec's "
                      "'uncertainty: N', which this overrides)")
          ->expected(0, 1)
          ->type_name("[N]");
  cmd->callback([o, uncertainty, &ctx] {
    const CachesOff off(o->no_cache);
    const FastForwardOff no_ff(o->no_fast_forward);
    if (const int n = flags::optional_count(*uncertainty, 64); n > 0) o->uncertainty = n;
    ctx.exit_code = run_sweep_cmd(*o, ctx);
  });

  auto m = std::make_shared<MergeOptions>();
  auto* merge = app.add_subcommand(
      "merge",
      "Join the CSVs of a sharded sweep (--shard i/N) into the file an unsharded run writes.\n"
      "Refuses parts of another sweep, version or input file, a shard given twice or missing,\n"
      "a cut last row and a row count that does not match the shard's points.");
  merge->add_option("out", m->out, "Merged CSV")->required();
  merge->add_option("parts", m->parts, "Shard CSVs")->required();
  merge->add_flag("--allow-partial", m->allow_partial,
                  "Merge the shards given even if some are missing (and say which)");
  auto merge_json = std::make_shared<bool>(false);
  merge->add_flag("--json", *merge_json, "Print the summary as one JSON object");
  merge->callback([m, merge_json, &ctx] {
    const MergeSummary s = merge_sweeps(*m);
    if (*merge_json) {
      nlohmann::ordered_json missing = nlohmann::ordered_json::array();
      for (int i : s.missing) missing.push_back(fmt::format("{}/{}", i, s.shard_count));
      ctx.out << nlohmann::ordered_json{{"out", m->out},
                                        {"shards_given", s.given.size()},
                                        {"shard_count", s.shard_count},
                                        {"points", s.points},
                                        {"total_points", s.total_points},
                                        {"missing_shards", missing}}
                     .dump(2)
              << "\n";
      return;
    }
    if (s.missing.empty()) {
      ctx.out << fmt::format("merged {} shard(s) into {} ({} points)\n", s.given.size(), m->out,
                             s.points);
      return;
    }
    std::string missing;
    for (int i : s.missing)
      missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, s.shard_count);
    ctx.out << fmt::format(
        "merged {} of {} shards into {} ({} of {} points); missing: shard(s) {} ({} points): "
        "run them with overlapsim sweep SPEC --shard i/N and merge again\n",
        s.given.size(), s.shard_count, m->out, s.points, s.total_points, missing,
        s.total_points - s.points);
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
  auto report_json_flag = std::make_shared<bool>(false);
  report->add_flag("--json", *report_json_flag,
                   "Print the crossovers and the files written as one JSON object");
  report->callback([r, report_json_flag, &ctx] {
    const ReportSummary s = write_report(*r);
    if (*report_json_flag)
      print_report_json(ctx.out, s);
    else
      print_report(ctx.out, s, r->out_dir);
  });
}

}  // namespace ovs
