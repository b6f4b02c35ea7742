// overlapsim import-trace TRACE.json [--json] [--program OUT.yaml] [--hw NAME]
#include <fmt/format.h>

#include <limits>
#include <memory>
#include <optional>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "calibrate/import/trace_analysis.hpp"
#include "calibrate/import/trace_export.hpp"
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
};

int import_trace(const ImportOptions& o, CliContext& ctx) {
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
      "(layers). --program exports the kernels as an `overlapsim run` program.");
  cmd->add_option("trace", opts->trace, "Trace JSON file (Kineto / Chrome trace format)")
      ->required();
  cmd->add_flag(
      "--json", opts->json,
      "Print one JSON object (streams, overlap, launch, families, segments; times in us)");
  cmd->add_option("--program", opts->program,
                  "Also write the measured kernels as an `overlapsim run` program (YAML)");
  cmd->add_option("--hw", opts->hw,
                  "Hardware profile named in the exported program (name in hw_profiles/ or path); "
                  "its SM count caps each kernel's SMs")
      ->capture_default_str();
  cmd->add_option("--max-host-gap-us", opts->max_host_gap_us,
                  "Longest host gap between two launches kept in the exported program")
      ->capture_default_str()
      ->check(flags::real(0, std::numeric_limits<double>::infinity()));
  cmd->callback([opts, &ctx] { ctx.exit_code = import_trace(*opts, ctx); });
}

}  // namespace ovs
