#pragma once
// The layer benchmark's runs against the engine (`overlapsim validate DIR` where DIR holds the
// layer family's layer.csv, and for each plan run the PLAN.plan and PLAN.yaml that `whatif
// --export-layers` wrote): the engine predicts each exported program from its cost models (the
// communication stand-ins at the durations the GPU ran), and the report compares per kernel
// (alone and in the run, MAPE), per window (the layers' time), and - the figure that matters -
// the overlapped-over-serial ratio of each strategy against the baseline exported with it.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ovs {

struct LayerPlanCheck {
  std::string plan, strategy, point, hardware;
  int first_layer = 0, layers = 1;
  double measured_window_us = 0, predicted_window_us = 0;
  double mape_alone = 0, mape_in_run = 0;  // over kernels other than stand-ins, in %
  int kernels = 0, compared = 0;
  double window_error() const { return predicted_window_us / measured_window_us - 1; }
};

struct LayerRatioCheck {
  std::string point, strategy, baseline;
  double measured = 0, predicted = 0;  // overlapped window / serial window
  double error() const { return predicted / measured - 1; }
};

struct LayerValidation {
  std::string dir;
  std::vector<LayerPlanCheck> plans;
  std::vector<LayerRatioCheck> ratios;
};

bool has_layer_runs(const std::string& dir);
LayerValidation validate_layer_runs(const std::string& dir);
void write_layer_validation(std::ostream& out, const LayerValidation& v);
nlohmann::ordered_json layer_validation_json(const LayerValidation& v);

}  // namespace ovs
