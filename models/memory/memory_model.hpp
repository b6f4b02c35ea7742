#pragma once
// Memory per GPU as an SGLang process holds it, with DP attention and expert parallelism
// (../shared/data/sglang_flags_memory.md section B):
//   - SGLang gives `--mem-fraction-static` f of the GPU's memory C to the weights and a KV pool
//     sized up front: pool = f x C - weights (B2). f is the workload's, else SGLang's own default
//     (B1, mem_fraction.cpp) for the launch `overlapsim plan` prints (sglang_server.cpp).
//   - Everything else lives in the rest, (1 - f) x C: fixed overheads (CUDA context, NCCL and
//     workspaces, DeepEP's buffers, the CUDA-graph pool, the request-to-token table), the peak
//     transients of the hottest rank and an allowance for the allocator's fragmentation.
// A batch runs when (limits, in the order SGLang meets them):
//   weights    the weights leave a pool: weights < f x C ("Not enough memory" at start);
//   kv_pool    the batch's KV cache fits in the pool;
//   transient  transients x (1 + fragmentation) <= (1 - f) x C - fixed overheads.
// A point within 5 % of a limit is tight. Every number comes from the model config, the hardware
// profile's memory: section or the workload; the README (Memory model) lists the terms.
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

// What a term is, for the fit check.
enum class MemoryKind {
  weights,    // inside f x C
  kv_pool,    // inside f x C: the pool SGLang allocates
  kv_batch,   // the batch's KV cache: inside the pool, not held besides it
  transient,  // the peak of what a forward allocates and frees
  overhead,   // fixed, outside f x C
};

// The limit a point breaks, or (when it fits) the nearest one a larger batch would meet (the KV
// pool or the transients; the weights only when they leave the pool within the tight margin).
enum class MemoryLimit { weights, kv_pool, transient };
const char* memory_limit_name(MemoryLimit l);  // "weights", "kv_pool", "transient"

struct MemoryTerm {
  std::string name;  // "weights: routed experts", "KV pool", "activations (peak)", ...
  double bytes = 0;
  std::string how;  // the arithmetic and its source, for --explain
  MemoryKind kind = MemoryKind::overhead;
};

// A point within this share of a limit is marked tight.
inline constexpr double kTightMargin = 0.05;

struct MemoryUse {
  std::vector<MemoryTerm> terms;
  double capacity_bytes = 0;  // C: the GPU's memory as the process sees it
  double fraction = 0;        // f: --mem-fraction-static as used
  std::string fraction_how;   // given, or SGLang's default with its arithmetic
  double weights_bytes = 0;
  double pool_bytes = 0;  // f x C - weights (may be <= 0: no pool)
  double kv_bytes = 0;    // the batch's KV cache
  double transient_bytes = 0;
  double fragmentation_bytes = 0;  // allowance on the transients
  double overhead_bytes = 0;       // fixed, outside f x C
  double total_bytes = 0;          // held at the peak: weights, pool, overheads, transients
  MemoryLimit limited_by = MemoryLimit::kv_pool;
  double margin = 0;  // of `limited_by`: the share of that limit left (< 0: broken)
  bool fits_ = false;
  bool tight = false;  // fits, within kTightMargin of `limited_by`

  bool fits() const { return fits_; }
  double static_bytes() const { return fraction * capacity_bytes; }  // weights + pool
  // What the transients may take: (1 - f) x C - fixed overheads.
  double transient_budget_bytes() const { return (1 - fraction) * capacity_bytes - overhead_bytes; }
  double bytes_of(const std::string& name_prefix) const;  // sum of the terms starting with it
  // One sentence: what binds and by how much ("the batch's KV cache 40.1 GB exceeds ...").
  std::string limit_sentence() const;
};

// `w`: the workload as a strategy runs it (DeepEP mode and CUDA graphs as that run resolved
// them); `split`: whether the batch runs as two micro-batches. InputError naming the profile when
// it lacks hbm.capacity_gb or its memory: section, or naming kv_cache_dtype when the model has no
// layout for it.
MemoryUse memory_per_gpu(const ModelConfig& m, const HwProfile& hw, const Workload& w, bool split);

// The GPU's memory as the process sees it: memory.device_mib when the profile gives it, else
// hbm.capacity_gb.
double device_capacity_bytes(const HwProfile& hw);

// KV cache layout: bytes one token takes in one layer of SGLang's pool for a KV dtype (bf16 or
// fp8): V3 (MLA) (kv_lora_rank + qk_rope_head_dim) x the dtype's bytes; V4 in FP8 the packed
// FlashMLA layout, nope dims in FP8 + rope dims in BF16 + kv_cache.fp8_scale_bytes. InputError
// naming kv_cache_dtype for a layout SGLang does not have here (V4 in BF16).
double kv_bytes_per_token_per_layer(const ModelConfig& m, Dtype kv_dtype);
// The dtype the workload asks for, auto resolved by the model config (kv_cache.auto_dtype).
Dtype kv_dtype_of(const ModelConfig& m, const Workload& w);
const char* kv_dtype_name(Dtype d);  // SGLang's spelling: "bf16", "fp8_e4m3"

// The parts, each in its own file.
std::vector<MemoryTerm> weight_terms(const ModelConfig& m, const Workload& w);
MemoryTerm kv_cache_term(const ModelConfig& m, const Workload& w);
MemoryTerm activation_term(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                           bool split);
// DeepEP buffers, the CUDA-graph pool and the framework reserve.
std::vector<MemoryTerm> buffer_terms(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                                     bool split);
// SGLang's request-to-token table (int32, a row per request slot, context_len + 4 + draft tokens
// wide), allocated from what f leaves; `pool_tokens`: the KV pool's size in tokens.
MemoryTerm req_to_token_term(const ModelConfig& m, const HwProfile& hw, const Workload& w,
                             double pool_tokens);

// DeepEP low-latency buffer (DeepEP csrc/config.hpp LowLatencyLayout): two alternating halves,
// each a send and a receive buffer of `experts` x `tokens_per_rank` messages.
double deepep_low_latency_bytes(int hidden, int experts, long long tokens_per_rank);

// Tokens the largest micro-batch dispatches per rank (the whole batch when not split).
long long largest_micro_batch_tokens(const Workload& w, bool split);

// Tensor-parallel size of the dense layers' FFN (SGLang's --moe-dense-tp-size): 1 when the
// workload asks for it, else the instance's TP size (EP: DP attention over the EP group).
int dense_tp_size(const Workload& w);

}  // namespace ovs
