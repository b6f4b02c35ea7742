#pragma once
// Turns a model, a GPU and a micro-batch into each layer's ops and their kernels (with Work from
// the cost models), following SGLang's operation vocabulary. The ops of a layer form a DAG
// (op_graph); strategies may order them differently as long as they respect it.
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/config/model_config.hpp"
#include "models/cost/comm.hpp"
#include "models/cost/kernel_cost.hpp"
#include "models/graph/layer_type.hpp"
#include "models/graph/op_graph.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

// The stage a kernel belongs to: its name up to the first '/' ("compressor_pool/softmax" ->
// "compressor_pool"); strategies place stages, and kernel_deps name them.
inline std::string_view kernel_group(std::string_view name) {
  return name.substr(0, name.find('/'));
}

// A kernel of DeepSeek-V4's attention-prepare side branches (the KV write with ROCm's scatter and
// index cumsum, the compressor, the indexer) - what --v4-kernels changes (layer_v4_side.cpp).
inline bool is_v4_side_branch(std::string_view name) {
  for (std::string_view side : {"kv_write", "swa_scatter", "kv_indptr", "compressor", "indexer"})
    if (name.substr(0, side.size()) == side) return true;
  return false;
}

struct OpKernel {
  // Stable within its op: "wqkv_a", "q_b", "indexer_logits", ...; a part of a stage that a code
  // path splits into several launches is "stage/part" (kernel_group gives the stage).
  std::string name;
  KernelCost cost;
  bool deep_gemm = false;  // a DeepGEMM kernel: deep_gemm_num_sms applies
};

struct OpPlan {
  std::string op;
  std::vector<OpKernel> kernels;    // compute ops
  std::optional<DeepepShape> comm;  // dispatch_* / combine_*: DeepEP
  // The DeepEP kernels this op launches, named by role: normal "layout", "notify", "dispatch",
  // "combine" (DeepEP's stream); low-latency "send", "in_flight" (no SM), "recv" (polls).
  std::vector<OpKernel> comm_kernels;
  std::vector<std::pair<std::string, std::string>>
      kernel_deps;  // (producer, consumer) inside the op
};

struct LayerPlan {
  int index = 0;
  LayerType type = LayerType::moe;
  std::vector<OpPlan> ops;  // canonical order
  // What the hottest rank's extra expert rows cost it alone over the simulated (mean) rank's
  // routed experts: the rest of the ranks wait that long at the combine (rank_waits).
  double hot_rank_experts_extra_us = 0;
  const OpPlan* find(const std::string& op) const;
};

class LayerBuilder {
 public:
  LayerBuilder(const ModelConfig& model, const HwProfile& hw, const Workload& w);
  // Not copyable: its look-up tables point into its own memo (a move keeps the memo's nodes).
  LayerBuilder(const LayerBuilder&) = delete;
  LayerBuilder& operator=(const LayerBuilder&) = delete;
  LayerBuilder(LayerBuilder&&) = default;
  LayerBuilder& operator=(LayerBuilder&&) = default;

  // v3: dense or moe; v4: swa (window only), csa (ratio 4), hca (ratio 128).
  LayerType layer_type(int layer) const;
  // The types the model's layers have, in order of first appearance.
  std::vector<LayerType> layer_types() const;
  // The attention backend the layers use (nullptr: the profile's efficiencies, no backends).
  const AttentionBackend* attention_backend() const { return attention_backend_; }
  // The ops of a layer type and their dependencies.
  const OpGraph& op_graph(LayerType type) const;
  // Ops of the family's vocabulary (SGLang's names) in canonical order: the order the op graph
  // declares them, which is one of its topological orders.
  std::vector<std::string> canonical_ops(LayerType type) const;
  // Kernel names of an op of a layer type (for placement rules).
  std::vector<std::string> kernel_names(LayerType type, const std::string& op) const;
  // (producer, consumer) kernel pairs inside an op of a layer type: what a placement on side
  // streams must keep in order (check_strategy).
  // Valid as long as the builder lives.
  const std::vector<std::pair<std::string, std::string>>& kernel_deps(LayerType type,
                                                                      const std::string& op) const;

  LayerPlan build(int layer, const MicroBatch& mb, const std::string& mb_name) const;
  // The same, memoized per kind of layer (layers of one type share the plan; their tensors are
  // scoped kThisLayer): valid as long as the builder lives.
  const LayerPlan& plan(int layer, const MicroBatch& mb, const std::string& mb_name) const;
  std::vector<OpKernel> prologue(const MicroBatch& mb) const;  // embedding lookup
  std::vector<OpKernel> epilogue(const MicroBatch& mb) const;  // final norm, LM head

  const ModelConfig& model() const { return m_; }
  const HwProfile& hw() const { return hw_; }
  const Workload& workload() const { return w_; }

 private:
  void build_v3(LayerPlan& p, int layer, const MicroBatch& mb, const std::string& mbn) const;
  void build_v4(LayerPlan& p, int layer, const MicroBatch& mb, const std::string& mbn) const;
  // The attention prepare's side branches (KV write, compressor, indexer) by code path
  // (layer_v4_side.cpp).
  void build_v4_side(OpPlan& attn, int layer, const MicroBatch& mb, const std::string& act,
                     int ratio) const;
  void add_moe_ops(LayerPlan& p, int layer, const MicroBatch& mb, const std::string& mbn) const;
  DeepepShape deepep_shape(const MicroBatch& mb, CommOp op) const;
  void rank_waits(LayerPlan& p) const;

  const ModelConfig& m_;
  const HwProfile& hw_;
  Workload w_;                                           // a copy: callers often pass a temporary
  const AttentionBackend* attention_backend_ = nullptr;  // in hw_; nullptr: the profile's own
  std::vector<std::pair<LayerType, OpGraph>> graphs_;
  LayerPlan build_uncached(int layer, const MicroBatch& mb, const std::string& mb_name) const;
  const OpPlan* sample_op(LayerType type, const std::string& op) const;
  static void scope_tensors(LayerPlan& p, int layer);
  mutable std::map<std::string, LayerPlan> memo_;  // not shared between threads
  struct RecentPlan {
    LayerType type;
    bool hashed;
    std::string mb_name;
    MicroBatch mb;
    const LayerPlan* plan;
  };
  mutable std::vector<RecentPlan> recent_;  // memo_ entries, looked up without their key
  mutable std::deque<LayerPlan> uncached_;  // plans made with the caches off
};

}  // namespace ovs
