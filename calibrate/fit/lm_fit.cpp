#include "calibrate/fit/lm_fit.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

namespace ovs {
namespace {

// x = lo + (hi - lo) * (1 + tanh(u)) / 2 keeps x strictly inside the box for any u.
double to_box(double u, const FitParam& p) {
  return p.lo + (p.hi - p.lo) * 0.5 * (1.0 + std::tanh(u));
}
double from_box(double x, const FitParam& p) {
  const double t = std::clamp((x - p.lo) / (p.hi - p.lo), 1e-6, 1 - 1e-6);
  return std::atanh(2 * t - 1);
}

struct Functor {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  const std::vector<FitParam>* params;
  const ResidualFn* fn;
  int n_values;
  int* evaluations;

  int inputs() const { return static_cast<int>(params->size()); }
  int values() const { return n_values; }

  std::vector<double> decode(const Eigen::VectorXd& u) const {
    std::vector<double> x(params->size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = to_box(u[static_cast<Eigen::Index>(i)], (*params)[i]);
    return x;
  }
  int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& f) const {
    ++*evaluations;
    const auto r = (*fn)(decode(u));
    for (int i = 0; i < n_values; ++i) f[i] = std::isfinite(r[i]) ? r[i] : 1e6;
    return 0;
  }
};

}  // namespace

FitResult fit_least_squares(const std::vector<FitParam>& params, const ResidualFn& residuals,
                            int starts, double epsfcn) {
  FitResult best;
  int evaluations = 0;
  const int n_values = static_cast<int>(residuals([&] {
                                          std::vector<double> x;
                                          for (const auto& p : params) x.push_back(p.initial);
                                          return x;
                                        }())
                                            .size());
  for (int s = 0; s < std::max(1, starts); ++s) {
    Functor f{&params, &residuals, n_values, &evaluations};
    Eigen::NumericalDiff<Functor> nd(f, epsfcn);
    Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Functor>> lm(nd);
    Eigen::VectorXd u(static_cast<Eigen::Index>(params.size()));
    for (size_t i = 0; i < params.size(); ++i) {
      // Start 0 from the given initial values, the others spread deterministically in the box.
      const double frac = s == 0 ? -1 : (0.2 + 0.6 * std::fmod(0.618034 * (s * (i + 1)), 1.0));
      const double x0 =
          frac < 0 ? params[i].initial : params[i].lo + frac * (params[i].hi - params[i].lo);
      u[static_cast<Eigen::Index>(i)] = from_box(x0, params[i]);
    }
    lm.parameters.maxfev = 4000;
    lm.minimize(u);
    const auto x = f.decode(u);
    const auto r = residuals(x);
    double cost = 0;
    for (double v : r) cost += v * v;
    if (s == 0 || cost < best.cost) {
      best.values = x;
      best.residuals = r;
      best.cost = cost;
    }
  }
  best.evaluations = evaluations;
  return best;
}

FitResult fit_least_absolute(const std::vector<FitParam>& params, const ResidualFn& residuals,
                             int starts, int rounds, double epsfcn) {
  FitResult best = fit_least_squares(params, residuals, starts, epsfcn);
  auto l1 = [](const std::vector<double>& r) {
    double s = 0;
    for (double v : r) s += std::fabs(v);
    return s;
  };
  std::vector<FitParam> p = params;
  for (int round = 0; round < rounds; ++round) {
    // Weight each residual by 1/sqrt(|r|) of the previous solution: squares become |r|.
    std::vector<double> w(best.residuals.size());
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = 1.0 / std::sqrt(std::max(std::fabs(best.residuals[i]), 1e-3));
    for (size_t i = 0; i < p.size(); ++i) p[i].initial = best.values[i];
    auto weighted = [&](const std::vector<double>& x) {
      auto r = residuals(x);
      for (size_t i = 0; i < r.size(); ++i) r[i] *= w[i];
      return r;
    };
    FitResult next = fit_least_squares(p, weighted, 1, epsfcn);
    next.residuals = residuals(next.values);
    next.evaluations += best.evaluations;
    if (l1(next.residuals) >= l1(best.residuals)) break;
    best = next;
  }
  return best;
}

}  // namespace ovs
