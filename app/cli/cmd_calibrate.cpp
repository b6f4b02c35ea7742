// overlapsim calibrate --base H [--bench DIR] [--data CSV ...] --out FILE.yaml
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.hpp"
#include "calibrate/fit/bench_checks.hpp"
#include "calibrate/fit/bench_csv.hpp"
#include "calibrate/fit/bench_fit.hpp"
#include "calibrate/fit/fit_published.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"

namespace ovs {
namespace {

struct CalibrateOptions {
  std::string base;
  std::string bench;  // folder of microbenchmark CSVs
  std::vector<std::string> data;
  std::string out;
  std::vector<std::string> only;  // fitted fields to keep (empty: all)
  std::string copy_from;          // take the kernels: numbers of another profile first
  bool json = false;
};

nlohmann::ordered_json report_json(const std::string& input, const FitReport& r) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const auto& f : r.fields)
    fields.push_back({{"path", f.path}, {"value", f.value}, {"source", f.source}});
  return {{"input", input},
          {"family", r.family},
          {"rows", r.rows},
          {"mape_before", r.mape_before},
          {"mape_after", r.mape_after},
          {"fields", fields},
          {"worst", r.worst}};
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The last component of a folder's path ("calibrate/results/h200-x/" -> "h200-x").
std::string dir_name(const std::string& path) {
  auto p = std::filesystem::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  const std::string name = p.filename().string();
  return name.empty() || name == "." ? path : name;
}

void keep_only(const std::vector<std::string>& only, std::vector<FitReport>& reports) {
  if (only.empty()) return;
  for (auto& r : reports) {
    std::vector<FittedField> kept;
    for (auto& f : r.fields)
      if (std::find(only.begin(), only.end(), f.path) != only.end()) kept.push_back(f);
    r.fields = kept;
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream t;
  t << in.rdbuf();
  return t.str();
}

int run_calibrate(const CalibrateOptions& o, CliContext& ctx) {
  // --json: the report as one JSON object; the text report is not printed.
  std::ostringstream text_sink;
  std::ostream& report = o.json ? text_sink : ctx.out;
  nlohmann::ordered_json fits = nlohmann::ordered_json::array();
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  const HwProfile start = load_hw_profile(o.base);
  require_kernel_params(start);
  // Each data file is fitted on the profile as the previous files left it: the updated text is
  // parsed again, so what is written is exactly what the next fit and every later run use.
  std::string text = slurp(start.file);
  HwProfile hw = start;
  if (!o.copy_from.empty()) {
    // Same die, same kernel libraries: the cost-model numbers carry over; the engine-level
    // numbers (SMs, HBM, links) stay this GPU's own.
    const HwProfile donor = load_hw_profile(o.copy_from);
    FitReport copy;
    copy.family = "copied from " + donor.name;
    for (const auto& f : donor.fields) {
      if (f.path.rfind("kernels.", 0) != 0 || f.list) continue;
      auto mine = std::find_if(hw.fields.begin(), hw.fields.end(),
                               [&](const SourcedField& x) { return x.path == f.path; });
      if (mine == hw.fields.end()) continue;
      copy.fields.push_back(
          {f.path, f.value,
           fmt::format("as for {} (same die and kernels; overlapsim calibrate --copy-from {}): {}",
                       donor.name, donor.name, f.source)});
    }
    report << fmt::format("{}: {} field(s)\n", copy.family, copy.fields.size());
    fits.push_back(report_json("--copy-from " + donor.name, copy));
    text = apply_fits(text, hw, {copy});
    hw = parse_hw_profile(yaml::load_string(text, start.file));
  }
  if (!o.bench.empty()) {
    // Microbenchmark CSVs: every file is checked before anything is fitted.
    const BenchData data = read_bench_dir(o.bench);
    const HwProfile before = hw;
    BenchFitResult res = fit_bench(hw, data, dir_name(o.bench));
    for (auto& f : res.families) {
      std::vector<FitReport> one{f.report};
      keep_only(o.only, one);
      f.report = one.front();
    }
    print_bench_fit(report, res);
    for (const auto& s : data.skipped) {
      report << "  skipped " << s << "\n";
      notes.push_back("skipped " + s);
    }
    for (const auto& w : res.warnings) notes.push_back(w);
    for (const auto& r : res.reports()) fits.push_back(report_json(o.bench, r));
    text = apply_fits(text, before, res.reports());
    hw = parse_hw_profile(yaml::load_string(text, start.file));
    const BenchChecks checks = bench_checks(hw, data);
    print_bench_checks(report, checks);
    for (const auto& n : checks.notes) notes.push_back(n);
  }
  for (const auto& d : o.data) {
    const std::string provenance = fmt::format("overlapsim calibrate --base {} --data {} on {}",
                                               start.name, file_name(d), today_utc());
    const HwProfile before = hw;
    auto reports = fit_published(hw, d, provenance);
    keep_only(o.only, reports);
    report << fmt::format("{}:\n", d);
    if (reports.empty()) {
      report << "  nothing in this file informs " << start.name << "\n";
      notes.push_back(d + ": nothing in this file informs " + start.name);
    }
    for (const auto& r : reports) {
      fits.push_back(report_json(d, r));
      report << fmt::format("  {}: {} row(s), MAPE {:.1f}% -> {:.1f}%{}\n", r.family, r.rows,
                            100 * r.mape_before, 100 * r.mape_after,
                            r.fields.empty() ? " (not written: --only)" : "");
      for (const auto& f : r.fields) report << fmt::format("    {} = {:.6g}\n", f.path, f.value);
      for (const auto& w : r.worst) report << "    worst: " << w << "\n";
    }
    text = apply_fits(text, before, reports);
    hw = parse_hw_profile(yaml::load_string(text, start.file));
  }
  AtomicFile out(o.out);
  out.stream() << text;
  out.commit();
  if (o.json)
    ctx.out << nlohmann::ordered_json{{"base", start.name},
                                      {"out", o.out},
                                      {"fits", fits},
                                      {"notes", notes}}
                   .dump(2)
            << "\n";
  else
    ctx.out << fmt::format("wrote {}\n", o.out);
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* cmd = app.add_subcommand("calibrate",
                                 "Fit a hardware profile's cost-model parameters "
                                 "(Levenberg-Marquardt, Eigen) to measurements:\n"
                                 "the microbenchmark CSVs of calibrate/run-on-gpu.sh (--bench) "
                                 "and published CSVs (DeepGEMM,\n"
                                 "DeepEP, FlashMLA headline figures, gpus.csv MAMF rows). Writes "
                                 "the\n"
                                 "profile with every fitted number's source saying how it was "
                                 "fitted, and prints a fit report.");
  cmd->add_option("--base", o->base, "Profile to start from (name or path)")->required();
  cmd->add_option("--bench", o->bench,
                  "Folder of microbenchmark CSVs (gemm, hbm, l2, launch, concurrency; any may be\n"
                  "absent): fits launch/event costs, kernel_min_us, HBM bandwidth and saturation "
                  "SMs,\nL2 bandwidth and the GEMM model; checks L2 reuse and concurrent pairs "
                  "through the engine");
  cmd->add_option("--data", o->data, "Published measurement CSV (repeatable; after --bench)");
  cmd->add_option("--out", o->out, "Where to write the fitted profile")->required();
  cmd->add_option("--only", o->only, "Write only these fitted fields (profile paths, repeatable)");
  cmd->add_option(
      "--copy-from", o->copy_from,
      "Start from another profile's kernels: numbers (same die and kernel libraries, e.g.\n"
      "h800-sxm for h100-sxm); the profile's own SMs, HBM and links stay");
  cmd->add_flag("--json", o->json, "Print the fit report as one JSON object");
  cmd->callback([o, &ctx] { ctx.exit_code = run_calibrate(*o, ctx); });
}

}  // namespace ovs
