// overlapsim validate DATA.csv --hw H [--json] [--all-versions]
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "calibrate/fit/validation.hpp"
#include "sim/cli/commands.hpp"

namespace ovs {
namespace {

struct ValidateOptions {
  std::string data;
  std::string hw = "h800-sxm";
  bool json = false;
  bool all_versions = false;
};

int run_validate(const ValidateOptions& o, CliContext& ctx) {
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
                      {"error", row.error}});
    j["rows"] = rows;
    nlohmann::ordered_json mape;
    for (const auto& [f, v] : r.mape) mape[f] = v;
    j["mape"] = mape;
    j["mape_all"] = r.mape_all;
    j["skipped"] = set.skipped;
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << fmt::format("{} on {} ({} rows)\n\n", o.data, hw.name, r.rows.size());
  ctx.out << fmt::format("{:>5}  {:<48} {:>12} {:>12} {:>8}\n", "line", "row", "measured_us",
                         "predicted_us", "error");
  for (const auto& row : r.rows)
    ctx.out << fmt::format("{:>5}  {:<48} {:>12.1f} {:>12.1f} {:>+7.1f}%\n", row.m->line,
                           row.m->label, row.m->measured_us, row.predicted_us, 100 * row.error);
  ctx.out << "\n";
  for (const auto& [f, v] : r.mape) ctx.out << fmt::format("MAPE {:<22} {:.1f} %\n", f, 100 * v);
  if (r.rows.empty()) ctx.out << "no row of this file applies to " << hw.name << "\n";
  for (const auto& s : set.skipped) ctx.out << "skipped " << s << "\n";
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Predicted against measured for published data (DeepGEMM, DeepEP, FlashMLA CSVs in\n"
      "../shared/data/): a row each, plus the mean absolute percentage error per family.");
  cmd->add_option("data", o->data, "Published measurements (CSV)")->required();
  cmd->add_option("--hw", o->hw, "Hardware profile (name or path); rows of other GPUs are ignored")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->add_flag("--all-versions", o->all_versions, "Include rows of superseded kernel versions");
  cmd->callback([o, &ctx] { ctx.exit_code = run_validate(*o, ctx); });
}

}  // namespace ovs
