// `overlapsim validate DATA.csv`: the JSON object and the table.
#include <fmt/format.h>

#include "calibrate/fit/validation.hpp"
#include "models/hw/profile_sources.hpp"

namespace ovs {
namespace {

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

}  // namespace

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

nlohmann::ordered_json validation_json(const std::string& data, const HwProfile& hw,
                                       const MeasurementSet& set, const ValidationReport& r) {
  nlohmann::ordered_json j;
  j["data"] = data;
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
  return j;
}

void write_validation_table(std::ostream& out, const std::string& data, const HwProfile& hw,
                            const MeasurementSet& set, const ValidationReport& r) {
  out << fmt::format("{} on {} ({} rows)\n\n", data, hw.name, r.rows.size());
  out << fmt::format("{:>5}  {:<48} {:>12} {:>12} {:>8}  {}\n", "line", "row", "measured_us",
                     "predicted_us", "error", "use");
  for (const auto& row : r.rows)
    out << fmt::format("{:>5}  {:<48} {:>12.1f} {:>12.1f} {:>+7.1f}%  {}\n", row.m->line,
                       row.m->label, row.m->measured_us, row.predicted_us, 100 * row.error,
                       row.m->in_sample ? "fit" : "held back");
  out << "\n";
  for (const auto& [f, v] : r.mape) out << fmt::format("MAPE {:<22} {:.1f} %\n", f, 100 * v);
  for (const auto& [f, v] : r.in_sample)
    out << fmt::format("  in-sample (fitted)  {:<20} {:>3} rows  MAPE {:.1f} %\n", f, v.rows,
                       100 * v.mape);
  for (const auto& [f, v] : r.held_back)
    out << fmt::format("  held back           {:<20} {:>3} rows  MAPE {:.1f} %\n", f, v.rows,
                       100 * v.mape);
  if (r.rows.empty()) out << "no row of this file applies to " << hw.name << "\n";
  for (const auto& s : set.skipped) out << "skipped " << s << "\n";
  write_sources(out, hw, fields_under(hw, fields_read_by(set.family)));
}

}  // namespace ovs
