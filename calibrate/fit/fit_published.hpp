#pragma once
// Fits a profile's cost-model parameters to published measurements with Eigen's
// Levenberg-Marquardt (relative residuals, so every row weighs the same).
#include <string>
#include <vector>

#include "calibrate/fit/measurements.hpp"

namespace ovs {

struct FittedField {
  std::string path;  // profile path, e.g. "kernels.gemm.tile_overhead_us"
  double value = 0;
  std::string source;
  // Its relative 1-sigma (the fit's standard error over the value), written as its `spread:`;
  // < 0: apply_fits derives one from the report's residuals (models/hw/spread.hpp).
  double spread = -1;
};

struct FitReport {
  std::string family;
  int rows = 0;
  double mape_before = 0;
  double mape_after = 0;
  std::vector<FittedField> fields;
  std::vector<std::string> worst;  // the rows the fit explains least, in words
};

// Fits what `csv_path` can inform on the profile (modified in place) and returns one report per
// fitted family. `provenance` goes into every fitted field's source (command, data, date).
std::vector<FitReport> fit_published(HwProfile& hw, const std::string& csv_path,
                                     const std::string& provenance);

// Rewrites the profile YAML text with the fitted values and sources, line by line.
std::string apply_fits(const std::string& yaml_text, const HwProfile& base,
                       const std::vector<FitReport>& fits);

}  // namespace ovs
