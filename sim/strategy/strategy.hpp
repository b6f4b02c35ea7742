#pragma once
// Overlap strategies (strategies/<model family>/<name>.yaml): SGLang's operation lists with
// yields, tbo_delta_stages, deep_gemm_num_sms and the DeepEP mode, plus side-stream placement of
// kernels with record/wait events for multi-stream plans. Format: README "Strategies".
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/cost/comm.hpp"
#include "models/graph/layer_builder.hpp"

namespace ovs {

inline constexpr const char* kYield = "yield";

struct Placement {
  std::string op;      // the op whose kernel this is
  std::string kernel;  // kernel name within the op
  std::string stream = "compute";
  std::vector<std::string> wait;    // events to wait for first ("prev:NAME": the previous layer's)
  std::vector<std::string> record;  // events to record after it
  int sm_cap = 0;
  int line = 0;
};

struct LayerStrategy {
  std::vector<std::string> items;  // ops and yields, in order
  std::vector<int> lines;          // line of each item
  std::vector<Placement> placement;
  int line = 0;
};

struct Strategy {
  std::string file;
  std::string name;
  ModelFamily family = ModelFamily::v3;
  std::string description;
  bool two_batch_overlap = false;
  int delta_stages = 0;
  int deep_gemm_num_sms = 0;    // 0: no limit
  bool deep_gemm_auto = false;  // all but the communication SMs
  std::optional<DeepepMode> deepep_mode;
  std::vector<std::string> side_streams;
  std::map<std::string, LayerStrategy> layers;  // by layer type; "default" for the others
  int family_line = 1;                          // lines of model_family and layers, for errors
  int layers_line = 1;

  const LayerStrategy& for_type(const std::string& type) const;
};

// By shipped name (strategies/deepseek-v3/ or deepseek-v4/ by the model's family) or path.
Strategy load_strategy(const std::string& name_or_path, ModelFamily family);
Strategy parse_strategy(const yaml::Value& root);
// Checks the strategy against a model's layers: op names, order, stages, placement.
// Throws InputError naming the strategy file, line and field.
void check_strategy(const Strategy& s, const LayerBuilder& layers);

// Stages of one layer type's list: ops between yields.
std::vector<std::vector<std::string>> stages_of(const LayerStrategy& l);

}  // namespace ovs
