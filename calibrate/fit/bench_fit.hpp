#pragma once
// `overlapsim calibrate --bench DIR`: fits the profile's parameters each microbenchmark family
// informs, with the bounded Levenberg-Marquardt fitter (lm_fit.hpp) on relative residuals
// (least absolute, so the fit minimises the MAPE the report shows):
//   hbm.csv     hbm.achievable_gbps and hbm.saturation_sms (the engine's bandwidth-vs-SMs curve
//               bw x min(1, sms / saturation_sms); a whole number of SMs, chosen among the
//               neighbours of the continuous optimum)
//   launch.csv  host.launch_eager_us, host.launch_graph_us, host.event_us,
//               kernels.memory.kernel_min_us
//   l2.csv      l2.achievable_gbps (working sets up to half the L2); l2.saturation_sms is not
//               informed: every L2 test runs on all SMs
//   gemm.csv    kernels.gemm efficiency per dtype, efficiency_m64_ratio, tile_overhead_us,
//               k_iteration_us (block-scaled FP8 rows only), epilogue_write_fraction,
//               fixed_latency_us
// in that order, each family on the profile as the previous ones left it. A parameter the rows
// do not constrain (standard error from the Jacobian over 25 % of its value, or a singular
// Jacobian) keeps the profile's number and the report says so. Checks that fit nothing:
// bench_checks.hpp.
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/fit/bench_csv.hpp"
#include "calibrate/fit/fit_published.hpp"

namespace ovs {

// One table of predicted against measured rows, with its residual summary (fractions).
// (summarize and print_bench_fit live in bench_validation.cpp, with the validate report.)
struct ResidualSummary {
  int rows = 0;
  double mape = 0;
  double median_abs = 0;
  double max_abs = 0;
  double bias = 0;                 // mean signed error
  std::vector<std::string> worst;  // the rows predicted worst, in words
};
ResidualSummary summarize(const HwProfile& hw, const std::vector<const Measurement*>& rows,
                          int worst = 3);

struct ParamFit {
  std::string path;
  double before = 0;
  double after = 0;
  // Standard error / value: infinity when the data does not inform it, NaN when there are no
  // more rows than parameters (no estimate).
  double rel_stderr = 0;
  bool written = false;   // false: not informed, the profile keeps its number
  bool at_bound = false;  // the fit ended on its box's edge
  std::string note;
};

struct BenchFamilyFit {
  FitReport report;  // fields written (with sources), MAPE before/after, worst rows
  ResidualSummary after;
  std::vector<ParamFit> params;
  std::vector<std::string> notes;
};

struct BenchFitResult {
  std::string gpu, date, dir;
  std::vector<BenchFamilyFit> families;
  std::vector<std::string> warnings;
  std::vector<FitReport> reports() const;  // for apply_fits
};

// Fits `hw` in place to the data; `dir_label` names the data in the sources.
BenchFitResult fit_bench(HwProfile& hw, const BenchData& data, const std::string& dir_label);

void print_bench_fit(std::ostream& out, const BenchFitResult& r);

}  // namespace ovs
