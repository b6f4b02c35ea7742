#pragma once
// Memory per GPU of a model served with DP attention and expert parallelism: weights (by dtype;
// routed experts per GPU = (routed + redundant) / EP), the KV cache (the model's KV layout over
// the batch's sequences), the peak activations of the micro-batches (two-batch overlap changes
// it), DeepEP buffers, the CUDA-graph pool and a framework reserve - against the HBM capacity.
// Every number comes from the model config or the hardware profile; the terms and their sources
// are listed in the README (Robustness: memory model).
#include <string>
#include <vector>

#include "models/config/model_config.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

// Parameters of the whole model (one copy, not per GPU), by how they are stored.
struct ParamCounts {
  double attention = 0;  // attention projections (V4: with compressors and indexers), weight_dtype
  double dense_ffn = 0;  // FFNs of the dense layers, weight_dtype
  double shared_experts = 0;  // weight_dtype
  double per_expert = 0;      // one routed expert (gate, up and down projections), expert_dtype
  int moe_layers = 0;
  double routed_experts = 0;      // per_expert x routed experts x MoE layers
  double bf16 = 0;                // routers, norms, attention sinks, indexer weight projections
  double fp32 = 0;                // V4 mHC mixing matrices
  double embedding = 0;           // embedding and output head, embedding_dtype
  double hash_table_entries = 0;  // V4 hash-routed layers' token -> experts tables (int32)

  double total() const;
  // Per token: everything but the routed experts, plus top-k routed experts per MoE layer.
  double active(int topk) const;
};
ParamCounts param_counts(const ModelConfig& m);

struct MemoryTerm {
  std::string name;  // "weights: routed experts", "KV cache", "activations (peak)", ...
  double bytes = 0;
  std::string how;  // the arithmetic, for --explain
};

struct MemoryUse {
  std::vector<MemoryTerm> terms;
  double total_bytes = 0;
  double capacity_bytes = 0;
  bool fits() const { return total_bytes <= capacity_bytes; }
  double bytes_of(const std::string& name_prefix) const;  // sum of the terms starting with it
};

// `w`: the workload as a strategy runs it (DeepEP mode and CUDA graphs as that run resolved
// them); `split`: whether the batch runs as two micro-batches. InputError naming the profile when
// it lacks hbm.capacity_gb or its memory: section.
MemoryUse memory_per_gpu(const ModelConfig& m, const HwProfile& hw, const Workload& w, bool split);

// The parts, each in its own file.
std::vector<MemoryTerm> weight_terms(const ModelConfig& m, const Workload& w);
MemoryTerm kv_cache_term(const ModelConfig& m, const Workload& w);
MemoryTerm activation_term(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                           bool split);
std::vector<MemoryTerm> buffer_terms(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                                     bool split);

// DeepEP low-latency buffer (DeepEP csrc/config.hpp LowLatencyLayout): two alternating halves,
// each a send and a receive buffer of `experts` x `tokens_per_rank` messages.
double deepep_low_latency_bytes(int hidden, int experts, long long tokens_per_rank);

// Tokens the largest micro-batch dispatches per rank (the whole batch when not split).
long long largest_micro_batch_tokens(const Workload& w, bool split);

}  // namespace ovs
