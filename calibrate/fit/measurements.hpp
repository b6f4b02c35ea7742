#pragma once
// Published measurements (../shared/data/*.csv) as rows the cost models can predict: each row
// knows its measured time and how to predict it on a hardware profile through the engine.
// The CSV family is recognised by its header.
#include <functional>
#include <string>
#include <vector>

#include "models/cost/kernel_cost.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

enum class DataFamily { deepgemm, deepep, flashmla, gpus, seed, unknown };
const char* family_name(DataFamily f);

struct Measurement {
  std::string family;     // deepgemm, deepep_normal, deepep_low_latency, flashmla
  std::string label;      // shape in words
  bool in_sample = true;  // used for fitting (false: held back, only predicted)
  int line = 0;           // CSV line
  double measured_us = 0;
  std::function<double(const HwProfile&)> predict_us;
  // Predicted through an engine run (times on its 2^-20 us grid): a fit over such rows needs
  // forward-difference steps above the grid (lm_fit.hpp, kThroughEngineEpsfcn).
  bool through_run = false;
};

// The forward-difference setting a fit over `rows` needs (lm_fit.hpp).
double epsfcn_for(const std::vector<const Measurement*>& rows);

struct MeasurementSet {
  DataFamily family = DataFamily::unknown;
  std::vector<Measurement> rows;
  std::vector<std::string> skipped;  // "line N: why"
};

struct SelectOptions {
  bool all_versions = false;  // default: only the current kernels' rows (latest table)
};

// Rows of `csv_path` that apply to the profile's GPU. InputError on a malformed file.
MeasurementSet load_measurements(const std::string& csv_path, const HwProfile& hw,
                                 const SelectOptions& o = {});

// Solo time of what a row's kernels take on the profile, through the engine.
double solo_us(const HwProfile& hw, const std::vector<KernelCost>& kernels);

}  // namespace ovs
