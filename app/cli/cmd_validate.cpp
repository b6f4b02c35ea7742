// overlapsim validate DATA.csv --hw H [--json] [--all-versions]
// overlapsim validate TRACE.json --hw H [--json] [--program OUT.yaml]
// overlapsim validate BENCH_DIR --hw H
// overlapsim validate LAYER_RUN_DIR         (the layer benchmark's layer.csv with its plans)
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "app/analysis/breakdown_validation.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "calibrate/fit/band_coverage.hpp"
#include "calibrate/fit/bench_rows.hpp"
#include "calibrate/fit/bench_validation.hpp"
#include "calibrate/fit/layer_validation.hpp"
#include "calibrate/fit/trace_validation.hpp"
#include "calibrate/fit/validation.hpp"
#include "calibrate/import/kineto_reader.hpp"
#include "calibrate/import/trace_export.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

struct ValidateOptions {
  std::string data;
  std::string hw = "h800-sxm";
  bool json = false;
  bool all_versions = false;
  std::string program;  // traces: where to write the replayed program
  int uncertainty = 0;  // kernel tables: draws for the P10-P90 band coverage (0: none)
};

// A Kineto / Chrome trace: a .json file, or a file whose first non-blank byte opens a JSON
// object or array (a CSV starts with a header or a '#' line).
bool is_trace(const std::string& path) {
  std::string ext = path.size() >= 5 ? path.substr(path.size() - 5) : "";
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return true;
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{' || c == '[';
  return false;
}

int run_validate_trace(const ValidateOptions& o, CliContext& ctx) {
  // Resolve the profile before the (possibly long) read, so that a bad --hw fails at once.
  try {
    resolve_data_file(o.hw, "hw_profiles", "hardware profile");
  } catch (const NameError& e) {
    throw flag_error("--hw", e.what());
  }
  const HwProfile hw = load_hw_profile(o.hw);
  const trace::TraceAnalysis a = trace::analyze_trace(trace::read_kineto_trace(o.data));
  const TraceValidation v = validate_trace(a, hw);
  if (!o.program.empty()) {
    const trace::ExportOptions options{o.hw, hw.engine.sm_count};
    AtomicFile file(o.program);
    trace::write_program_yaml(file.stream(), a, trace::export_program(a, options), options);
    file.commit();
  }
  if (o.json)
    ctx.out << trace_validation_json(v).dump(2) << "\n";
  else
    write_trace_validation(ctx.out, v);
  return 0;
}

int run_validate_bench(const ValidateOptions& o, CliContext& ctx) {
  if (has_layer_runs(o.data)) {
    if (o.uncertainty > 0)
      throw flag_error("--uncertainty",
                       "bands kernel tables, microbenchmark folders and layer "
                       "breakdowns, not the layer benchmark's runs");
    // The layer benchmark's folder: each program names its own GPU profile (--hw does not apply).
    const LayerValidation v = validate_layer_runs(o.data);
    if (o.json)
      ctx.out << layer_validation_json(v).dump(2) << "\n";
    else
      write_layer_validation(ctx.out, v);
    return 0;
  }
  const HwProfile hw = load_hw_profile(o.hw);
  const BenchData d = read_bench_dir(o.data);
  const BenchValidation v = validate_bench(hw, d);
  if (o.json) {
    if (o.uncertainty > 0)
      throw flag_error("--uncertainty",
                       "a microbenchmark folder's bands are printed as text: "
                       "leave out --json");
    ctx.out << bench_validation_json(v).dump(2) << "\n";
    return 0;
  }
  print_bench_validation(ctx.out, v);
  if (o.uncertainty > 0) {
    // The microbenchmark rows the fits read, each predicted with the drawn profiles.
    MeasurementSet set;
    for (auto rows : {gemm_measurements(d), hbm_measurements(d), l2_measurements(d, hw),
                      launch_measurements(d)})
      for (auto& m : rows) set.rows.push_back(std::move(m));
    write_coverage(ctx.out, band_coverage(o.hw, set, o.uncertainty, 1));
  }
  return 0;
}

int run_validate(const ValidateOptions& o, CliContext& ctx) {
  std::error_code ec;
  if (std::filesystem::is_directory(o.data, ec)) {
    if (!o.program.empty())
      throw flag_error("--program", "only a trace (.json) is replayed as a program");
    return run_validate_bench(o, ctx);
  }
  if (is_trace(o.data)) {
    if (o.uncertainty > 0)
      throw flag_error("--uncertainty",
                       "bands kernel tables, microbenchmark folders and layer "
                       "breakdowns, not traces");
    return run_validate_trace(o, ctx);
  }
  if (!o.program.empty())
    throw flag_error("--program", "only a trace (.json) is replayed as a program");
  if (is_breakdown_csv(o.data)) {
    // Each row names its own GPU and setting: --hw does not apply.
    const BreakdownValidation v = validate_breakdown(o.data, o.uncertainty);
    if (o.json)
      ctx.out << breakdown_validation_json(v).dump(2) << "\n";
    else
      write_breakdown_validation(ctx.out, v);
    return 0;
  }
  const HwProfile hw = load_hw_profile(o.hw);
  const MeasurementSet set = load_measurements(o.data, hw, SelectOptions{o.all_versions});
  const ValidationReport r = validate(hw, set);
  if (o.uncertainty > 0 && o.json)
    throw flag_error("--uncertainty",
                     "a kernel table's bands are printed as text: leave out "
                     "--json");
  if (o.uncertainty > 0) {
    write_validation_table(ctx.out, o.data, hw, set, r);
    write_coverage(ctx.out, band_coverage(o.hw, set, o.uncertainty, 1));
    return 0;
  }
  if (o.json)
    ctx.out << validation_json(o.data, hw, set, r).dump(2) << "\n";
  else
    write_validation_table(ctx.out, o.data, hw, set, r);
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Predicted against measured for published data (DeepGEMM, DeepEP, FlashMLA CSVs in\n"
      "../shared/data/): a row each, plus the mean absolute percentage error per family, and\n"
      "the profile numbers those predictions use with their sources (estimates counted).\n"
      "For a PyTorch-profiler (Kineto) trace (.json): the trace replayed by the engine\n"
      "(measured kernel durations; host pacing, stream order and SM sharing from the engine)\n"
      "against measured - makespan, layers, per-stream span and time beside another stream,\n"
      "per-family time beside another stream, with MAPE - and the profile parameters the trace\n"
      "measures (launch cost, DeepEP SMs). For a folder of microbenchmark CSVs\n"
      "(calibrate/run-on-gpu.sh): each family's rows predicted by the profile, with MAPE, and\n"
      "the engine checks of calibrate --bench (L2 reuse, launch pace, concurrent pairs).");
  cmd->add_option("data", o->data,
                  "Published measurements (CSV), a Kineto trace (JSON) or a microbenchmark folder")
      ->required();
  cmd->add_option("--hw", o->hw, "Hardware profile (name or path); rows of other GPUs are ignored")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print one JSON object");
  auto* uncertainty =
      cmd->add_option("--uncertainty",
                      "Kernel tables, microbenchmark folders and layer breakdowns: also predict "
                      "every row with N profiles (default 64; layer breakdowns: profiles and model "
                      "configs) drawn within their spreads and count the rows whose measurement "
                      "falls inside the P10-P90 band")
          ->expected(0, 1)
          ->type_name("[N]");
  cmd->add_flag("--all-versions", o->all_versions, "Include rows of superseded kernel versions");
  cmd->add_option("--program", o->program,
                  "Traces: also write the replayed program (an `overlapsim run` YAML)");
  cmd->callback([o, uncertainty, &ctx] {
    o->uncertainty = flags::optional_count(*uncertainty, 64);
    ctx.exit_code = run_validate(*o, ctx);
  });
}

}  // namespace ovs
