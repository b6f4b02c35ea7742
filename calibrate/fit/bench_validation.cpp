#include "calibrate/fit/bench_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "calibrate/fit/bench_rows.hpp"

namespace ovs {
namespace {
double relative_error(const Measurement& m, const HwProfile& hw) {
  return (m.predict_us(hw) - m.measured_us) / m.measured_us;
}
}  // namespace

ResidualSummary summarize(const HwProfile& hw, const std::vector<const Measurement*>& rows,
                          int worst) {
  ResidualSummary s;
  s.rows = static_cast<int>(rows.size());
  if (rows.empty()) return s;
  std::vector<std::pair<double, const Measurement*>> errs;
  for (const auto* m : rows) errs.emplace_back(relative_error(*m, hw), m);
  std::vector<double> abs;
  for (const auto& [e, m] : errs) {
    abs.push_back(std::fabs(e));
    s.bias += e / rows.size();
  }
  for (double a : abs) s.mape += a / rows.size();
  std::sort(abs.begin(), abs.end());
  s.median_abs =
      abs.size() % 2 ? abs[abs.size() / 2] : 0.5 * (abs[abs.size() / 2 - 1] + abs[abs.size() / 2]);
  s.max_abs = abs.back();
  std::stable_sort(errs.begin(), errs.end(),
                   [](auto& x, auto& y) { return std::fabs(x.first) > std::fabs(y.first); });
  for (int i = 0; i < std::min<int>(worst, static_cast<int>(errs.size())); ++i) {
    const Measurement& m = *errs[i].second;
    s.worst.push_back(fmt::format("line {} {}: measured {:.2f} us, predicted {:.2f} us ({:+.1f}%)",
                                  m.line, m.label, m.measured_us, m.predict_us(hw),
                                  100 * errs[i].first));
  }
  return s;
}

void print_bench_fit(std::ostream& out, const BenchFitResult& r) {
  out << fmt::format("microbenchmarks {} ({}, {})\n", r.dir, r.gpu, r.date);
  for (const auto& w : r.warnings) out << "  warning: " << w << "\n";
  for (const auto& f : r.families) {
    const ResidualSummary& a = f.after;
    out << fmt::format(
        "  {}: {} row(s), MAPE {:.1f}% -> {:.1f}% (after: median {:.1f}%, max "
        "{:.1f}%, bias {:+.1f}%)\n",
        f.report.family, f.report.rows, 100 * f.report.mape_before, 100 * f.report.mape_after,
        100 * a.median_abs, 100 * a.max_abs, 100 * a.bias);
    for (const auto& p : f.params) {
      const bool written = std::any_of(f.report.fields.begin(), f.report.fields.end(),
                                       [&](const FittedField& x) { return x.path == p.path; });
      std::string se = std::isinf(p.rel_stderr) ? ""
                       : std::isnan(p.rel_stderr)
                           ? " (as many rows as parameters: no error estimate)"
                           : fmt::format(" (+-{:.1f}%)", 100 * p.rel_stderr);
      out << fmt::format("    {:<40} {:>10.6g} -> {:<10.6g}{}{}{}\n", p.path, p.before, p.after, se,
                         written ? "" : " not written", p.note.empty() ? "" : ": " + p.note);
    }
    for (const auto& n : f.notes) out << "    note: " << n << "\n";
    for (const auto& w : f.report.worst) out << "    worst: " << w << "\n";
  }
}

BenchValidation validate_bench(const HwProfile& hw, const BenchData& d) {
  require_kernel_params(hw);
  BenchValidation v{d.dir, d.gpu, d.date, hw.name, {}, {}};
  std::vector<Measurement> all;
  for (auto rows :
       {hbm_measurements(d), launch_measurements(d), l2_measurements(d, hw), gemm_measurements(d)})
    for (auto& m : rows) all.push_back(std::move(m));
  std::vector<std::string> order;
  for (const auto& m : all)
    if (std::find(order.begin(), order.end(), m.family) == order.end()) order.push_back(m.family);
  for (const auto& family : order) {
    std::vector<const Measurement*> rows;
    for (const auto& m : all)
      if (m.family == family) rows.push_back(&m);
    v.families.emplace_back(family, summarize(hw, rows));
  }
  v.checks = bench_checks(hw, d);
  return v;
}

void print_bench_validation(std::ostream& out, const BenchValidation& v) {
  out << fmt::format("microbenchmarks {} ({}, {}) on {}\n", v.dir, v.gpu, v.date, v.hardware);
  for (const auto& [family, s] : v.families) {
    out << fmt::format(
        "  {}: {} row(s), MAPE {:.1f}% (median {:.1f}%, max {:.1f}%, bias "
        "{:+.1f}%)\n",
        family, s.rows, 100 * s.mape, 100 * s.median_abs, 100 * s.max_abs, 100 * s.bias);
    for (const auto& w : s.worst) out << "    worst: " << w << "\n";
  }
  print_bench_checks(out, v.checks);
}

nlohmann::ordered_json bench_validation_json(const BenchValidation& v) {
  nlohmann::ordered_json j;
  j["data"] = v.dir;
  j["hardware"] = v.hardware;
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
  return j;
}

}  // namespace ovs
