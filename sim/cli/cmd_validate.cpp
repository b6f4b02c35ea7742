// overlapsim validate DATA.csv --hw H [--json] [--all-versions]
// overlapsim validate TRACE.json --hw H [--json] [--program OUT.yaml]
// overlapsim validate BENCH_DIR --hw H
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "calibrate/fit/bench_validation.hpp"
#include "calibrate/fit/trace_validation.hpp"
#include "calibrate/fit/validation.hpp"
#include "calibrate/import/kineto_reader.hpp"
#include "calibrate/import/trace_export.hpp"
#include "models/hw/profile_sources.hpp"
#include "sim/cli/commands.hpp"
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
    throw InputError("--hw", 0, "", e.what());
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
  const HwProfile hw = load_hw_profile(o.hw);
  const BenchValidation v = validate_bench(hw, read_bench_dir(o.data));
  if (!o.json) {
    print_bench_validation(ctx.out, v);
    return 0;
  }
  nlohmann::ordered_json j;
  j["data"] = o.data;
  j["hardware"] = hw.name;
  j["gpu"] = v.gpu;
  j["date"] = v.date;
  nlohmann::ordered_json fam;
  for (const auto& [family, s] : v.families)
    fam[family] = {{"rows", s.rows}, {"mape", s.mape}, {"bias", s.bias}, {"max_abs", s.max_abs}};
  j["families"] = fam;
  auto pairs = nlohmann::ordered_json::array();
  for (const auto& p : v.checks.pairs)
    pairs.push_back(
        {{"pair", p.pair},
         {"together_us", {{"measured", p.together[0]}, {"predicted", p.together[1]}}},
         {"overlap_efficiency",
          {{"measured", p.overlap_efficiency(0)}, {"predicted", p.overlap_efficiency(1)}}}});
  j["concurrency"] = pairs;
  j["notes"] = v.checks.notes;
  ctx.out << j.dump(2) << "\n";
  return 0;
}

// The profile numbers a family's predictions read (empty: all of them).
std::vector<std::string> fields_read_by(DataFamily f) {
  const std::vector<std::string> compute{
      "sm_count", "boost_clock_mhz", "sustained_clock_mhz", "tensor_peak_tflops", "hbm", "l2"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), compute.begin(), compute.end());
    return more;
  };
  switch (f) {
    case DataFamily::deepgemm:
      return with({"kernels.gemm"});
    case DataFamily::flashmla:
      return with({"kernels.attention"});
    case DataFamily::deepep:
      return {"sm_count", "hbm", "links", "kernels.comm", "kernels.memory.kernel_min_us"};
    default:
      return {};
  }
}

// Where the numbers behind the predictions come from: each with its line and source, so an
// estimate (or a number copied from another GPU) is visible next to the error it produces.
void write_sources(std::ostream& out, const HwProfile& hw,
                   const std::vector<SourcedField>& fields) {
  int estimates = 0;
  for (const auto& f : fields) estimates += is_estimate(f.source) ? 1 : 0;
  out << fmt::format(
      "\nprofile numbers these predictions use ({}): {} of {} labelled guesses or "
      "estimates (no measurement informs them)\n",
      hw.file, estimates, fields.size());
  for (const auto& f : fields)
    out << fmt::format("{:>5}  {:<44} {:>10.6g}  {}\n", f.line, f.path, f.value,
                       f.source.empty() ? "(no source)" : f.source);
}

int run_validate(const ValidateOptions& o, CliContext& ctx) {
  std::error_code ec;
  if (std::filesystem::is_directory(o.data, ec)) {
    if (!o.program.empty())
      throw InputError("--program", 0, "", "only a trace (.json) is replayed as a program");
    return run_validate_bench(o, ctx);
  }
  if (is_trace(o.data)) return run_validate_trace(o, ctx);
  if (!o.program.empty())
    throw InputError("--program", 0, "", "only a trace (.json) is replayed as a program");
  const HwProfile hw = load_hw_profile(o.hw);
  const MeasurementSet set = load_measurements(o.data, hw, SelectOptions{o.all_versions});
  const ValidationReport r = validate(hw, set);
  if (o.json) {
    nlohmann::ordered_json j;
    j["data"] = o.data;
    j["hardware"] = hw.name;
    j["family"] = family_name(set.family);
    auto rows = nlohmann::ordered_json::array();
    for (const auto& row : r.rows)
      rows.push_back({{"line", row.m->line},
                      {"family", row.m->family},
                      {"label", row.m->label},
                      {"measured_us", row.m->measured_us},
                      {"predicted_us", row.predicted_us},
                      {"error", row.error},
                      {"in_sample", row.m->in_sample}});
    j["rows"] = rows;
    nlohmann::ordered_json mape;
    for (const auto& [f, v] : r.mape) mape[f] = v;
    j["mape"] = mape;
    j["mape_all"] = r.mape_all;
    for (const auto& [key, split] :
         {std::pair{"in_sample", &r.in_sample}, {"held_back", &r.held_back}}) {
      nlohmann::ordered_json s = nlohmann::ordered_json::object();
      for (const auto& [f, v] : *split) s[f] = {{"rows", v.rows}, {"mape", v.mape}};
      j[key] = s;
    }
    j["skipped"] = set.skipped;
    auto sources = nlohmann::ordered_json::array();
    for (const auto& f : fields_under(hw, fields_read_by(set.family)))
      sources.push_back({{"field", f.path},
                         {"value", f.value},
                         {"line", f.line},
                         {"source", f.source},
                         {"estimate", is_estimate(f.source)}});
    j["profile_sources"] = sources;
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << fmt::format("{} on {} ({} rows)\n\n", o.data, hw.name, r.rows.size());
  ctx.out << fmt::format("{:>5}  {:<48} {:>12} {:>12} {:>8}  {}\n", "line", "row", "measured_us",
                         "predicted_us", "error", "use");
  for (const auto& row : r.rows)
    ctx.out << fmt::format("{:>5}  {:<48} {:>12.1f} {:>12.1f} {:>+7.1f}%  {}\n", row.m->line,
                           row.m->label, row.m->measured_us, row.predicted_us, 100 * row.error,
                           row.m->in_sample ? "fit" : "held back");
  ctx.out << "\n";
  for (const auto& [f, v] : r.mape) ctx.out << fmt::format("MAPE {:<22} {:.1f} %\n", f, 100 * v);
  for (const auto& [f, v] : r.in_sample)
    ctx.out << fmt::format("  in-sample (fitted)  {:<20} {:>3} rows  MAPE {:.1f} %\n", f, v.rows,
                           100 * v.mape);
  for (const auto& [f, v] : r.held_back)
    ctx.out << fmt::format("  held back           {:<20} {:>3} rows  MAPE {:.1f} %\n", f, v.rows,
                           100 * v.mape);
  if (r.rows.empty()) ctx.out << "no row of this file applies to " << hw.name << "\n";
  for (const auto& s : set.skipped) ctx.out << "skipped " << s << "\n";
  write_sources(ctx.out, hw, fields_under(hw, fields_read_by(set.family)));
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
  cmd->add_flag("--all-versions", o->all_versions, "Include rows of superseded kernel versions");
  cmd->add_option("--program", o->program,
                  "Traces: also write the replayed program (an `overlapsim run` YAML)");
  cmd->callback([o, &ctx] { ctx.exit_code = run_validate(*o, ctx); });
}

}  // namespace ovs
