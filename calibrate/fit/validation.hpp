#pragma once
// Predicted against measured, row by row, with the mean absolute percentage error per family.
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
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

// The report's rows point into `set`, which must outlive it (a temporary set would leave them
// dangling, so that overload is deleted).
ValidationReport validate(const HwProfile& hw, const MeasurementSet& set);
ValidationReport validate(const HwProfile& hw, MeasurementSet&& set) = delete;

// The profile numbers a family's predictions read (profile paths; empty: all of them).
std::vector<std::string> fields_read_by(DataFamily f);

// `overlapsim validate DATA.csv`'s outputs (validation_report.cpp): one JSON object, or the table
// with MAPE per family and the profile numbers behind the predictions with their sources.
// `data`: the CSV's path as given.
nlohmann::ordered_json validation_json(const std::string& data, const HwProfile& hw,
                                       const MeasurementSet& set, const ValidationReport& r);
void write_validation_table(std::ostream& out, const std::string& data, const HwProfile& hw,
                            const MeasurementSet& set, const ValidationReport& r);

}  // namespace ovs
