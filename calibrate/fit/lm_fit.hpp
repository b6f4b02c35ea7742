#pragma once
// Bounded nonlinear least squares with Eigen's Levenberg-Marquardt (unsupported module):
// parameters are mapped to their [lo, hi] box through a smooth transform, the Jacobian is taken
// by forward differences, and several starts inside the box guard against local minima.
#include <functional>
#include <string>
#include <vector>

namespace ovs {

struct FitParam {
  std::string name;
  double initial = 0;
  double lo = 0;
  double hi = 1;
};

struct FitResult {
  std::vector<double> values;
  std::vector<double> residuals;  // at the solution
  double cost = 0;                // sum of squared residuals
  int evaluations = 0;
};

// residuals(params) must return the same number of residuals at every call.
using ResidualFn = std::function<std::vector<double>(const std::vector<double>&)>;

// Forward-difference step of the Jacobian: sqrt(epsfcn) x |u| of the box-mapped parameter u.
// 0 is Eigen's default (1.5e-8 relative), which the closed-form published fits use; residuals
// computed through an engine run need steps above its 2^-20 us time grid (kThroughEngine, 1e-4).
inline constexpr double kDefaultEpsfcn = 0;
inline constexpr double kThroughEngineEpsfcn = 1e-8;

FitResult fit_least_squares(const std::vector<FitParam>& params, const ResidualFn& residuals,
                            int starts = 4, double epsfcn = kDefaultEpsfcn);

// Least absolute residuals (what a mean absolute percentage error measures), by iteratively
// reweighted least squares on top of fit_least_squares.
FitResult fit_least_absolute(const std::vector<FitParam>& params, const ResidualFn& residuals,
                             int starts = 4, int rounds = 6, double epsfcn = kDefaultEpsfcn);

}  // namespace ovs
