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
  // The kernel is launched only on some GPUs (ROCm's swa_scatter): where it is not, the rule is
  // skipped instead of being an error.
  bool optional = false;
  // Kernels of the op this one reads from in the model but, by this strategy's assumption, does
  // not need to run after (a candidate whose attention reads K/V from the projection output, not
  // from the cache the KV write fills). Each must be one of the kernel's dependencies.
  std::vector<std::string> independent_of;
  int line = 0;
  bool operator==(const Placement&) const = default;
};

struct LayerStrategy {
  std::vector<std::string> items;  // ops and yields, in order
  std::vector<int> lines;          // line of each item
  std::vector<Placement> placement;
  int line = 0;
  bool operator==(const LayerStrategy&) const = default;
};

// What SGLang calls this strategy (optional `sglang:` block): whether SGLang ships it, for which
// batches, the launch flags and environment that turn it on, and its limits there.
struct SglangInfo {
  bool given = false;
  std::string status;               // shipped | unsure | proposal | not-in-sglang
  std::vector<std::string> phases;  // prefill and/or decode: the batches SGLang runs it for
  std::vector<std::string> flags;   // e.g. --enable-two-batch-overlap
  std::vector<std::string> env;     // e.g. SGLANG_OPT_USE_MULTI_STREAM_OVERLAP=1
  std::map<std::string, int> max_tokens_per_gpu;  // by GPU arch (hopper, blackwell, cdna4)
  bool needs_cuda_graphs = false;
  std::string source, note;
  int line = 0;
  // SGLang can run it (shipped, or shipped as far as we know).
  bool runs_in_sglang() const { return status == "shipped" || status == "unsure"; }
  bool for_phase(const std::string& phase) const;
  bool operator==(const SglangInfo&) const = default;
};

struct Strategy {
  std::string file;
  std::string name;
  ModelFamily family = ModelFamily::v3;
  std::string description;
  std::string source;  // where the plan comes from (the file's `source:`)
  bool two_batch_overlap = false;
  int delta_stages = 0;
  int deep_gemm_num_sms = 0;    // 0: no limit
  bool deep_gemm_auto = false;  // all but the communication SMs
  std::optional<DeepepMode> deepep_mode;
  std::vector<std::string> side_streams;
  std::map<std::string, LayerStrategy> layers;  // by layer type; "default" for the others
  SglangInfo sglang;
  // The plan SGLang runs instead on another vendor's GPUs (vendor -> strategy name, line):
  // `multistream` is the CUDA plan; on AMD, SGLang's HIP plan (multistream-hip) runs.
  std::map<std::string, std::pair<std::string, int>> vendor_plans;
  std::string plan_of;  // set by for_vendor: the strategy the user named
  // SGLang's full op names read as ours ("layer.mlp.op_dispatch_a" -> "dispatch_a"), one line each.
  std::vector<std::string> notes;
  int family_line = 1;  // lines of model_family and layers, for errors
  int layers_line = 1;

  const LayerStrategy& for_type(LayerType type) const;
  bool operator==(const Strategy&) const = default;
};

// "deepseek-v3" | "deepseek-v4": the model_family a strategy file names, and its folder under
// strategies/.
const char* family_name(ModelFamily f);
std::string strategy_folder(ModelFamily f);

// By shipped name (strategies/deepseek-v3/ or deepseek-v4/ by the model's family) or path.
Strategy load_strategy(const std::string& name_or_path, ModelFamily family);
Strategy parse_strategy(const yaml::Value& root);
// The plan that runs on a GPU of `vendor` ("nvidia", "amd"): the strategy itself, or the one its
// vendor_plans name for that vendor (with plan_of set to the strategy's own name).
Strategy for_vendor(const Strategy& s, const std::string& vendor);
// Checks the strategy against a model's layers: op names, order, stages, placement.
// Throws InputError naming the strategy file, line and field.
void check_strategy(const Strategy& s, const LayerBuilder& layers);

// Our op name for one of SGLang's (operations_strategy.py spells them as attributes of the
// layer: "layer.mlp.op_dispatch_a", "layer.self_attn.op_core", "operations.YieldOperation()");
// empty when `name` is not in SGLang's form.
std::string op_from_sglang_name(const std::string& name);

// Stages of one layer type's list: ops between yields.
std::vector<std::vector<std::string>> stages_of(const LayerStrategy& l);

}  // namespace ovs
