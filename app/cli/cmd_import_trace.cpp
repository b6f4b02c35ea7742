// overlapsim import-trace TRACE.json [--json] [--program OUT.yaml] [--hw NAME]
//   [--whatif STRATEGY <the point's flags> [--trace OUT.json]]
#include <fmt/format.h>

#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/cli/point_flags.hpp"
#include "app/cli/trace_file.hpp"
#include "calibrate/import/trace_analysis.hpp"
#include "calibrate/import/trace_export.hpp"
#include "calibrate/import/trace_whatif.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

struct ImportOptions {
  std::string trace;
  bool json = false;
  std::string program;
  std::string hw = "h800-sxm";
  double max_host_gap_us = 100;
  bool max_host_gap_given = false;
  // --whatif: the strategy, the point (as whatif takes it) and where the trace goes.
  std::string whatif;
  std::string baseline = "no-overlap";
  std::string model = "deepseek-v3";
  WorkloadWords workload;
  long long device = -1;
  int forwards = 1;
  double max_overlap = 0.25;
  std::string trace_out;
};

int trace_whatif(const ImportOptions& o, CliContext& ctx) {
  if (o.workload.ep <= 0) throw flag_error("--ep", "--whatif needs the trace's EP size");
  trace::TraceWhatIfRequest r;
  r.point.model = o.model;
  r.point.hw = o.hw;
  r.point.strategy = o.whatif;
  r.point.baseline = o.baseline;
  r.point.workload = resolve_workload(o.workload, RequestSource{});
  r.device = o.device;
  r.forwards = o.forwards;
  r.max_overlap = o.max_overlap;
  std::unique_ptr<TraceFile> out_trace;
  if (!o.trace_out.empty()) out_trace = std::make_unique<TraceFile>(o.trace_out);
  r.watch = out_trace.get();
  const trace::TraceWhatIfResult res = trace::trace_whatif(trace::read_kineto_trace(o.trace), r);
  if (out_trace) out_trace->commit();
  if (o.json)
    trace::write_trace_whatif_json(ctx.out, res);
  else
    trace::write_trace_whatif_table(ctx.out, res);
  return 0;
}

int import_trace(const ImportOptions& o, CliContext& ctx) {
  if (!o.whatif.empty()) {
    if (!o.program.empty()) throw flag_error("--program", "goes without --whatif");
    if (o.max_host_gap_given) throw flag_error("--max-host-gap-us", "goes with --program");
    return trace_whatif(o, ctx);
  }
  // Resolve the profile before the (possibly long) read, so that a bad --hw fails at once.
  std::optional<HwProfile> hw;
  if (!o.program.empty()) {
    std::string path;
    try {
      path = resolve_data_file(o.hw, "hw_profiles", "hardware profile");
    } catch (const NameError& e) {
      throw flag_error("--hw", e.what());
    }
    hw = load_hw_profile(path);
  }
  const trace::TraceAnalysis analysis = trace::analyze_trace(trace::read_kineto_trace(o.trace));
  std::optional<trace::ExportSummary> exported;
  if (hw) {
    const trace::ExportOptions options{o.hw, hw->engine.sm_count, o.max_host_gap_us};
    const trace::ExportedProgram program = trace::export_program(analysis, options);
    AtomicFile file(o.program);
    trace::write_program_yaml(file.stream(), analysis, program, options);
    file.commit();
    exported = program.summary;
  }
  if (o.json) {
    auto j = trace::trace_json(analysis);
    if (exported)
      j["program"] = {{"path", o.program},
                      {"hardware", hw->name},
                      {"launches", exported->launches},
                      {"max_host_gap_us", o.max_host_gap_us},
                      {"capped_gaps", exported->capped_gaps},
                      {"unlinked_launches", exported->unlinked},
                      {"host_us", exported->host_us},
                      {"measured_span_us", exported->measured_span_us}};
    ctx.out << j.dump(2) << "\n";
  } else {
    trace::write_trace_table(ctx.out, analysis);
    if (exported)
      ctx.out << fmt::format(
          "\nprogram    {}: {} launches on {} ({} SMs), host gaps capped at {} us ({} capped); "
          "run it with `overlapsim run {}`\n",
          o.program, exported->launches, hw->name, hw->engine.sm_count, o.max_host_gap_us,
          exported->capped_gaps, o.program);
  }
  return 0;
}

}  // namespace

void add_import_trace_command(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<ImportOptions>();
  auto* cmd = app.add_subcommand(
      "import-trace",
      "Read a PyTorch-profiler (Kineto) Chrome-trace JSON file, streaming, and report kernels per\n"
      "stream (busy time, grids; the compute and the communication stream), the time streams\n"
      "overlap, launch gaps and host launch cost, kernel families and repeating segments\n"
      "(layers). --program exports the kernels as an `overlapsim run` program; --whatif STRATEGY\n"
      "re-plans a no-overlap trace into a strategy with its measured kernel times (the point's\n"
      "flags as whatif takes them).");
  cmd->add_option("trace", opts->trace, "Trace JSON file (Kineto / Chrome trace format)")
      ->required();
  cmd->add_flag(
      "--json", opts->json,
      "Print one JSON object (streams, overlap, launch, families, segments; times in us)");
  cmd->add_option("--program", opts->program,
                  "Also write the measured kernels as an `overlapsim run` program (YAML)");
  cmd->add_option("--max-host-gap-us", opts->max_host_gap_us,
                  "Longest host gap between two launches kept in the exported program")
      ->capture_default_str()
      ->check(flags::real(0, std::numeric_limits<double>::infinity()));
  // The point's flags are whatif's (--hw also names the exported program's GPU).
  const size_t before = cmd->get_options().size();
  add_point_flags(cmd, opts->model, opts->hw, opts->workload, /*ep_required=*/false);
  std::vector<const CLI::Option*> point;
  for (size_t i = before; i < cmd->get_options().size(); ++i)
    point.push_back(cmd->get_options()[i]);
  cmd->add_option("--whatif", opts->whatif,
                  "Re-plan the trace's no-overlap forward into this strategy (a name in "
                  "strategies/<model family>/ or a YAML path): each measured kernel keeps its "
                  "time where the strategy keeps its shape and is rescaled by the model where "
                  "splitting changes it; takes the point's flags as whatif does (--model, --hw, "
                  "--phase, --tokens-per-gpu, --context, --ep, ...)");
  point.push_back(
      cmd->add_option("--baseline", opts->baseline, "With --whatif: the strategy the trace ran")
          ->capture_default_str());
  point.push_back(
      cmd->add_option(
             "--device", opts->device,
             "With --whatif: the trace's GPU (its pid; default: the first GPU in the trace)")
          ->check(flags::whole_int(0)));
  point.push_back(
      cmd->add_option("--forwards", opts->forwards,
                      "With --whatif: forwards the trace holds (every kernel name that many "
                      "times as often; each kernel's or family's time is divided by it)")
          ->capture_default_str()
          ->check(flags::whole_int(1)));
  point.push_back(
      cmd->add_option("--max-overlap", opts->max_overlap,
                      "With --whatif: refuse a trace whose communication runs beside compute for "
                      "more than this share of its time (it is not a no-overlap forward)")
          ->capture_default_str()
          ->check(flags::real(0, 1)));
  point.push_back(cmd->add_option("--trace", opts->trace_out,
                                  "With --whatif: write both anchored forwards to a Perfetto "
                                  "trace (pid 1: the baseline, 2: the strategy)"));
  cmd->callback([opts, cmd, point, &ctx] {
    if (opts->whatif.empty())
      for (const CLI::Option* o : point)
        if (o->count() > 0 && o->get_lnames().front() != "hw")
          throw flag_error("--" + o->get_lnames().front(), "goes with --whatif");
    opts->max_host_gap_given = cmd->count("--max-host-gap-us") > 0;
    ctx.exit_code = import_trace(*opts, ctx);
  });
}

}  // namespace ovs
