#include "calibrate/fit/validation.hpp"

#include <cmath>

namespace ovs {

ValidationReport validate(const HwProfile& hw, const MeasurementSet& set) {
  ValidationReport r;
  std::map<std::string, int> count;
  double total = 0;
  for (const auto& m : set.rows) {
    ValidationRow row;
    row.m = &m;
    row.predicted_us = m.predict_us(hw);
    row.error = (row.predicted_us - m.measured_us) / m.measured_us;
    r.mape[m.family] += std::fabs(row.error);
    count[m.family] += 1;
    MapeSplit& split = (m.in_sample ? r.in_sample : r.held_back)[m.family];
    split.mape += std::fabs(row.error);
    split.rows += 1;
    total += std::fabs(row.error);
    r.rows.push_back(row);
  }
  for (auto& [family, sum] : r.mape) sum /= count[family];
  for (auto* split : {&r.in_sample, &r.held_back})
    for (auto& [family, s] : *split) s.mape /= s.rows;
  r.mape_all = r.rows.empty() ? 0 : total / r.rows.size();
  return r;
}

}  // namespace ovs
