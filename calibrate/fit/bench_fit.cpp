#include "calibrate/fit/bench_fit.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "calibrate/fit/bench_pairs.hpp"
#include "calibrate/fit/bench_rows.hpp"
#include "calibrate/fit/lm_fit.hpp"

namespace ovs {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A parameter whose standard error exceeds this share of its value is not informed by the data.
constexpr double kMaxRelStderr = 0.25;

// A profile parameter the fit may move, in the profile's units.
struct Knob {
  std::string path;
  std::function<double(const HwProfile&)> get;
  std::function<void(HwProfile&, double)> set;
  double lo = 0, hi = 1;
};

double relative_error(const Measurement& m, const HwProfile& hw) {
  return (m.predict_us(hw) - m.measured_us) / m.measured_us;
}

// Four significant digits: what the profile shows is what the engine uses.
double round4(double v) {
  if (v == 0) return 0;
  const double mag = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 3);
  return std::round(v / mag) * mag;
}

// Standard error of each parameter relative to its value, from the Jacobian of the residuals at
// x (central differences): cov = s^2 (J^T J)^-1. Infinity for a parameter the residuals do not
// depend on, or that is collinear with the others; NaN (no estimate) when there are no more
// rows than parameters.
std::vector<double> rel_stderr(const ResidualFn& fn, const std::vector<double>& x,
                               const std::vector<Knob>& knobs) {
  const size_t p = x.size();
  const std::vector<double> r0 = fn(x);
  const size_t n = r0.size();
  std::vector<double> out(p, kInf);
  Eigen::MatrixXd J(n, p);
  for (size_t j = 0; j < p; ++j) {
    const double h = 1e-4 * std::max(std::fabs(x[j]), knobs[j].hi - knobs[j].lo);
    std::vector<double> up = x, down = x;
    up[j] = std::min(x[j] + h, knobs[j].hi);
    down[j] = std::max(x[j] - h, knobs[j].lo);
    const auto ru = fn(up), rd = fn(down);
    for (size_t i = 0; i < n; ++i) J(i, j) = (ru[i] - rd[i]) / (up[j] - down[j]);
  }
  fn(x);  // leave the profile at x
  if (n <= p) {
    for (size_t j = 0; j < p; ++j)
      if (J.col(j).norm() > 1e-9) out[j] = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  double ssr = 0;
  for (double v : r0) ssr += v * v;
  const double s2 = std::max(ssr / double(n - p), 1e-12);
  std::vector<size_t> keep;
  for (size_t j = 0; j < p; ++j)
    if (J.col(j).norm() > 1e-9) keep.push_back(j);
  while (!keep.empty()) {
    Eigen::MatrixXd Jk(n, keep.size());
    for (size_t c = 0; c < keep.size(); ++c) Jk.col(c) = J.col(keep[c]);
    Eigen::FullPivLU<Eigen::MatrixXd> lu(Jk.transpose() * Jk);
    lu.setThreshold(1e-10);
    if (lu.isInvertible()) {
      const Eigen::MatrixXd cov = s2 * lu.inverse();
      for (size_t c = 0; c < keep.size(); ++c) {
        const size_t j = keep[c];
        const double scale = std::max(std::fabs(x[j]), 1e-3 * (knobs[j].hi - knobs[j].lo));
        out[j] = std::sqrt(std::max(cov(c, c), 0.0)) / scale;
      }
      break;
    }
    // Collinear: drop the weakest column and try again.
    size_t weakest = 0;
    for (size_t c = 1; c < keep.size(); ++c)
      if (J.col(keep[c]).norm() < J.col(keep[weakest]).norm()) weakest = c;
    keep.erase(keep.begin() + weakest);
  }
  return out;
}

std::string source_for(const BenchFitResult& res, const std::string& family, int rows,
                       double before, double after) {
  return fmt::format(
      "fitted by overlapsim calibrate --bench {} on {} ({}; {} {} rows, MAPE {:.1f}% "
      "-> {:.1f}%)",
      res.dir, res.date, res.gpu, rows, family, 100 * before, 100 * after);
}

std::vector<const Measurement*> rows_of(const std::vector<Measurement>& all,
                                        const std::string& family) {
  std::vector<const Measurement*> out;
  for (const auto& m : all)
    if (m.family == family) out.push_back(&m);
  return out;
}

// Fits `knobs` to `rows`; parameters the rows do not inform keep their values.
BenchFamilyFit fit_family(HwProfile& hw, BenchFitResult& res, const std::string& family,
                          const std::vector<const Measurement*>& rows, std::vector<Knob> knobs) {
  BenchFamilyFit f;
  f.report.family = family;
  f.report.rows = static_cast<int>(rows.size());
  f.report.mape_before = summarize(hw, rows, 0).mape;
  std::vector<double> original;
  for (const auto& k : knobs) original.push_back(k.get(hw));
  std::vector<Knob> active = knobs;
  std::vector<double> se;
  std::vector<double> values;
  for (int pass = 0; pass < 3 && !active.empty(); ++pass) {
    std::vector<FitParam> params;
    for (const auto& k : active) params.push_back({k.path, 0.5 * (k.lo + k.hi), k.lo, k.hi});
    const ResidualFn residuals = [&](const std::vector<double>& x) {
      for (size_t i = 0; i < active.size(); ++i) active[i].set(hw, x[i]);
      std::vector<double> r;
      r.reserve(rows.size());
      for (const auto* m : rows) r.push_back(relative_error(*m, hw));
      return r;
    };
    const FitResult fit =
        fit_least_absolute(params, residuals, active.size() > 2 ? 4 : 2, 6, epsfcn_for(rows));
    values = fit.values;
    se = rel_stderr(residuals, values, active);
    std::vector<Knob> informed;
    std::vector<double> informed_values;
    for (size_t i = 0; i < active.size(); ++i) {
      if (std::isnan(se[i]) || se[i] <= kMaxRelStderr) {
        informed.push_back(active[i]);
        informed_values.push_back(values[i]);
        continue;
      }
      const size_t o = static_cast<size_t>(
          std::find_if(knobs.begin(), knobs.end(),
                       [&](const Knob& k) { return k.path == active[i].path; }) -
          knobs.begin());
      active[i].set(hw, original[o]);
      f.params.push_back({active[i].path, original[o], original[o], se[i], false, false,
                          std::isinf(se[i]) ? "not informed by these rows: kept"
                                            : fmt::format("standard error {:.0f}% of the value: "
                                                          "not informed by these rows, kept",
                                                          100 * se[i])});
    }
    if (informed.size() == active.size()) break;
    active = informed;
    values = informed_values;
    se.clear();
  }
  for (size_t i = 0; i < active.size(); ++i) {
    const size_t o =
        static_cast<size_t>(std::find_if(knobs.begin(), knobs.end(),
                                         [&](const Knob& k) { return k.path == active[i].path; }) -
                            knobs.begin());
    const double v = round4(values[i]);
    active[i].set(hw, v);
    const double width = active[i].hi - active[i].lo;
    const bool at_bound =
        values[i] <= active[i].lo + 1e-3 * width || values[i] >= active[i].hi - 1e-3 * width;
    f.params.push_back({active[i].path, original[o], v, se.empty() ? 0 : se[i], true, at_bound,
                        at_bound ? "at the edge of the fit's box" : ""});
  }
  f.after = summarize(hw, rows);
  f.report.mape_after = f.after.mape;
  f.report.worst = f.after.worst;
  const std::string source =
      source_for(res, family, f.report.rows, f.report.mape_before, f.report.mape_after);
  for (const auto& p : f.params)
    if (p.written) f.report.fields.push_back({p.path, p.after, source});
  return f;
}

Knob gemm_knob(const std::string& name, std::function<double&(GemmParams&)> field, double lo,
               double hi) {
  return {"kernels.gemm." + name,
          [field](const HwProfile& h) { return field(const_cast<GemmParams&>(h.kernels.gemm)); },
          [field](HwProfile& h, double v) { field(h.kernels.gemm) = v; }, lo, hi};
}

double max_measured(const std::vector<const Measurement*>& rows) {
  double m = 0;
  for (const auto* r : rows) m = std::max(m, r->measured_us);
  return m;
}

void fit_launch(HwProfile& hw, const BenchData& d, BenchFitResult& res) {
  const auto all = launch_measurements(d);
  struct One {
    std::string family, path;
    std::function<double&(HwProfile&)> field;
  };
  const std::vector<One> ones{
      {"launch_eager", "host.launch_eager_us",
       [](HwProfile& h) -> double& { return h.engine.launch_eager_us; }},
      {"launch_graph", "host.launch_graph_us",
       [](HwProfile& h) -> double& { return h.engine.launch_graph_us; }},
      {"launch_event", "host.event_us",
       [](HwProfile& h) -> double& { return h.engine.event_host_us; }},
      {"kernel_min", "kernels.memory.kernel_min_us",
       [](HwProfile& h) -> double& { return h.kernels.memory.kernel_min_us; }},
      // After kernel_min and launch_graph: the graph rows' kernels are those, a node sooner.
      {"graph_kernel", "host.graph_kernel_saving_us",
       [](HwProfile& h) -> double& { return h.engine.graph_kernel_saving_us; }}};
  for (const auto& o : ones) {
    const auto rows = rows_of(all, o.family);
    if (rows.empty()) continue;
    auto field = o.field;
    // A graph node cannot save more than a kernel's whole fixed latency (and past it the rows
    // are flat, paced by launch_graph_us, which would leave the fit nothing to follow).
    const double hi =
        o.family == "graph_kernel" ? hw.kernels.memory.kernel_min_us : 2 * max_measured(rows);
    Knob k{o.path, [field](const HwProfile& h) { return field(const_cast<HwProfile&>(h)); },
           [field](HwProfile& h, double v) { field(h) = v; }, 0.0, hi};
    res.families.push_back(fit_family(hw, res, o.family, rows, {k}));
  }
}

void fit_hbm(HwProfile& hw, const BenchData& d, BenchFitResult& res) {
  const auto all = hbm_measurements(d);
  if (all.empty()) return;
  std::vector<const Measurement*> rows;
  for (const auto& m : all) rows.push_back(&m);
  // Both through the engine's solo time (the bandwidth-vs-SMs curve is the engine's, not a
  // formula here); the saturation count is informed only by rows below saturation.
  const Knob bw{"hbm.achievable_gbps",
                [](const HwProfile& h) { return h.engine.hbm_bytes_per_us / 1e3; },
                [](HwProfile& h, double v) { h.engine.hbm_bytes_per_us = v * 1e3; },
                0.3 * hw.hbm_peak_gbps, hw.hbm_peak_gbps};
  const Knob sat{"hbm.saturation_sms",
                 [](const HwProfile& h) { return h.engine.hbm_saturation_sms; },
                 [](HwProfile& h, double v) { h.engine.hbm_saturation_sms = v; }, 1.0,
                 double(hw.engine.sm_count)};
  res.families.push_back(fit_family(hw, res, "hbm", rows, {bw, sat}));
}

// The issue capacity co-resident kernels share on one SM and the dispatch share of a waiting
// stream, from the concurrent pairs' together times (each pair run through the engine). Pairs whose
// kernels never share an SM do not inform it, and it keeps its documented default.
void fit_concurrency(HwProfile& hw, const BenchData& d, BenchFitResult& res) {
  const auto all = concurrency_measurements(d, hw);
  if (all.empty()) return;
  std::vector<const Measurement*> rows, slowdowns;
  for (const auto& m : all) (m.family == "concurrency" ? rows : slowdowns).push_back(&m);
  const Knob issue{"sm.issue_capacity",
                   [](const HwProfile& h) { return h.engine.sm.issue_capacity; },
                   [](HwProfile& h, double v) { h.engine.sm.issue_capacity = v; }, 0.25, 2.0};
  // How the block scheduler serves a second stream while a multi-wave grid runs: only pairs
  // whose first kernel has CTAs left to dispatch inform it (the small-kernels pair beside a
  // non-persistent GEMM); otherwise it is kept.
  const Knob dispatch{"sm.dispatch_share",
                      [](const HwProfile& h) { return h.engine.sm.dispatch_share; },
                      [](HwProfile& h, double v) { h.engine.sm.dispatch_share = v; }, 0.0, 1.0};
  res.families.push_back(fit_family(hw, res, "concurrency", rows, {issue, dispatch}));
  // How much a kernel slows beside others that keep DRAM busy (loaded memory latency), from each
  // workload's end in the together runs over its time alone: the persistent 20-SM reader beside
  // a GEMM, and the GEMM beside it, end later than SM sharing and bandwidth shares explain.
  if (slowdowns.empty()) return;
  const Knob loaded{"hbm.loaded_latency_slowdown",
                    [](const HwProfile& h) { return h.engine.hbm_loaded_slowdown; },
                    [](HwProfile& h, double v) { h.engine.hbm_loaded_slowdown = v; }, 0.0, 5.0};
  res.families.push_back(fit_family(hw, res, "concurrency_slowdown", slowdowns, {loaded}));
}

void fit_l2(HwProfile& hw, const BenchData& d, BenchFitResult& res) {
  const auto all = l2_measurements(d, hw);
  const auto rows = rows_of(all, "l2");
  if (rows.empty()) {
    if (!d.l2.empty())
      res.warnings.push_back(
          "l2.csv has no sweep row with a working set up to half the L2: "
          "l2.achievable_gbps not fitted");
    return;
  }
  double lo = kInf, hi = 0;
  for (const auto& r : d.l2) {
    if (r.test != "sweep") continue;
    const double gbps = r.bytes_read / r.time_us * 1e-3;
    lo = std::min(lo, gbps);
    hi = std::max(hi, gbps);
  }
  const Knob bw{
      "l2.achievable_gbps", [](const HwProfile& h) { return h.engine.l2_bytes_per_us / 1e3; },
      [](HwProfile& h, double v) { h.engine.l2_bytes_per_us = v * 1e3; }, 0.5 * lo, 2 * hi};
  BenchFamilyFit f = fit_family(hw, res, "l2", rows, {bw});
  f.params.push_back({"l2.saturation_sms", double(hw.engine.l2_saturation_sms),
                      double(hw.engine.l2_saturation_sms), kInf, false, false,
                      "not informed: every L2 test runs on all SMs; kept"});
  res.families.push_back(std::move(f));
}

void fit_gemm(HwProfile& hw, const BenchData& d, BenchFitResult& res) {
  const auto all = gemm_measurements(d);
  if (all.empty()) return;
  std::vector<const Measurement*> rows;
  for (const auto& m : all) rows.push_back(&m);
  bool bf16 = false, fp8 = false, block = false;
  for (const auto& g : d.gemm) {
    bf16 |= g.dtype == "bf16";
    fp8 |= g.dtype != "bf16";
    block |= g.dtype == "fp8_block128";
  }
  const int b = static_cast<int>(Dtype::bf16), e = static_cast<int>(Dtype::fp8);
  std::vector<Knob> knobs;
  if (bf16)
    knobs.push_back(gemm_knob(
        "efficiency.bf16", [b](GemmParams& g) -> double& { return g.efficiency[b]; }, 0.2, 1.0));
  if (fp8)
    knobs.push_back(gemm_knob(
        "efficiency.fp8", [e](GemmParams& g) -> double& { return g.efficiency[e]; }, 0.2, 1.0));
  knobs.push_back(gemm_knob(
      "efficiency_m64_ratio", [](GemmParams& g) -> double& { return g.efficiency_m64_ratio; }, 0.3,
      1.0));
  knobs.push_back(gemm_knob(
      "tile_overhead_us", [](GemmParams& g) -> double& { return g.tile_overhead_us; }, 0.0, 10.0));
  if (block)
    knobs.push_back(gemm_knob(
        "k_iteration_us", [](GemmParams& g) -> double& { return g.k_iteration_us; }, 0.0, 1.0));
  knobs.push_back(gemm_knob(
      "epilogue_write_fraction", [](GemmParams& g) -> double& { return g.epilogue_write_fraction; },
      0.0, 1.0));
  knobs.push_back(gemm_knob(
      "fixed_latency_us", [](GemmParams& g) -> double& { return g.fixed_latency_us; }, 0.0, 15.0));
  BenchFamilyFit f = fit_family(hw, res, "gemm", rows, knobs);
  if (!block)
    f.notes.push_back(
        "kernels.gemm.k_iteration_us: not fitted: no block-scaled FP8 row "
        "(fp8_e4m3 rows are per-tensor FP8 with fast accumulation, no promotion)");
  res.families.push_back(std::move(f));
}

}  // namespace

std::vector<FitReport> BenchFitResult::reports() const {
  std::vector<FitReport> out;
  for (const auto& f : families) {
    FitReport r = f.report;
    // The standard error the fit reported, where it gave one, is the field's spread.
    for (auto& field : r.fields)
      for (const auto& p : f.params)
        if (p.path == field.path && std::isfinite(p.rel_stderr) && p.rel_stderr > 0)
          field.spread = p.rel_stderr;
    out.push_back(std::move(r));
  }
  return out;
}

BenchFitResult fit_bench(HwProfile& hw, const BenchData& data, const std::string& dir_label) {
  require_kernel_params(hw);
  BenchFitResult res;
  res.gpu = data.gpu;
  res.date = data.date;
  res.dir = dir_label;
  std::string gpu = data.gpu;
  if (gpu.rfind("NVIDIA ", 0) == 0) gpu = gpu.substr(7);
  if (!hw.matches_gpu(gpu))
    res.warnings.push_back(
        fmt::format("the data comes from '{}', which is not one of {}'s GPU "
                    "names (aliases): check --base",
                    data.gpu, hw.name));
  if (data.sm_count > 0 && data.sm_count != hw.engine.sm_count)
    res.warnings.push_back(
        fmt::format("the data's GPU has {} SMs, {} has {}: SM-limited fits "
                    "are off; use a profile of this GPU as --base",
                    data.sm_count, hw.name, hw.engine.sm_count));
  // HBM first: its transfers of a GiB and more hardly depend on kernel_min_us, while the launch
  // microbenchmark's small kernel moves bytes at the HBM curve's rate.
  fit_hbm(hw, data, res);
  fit_launch(hw, data, res);
  fit_l2(hw, data, res);
  fit_gemm(hw, data, res);
  fit_concurrency(hw, data, res);
  // A field the base profile does not have cannot be written (apply_fits rewrites lines).
  for (auto& f : res.families) {
    std::vector<FittedField> kept;
    for (const auto& field : f.report.fields) {
      const bool present = std::any_of(hw.fields.begin(), hw.fields.end(),
                                       [&](const SourcedField& s) { return s.path == field.path; });
      if (present)
        kept.push_back(field);
      else
        res.warnings.push_back(fmt::format("{} = {:.6g} not written: {} has no such line",
                                           field.path, field.value, hw.file));
    }
    f.report.fields = kept;
  }
  return res;
}

}  // namespace ovs
