#include "models/hw/spread.hpp"

#include <algorithm>
#include <cmath>

#include <filesystem>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {

double normal_quantile(double u) {
  // P. J. Acklam's algorithm: rational approximations on the central region and the tails.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  u = std::clamp(u, 1e-12, 1 - 1e-12);
  if (u < kLow) {
    const double q = std::sqrt(-2 * std::log(u));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (u > 1 - kLow) return -normal_quantile(1 - u);
  const double q = u - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double Spread::quantile(double value, double u, const yaml::NumberRange& legal) const {
  if (exact()) return value;
  // A legal range open at its minimum ("must be > 0") keeps the draw just inside it.
  const double min = legal.min_exclusive ? std::nextafter(legal.min, legal.max) : legal.min;
  // The distribution truncated to the legal range, not clamped to it: u spreads over the legal
  // part only, so no draw piles up on a bound (an efficiency of 0.98 +- 10 % is never 1.0 in a
  // quarter of the draws) and the Latin hypercube's strata stay equal in probability.
  double x = value;
  if (kind == Kind::relative) {
    const double scale = std::abs(value) * relative;
    if (scale > 0) {
      const double a = normal_cdf((min - value) / scale),
                   b = normal_cdf((legal.max - value) / scale);
      x = b > a ? value + scale * normal_quantile(a + u * (b - a)) : value;
    }
  } else {
    const double l = std::max(lo, min), h = std::min(hi, legal.max);
    x = h > l ? l + u * (h - l) : value;
  }
  return std::clamp(x, min, legal.max);
}

std::string Spread::text() const {
  switch (kind) {
    case Kind::none:
      return "not stated (exact)";
    case Kind::relative:
      return relative == 0 ? "exact" : fmt::format("±{:.3g} %", relative * 100);
    case Kind::range:
      return fmt::format("[{:g}, {:g}]", lo, hi);
  }
  return "";
}

Spread read_spread(const yaml::Map& m, double value) {
  Spread s;
  const auto spread = m.optional("spread"), range = m.optional("range");
  if (spread && range) range->fail("give spread: or range:, not both");
  if (spread) {
    s.kind = Spread::Kind::relative;
    s.relative = spread->number({0, 10, false});
  } else if (range) {
    const auto items = range->items();
    if (items.size() != 2) range->fail("must be [lo, hi]");
    s.kind = Spread::Kind::range;
    s.lo = items[0].number({-1e300, 1e300, false});
    s.hi = items[1].number({-1e300, 1e300, false});
    if (!(s.lo <= value && value <= s.hi))
      range->fail(fmt::format("[{:g}, {:g}] must contain the value {:g}", s.lo, s.hi, value));
  }
  return s;
}

void require_spreads(const std::vector<SourcedField>& fields, const std::string& file) {
  for (const auto& f : fields)
    if (!f.list && !f.spread.stated())
      throw InputError(file, f.line, f.path,
                       "states no spread: every number of a shipped file says how sure it is "
                       "(spread: relative 1-sigma, or range: [lo, hi]; models/hw/spread.hpp)");
}

bool is_shipped_file(const std::string& path, const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::path(data_root()) / folder, ec);
  if (ec) return false;
  const fs::path file = fs::weakly_canonical(fs::path(path), ec);
  if (ec) return false;
  // The folder itself or one of its sub-folders.
  const auto [d, f] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
  return d == dir.end();
}

}  // namespace ovs
