#pragma once
// Predicted against measured, row by row, with the mean absolute percentage error per family.
#include <map>
#include <string>
#include <vector>

#include "calibrate/fit/measurements.hpp"

namespace ovs {

struct ValidationRow {
  const Measurement* m = nullptr;
  double predicted_us = 0;
  double error = 0;  // (predicted - measured) / measured
};

struct MapeSplit {
  int rows = 0;
  double mape = 0;  // as a fraction
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::map<std::string, double> mape;  // per family, as a fraction
  double mape_all = 0;
  // Per family: rows the profile was fitted to (in-sample) and rows held back from the fit.
  std::map<std::string, MapeSplit> in_sample, held_back;
};

ValidationReport validate(const HwProfile& hw, const MeasurementSet& set);

}  // namespace ovs
