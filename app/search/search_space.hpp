#pragma once
// The strategy space of one layer type: where the shared experts go, where the yields go
// (respecting the op order, no empty stage), delta stages 0-3, whether DeepGEMM gives up the
// DeepEP SMs, the DeepEP mode, and (V4) whether SGLang's side-stream plan is used.
#include <map>
#include <string>
#include <vector>

#include "app/strategy/strategy.hpp"

namespace ovs {

struct Candidate {
  std::vector<std::string> ops;   // one layer's ops in order
  std::vector<char> yield_after;  // per op: a yield after it (the last one: end of the layer)
  bool tbo = true;
  int delta = 0;
  bool deep_gemm_auto = false;
  DeepepMode mode = DeepepMode::low_latency;
  bool side_streams = false;

  int stages() const;  // stages of the layer list (segments between yields)
  std::string describe() const;
  LayerStrategy layer() const;  // operations with yields
};

// The options a search explores for one layer type.
struct SpaceOptions {
  std::vector<DeepepMode> modes;
  bool allow_deep_gemm_cap = true;  // normal mode only
  bool allow_side_streams = false;  // V4: SGLang's plan from a shipped strategy
  std::map<LayerType, std::vector<Placement>> side_plans;  // that plan's placement per layer type
  std::vector<std::string> side_streams;
};

// Op orders to try: the canonical order with the shared experts moved to every place the op DAG
// allows after the MoE prelude and before the output.
std::vector<std::vector<std::string>> op_orders(const std::vector<std::string>& canonical,
                                                const OpGraph& g);

// Gaps worth a yield in an order: next to a communication op, after attention, the layer's end.
std::vector<int> yield_gaps(const std::vector<std::string>& ops);

// A whole strategy (every layer type) from one candidate per type.
Strategy to_strategy(const std::string& name, ModelFamily family,
                     const std::vector<std::pair<LayerType, Candidate>>& per_type,
                     const SpaceOptions& opts);

// YAML text of a strategy that `whatif` accepts.
std::string strategy_yaml(const Strategy& s, const std::string& comment);

}  // namespace ovs
