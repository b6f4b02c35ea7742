#pragma once
// A model's architecture (models/configs/<name>.yaml), every number with its source.
#include <string>
#include <utility>
#include <vector>

#include "models/hw/spread.hpp"
#include "sim/core/work.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {

enum class ModelFamily { v3, v4 };

struct ModelConfig {
  std::string file;
  std::string name;
  ModelFamily family = ModelFamily::v3;
  int hidden = 0;
  int layers = 0;
  int dense_layers = 0;
  int dense_inter = 0;
  int vocab = 0;
  // attention (V3: MLA; V4: single KV head, sliding window, compressors, indexer)
  int heads = 0;
  int q_lora_rank = 0;
  int kv_lora_rank = 0;      // V3
  int qk_nope_head_dim = 0;  // V3
  int qk_rope_head_dim = 0;  // V3
  int v_head_dim = 0;        // V3
  int head_dim = 0;          // V4
  int rope_dim = 0;          // V4
  int o_groups = 0;          // V4
  int o_lora_rank = 0;       // V4
  int sliding_window = 0;    // V4
  int index_heads = 0;       // V4 (and V3.2)
  int index_head_dim = 0;
  int index_topk = 0;
  double kv_bytes_per_token = 0;  // the cost model's KV entry (attention reads, KV writes)
  // What SGLang's KV pool stores (attention.kv_cache; the memory model, models/memory/): the dtype
  // --kv-cache-dtype auto resolves to (bf16 or fp8), V4's scale bytes per FP8 entry, the context
  // length (max_position_embeddings: the request-to-token table's width) and SGLang's default
  // max running requests for the model (0: SGLang's formula from the pool).
  Dtype kv_auto_dtype = Dtype::bf16;
  int kv_fp8_scale_bytes = 0;
  int kv_context_len = 0;
  int kv_default_max_running_requests = 0;
  std::vector<int> compress_ratios;  // V4, one per layer: 0 window only, 4 CSA, 128 HCA
  int hc_mult = 0;                   // V4 mHC
  int sinkhorn_iters = 0;
  // MoE
  int routed_experts = 0;
  int topk = 0;
  int shared_experts = 0;
  int moe_inter = 0;
  int expert_groups = 1;
  int topk_groups = 1;
  int hash_layers = 0;
  // Spread (coefficient of variation) of one physical expert's load in a batch under SGLang's
  // EPLB placement: how uneven the ranks' loads are (models/cost/rank_spread.hpp).
  double expert_load_cv = 0;
  // How much the tokens of one sequence favour some experts: the spread (cv) of an expert's share
  // of one sequence's rows across sequences (routing locality, models/cost/rank_spread.hpp).
  double sequence_expert_cv = 0;
  Dtype expert_dtype = Dtype::fp8;
  // How the checkpoint stores its weights (the memory model, models/memory/): the linear layers
  // outside the routed experts in `weight_dtype` with one scale of `weight_scale_bytes` per
  // `weight_scale_block` weights; the routed experts in expert_dtype with their own scales;
  // embedding and output head in `embedding_dtype`.
  Dtype weight_dtype = Dtype::fp8;
  int weight_scale_block = 0;
  int weight_scale_bytes = 0;
  int expert_scale_block = 0;
  int expert_scale_bytes = 0;
  Dtype embedding_dtype = Dtype::bf16;
  // Multi-token prediction (optional `mtp:` block): the share of drafted second tokens the main
  // model accepts; 0 when the config gives none (overlapsim plan then does not search MTP).
  double mtp_acceptance_rate = 0;
  // Every number read, with its source and spread: where the numbers came from, not part of
  // the config's identity (two configs with the same numbers compare equal).
  struct Fields : std::vector<SourcedField> {
    bool operator==(const Fields&) const { return true; }
  };
  Fields fields;
  bool operator==(const ModelConfig&) const = default;
};

ModelConfig load_model_config(const std::string& name_or_path);
// The same with fields overridden by dotted path (a sweep axis such as "moe.topk").
ModelConfig load_model_config(const std::string& name_or_path,
                              const std::vector<std::pair<std::string, std::string>>& overrides);
ModelConfig parse_model_config(const yaml::Value& root);

}  // namespace ovs
