#pragma once
// How sure a profile or model-config number is: its spread, stated beside its value and source.
//
//   achievable_gbps: {value: 2792, spread: 0.04, source: "fitted ..."}
//   latency_us: {value: 2, range: [1, 4], source: "guess: ..."}
//
// Two forms, because the numbers come in two kinds. A measured, fitted or published number has
// a best value and an error about it: `spread: s` is its relative 1-sigma (a normal of standard
// deviation s x value), which is what a fit's standard error or a datasheet's tolerance gives.
// A guess has no best value to be wrong about, only bounds someone can defend: `range: [lo, hi]`
// is a uniform between them (it must contain the value), so the bounds the YAML states are the
// claim and nothing narrower is implied. `spread: 0` marks a number that is exact (a count, a
// size, a vendor's definition). Draws are clamped to the field's legal range.
#include <string>
#include <vector>

#include "sim/io/yaml_reader.hpp"

namespace ovs {

struct Spread {
  enum class Kind { none, relative, range };
  Kind kind = Kind::none;  // none: the file states none (a user's own file: exact)
  double relative = 0;     // 1-sigma over the value (Kind::relative)
  double lo = 0, hi = 0;   // uniform bounds (Kind::range)

  bool stated() const { return kind != Kind::none; }
  // True when every draw is the value itself.
  bool exact() const {
    return kind == Kind::none || (kind == Kind::relative && relative == 0) ||
           (kind == Kind::range && lo == hi);
  }
  // The number at quantile u in (0, 1) of its distribution around `value`, truncated to `legal`
  // (not clamped: no draw piles up on a bound).
  double quantile(double value, double u, const yaml::NumberRange& legal) const;
  // "±4 %", "[1, 4]", "exact", "not stated".
  std::string text() const;
};

// Reads `spread:` or `range:` from a {value, source, ...} map (neither: Kind::none); a negative
// spread, both keys, or a range that misses the value is the file's error at its line.
Spread read_spread(const yaml::Map& m, double value);

// Inverse of the standard normal's CDF (Acklam's rational approximation, |error| < 1.2e-9).
double normal_quantile(double u);
// The standard normal's CDF, Phi(z).
double normal_cdf(double z);

// A number of a profile or model config as its file gives it.
struct SourcedField {
  std::string path;  // e.g. "hbm.achievable_gbps"
  double value = 0;
  std::string source;  // empty when the file gave a bare number
  int line = 0;
  bool list = false;        // a list of whole numbers; value is its first entry
  Spread spread;            // how sure the number is (models/hw/spread.hpp)
  yaml::NumberRange legal;  // the values the loader accepts (draws stay inside)
};

// Throws the file's error (file, line, field) at the first number of `fields` that states no
// spread: every number of a shipped profile or model config says how sure it is. A list of whole
// numbers (tile sizes) is a choice, not a measurement, and needs none.
void require_spreads(const std::vector<SourcedField>& fields, const std::string& file);
// True when `path` is a file of the shipped data folder `folder` (hw_profiles, models/configs).
bool is_shipped_file(const std::string& path, const std::string& folder);

}  // namespace ovs
