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

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::map<std::string, double> mape;  // per family, as a fraction
  double mape_all = 0;
};

ValidationReport validate(const HwProfile& hw, const MeasurementSet& set);

}  // namespace ovs
