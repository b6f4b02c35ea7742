#pragma once
// One kernel asked about by kind and shape (`overlapsim kernel`): the cost model it maps to, with
// every shape number the question leaves out taken from a model's architecture (its config YAML:
// hidden size, heads, MLA or MQA head dims, KV bytes per token, experts, top-k, mHC) rather than
// from literals.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/config/model_config.hpp"
#include "models/cost/attention.hpp"
#include "models/cost/comm.hpp"
#include "models/cost/gemm.hpp"
#include "models/cost/kernel_cost.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct GemmQuery {
  GemmShape shape;
};

struct DeepepQuery {
  DeepepMode mode = DeepepMode::normal;
  CommOp op = CommOp::dispatch;
  int ep = 8;
  std::int64_t tokens = 0;     // on this rank
  std::optional<int> hidden;   // default: the model's hidden size
  std::optional<int> topk;     // default: the model's experts per token
  std::optional<int> experts;  // default: the model's routed experts
  int expert_groups = 1;       // 1: no group-limited routing
  int topk_groups = 1;
  int gpus_per_node = 0;  // 0: the profile's NVLink domain
};

struct AttentionQuery {
  AttentionKind kind = AttentionKind::mla_decode;
  std::int64_t batch = 1;
  std::int64_t q_len = 1;
  std::int64_t kv_len = 4096;
  std::optional<int> heads;  // default: the model's query heads
  // Default: the model's decode attention - MLA absorbed (kv_lora_rank + qk_rope_head_dim, and
  // kv_lora_rank) for V3, the single KV head's head_dim for V4.
  std::optional<int> d_qk, d_v;
  std::int64_t topk = 0;         // sparse attention: keys per query
  Dtype kv_dtype = Dtype::bf16;  // fp8: the model's kv_bytes_per_token; bf16: 2 x d_qk bytes
};

enum class MemoryOp {
  rmsnorm,
  rope,
  quantize,
  swiglu,
  residual_add,
  router_topk,
  cumsum,
  kv_write,
  mhc_pre,
  mhc_post,
  gather,
};
// The words `overlapsim kernel --memory` takes, in this order.
const std::vector<std::string>& memory_op_names();
std::optional<MemoryOp> memory_op_named(std::string_view name);

struct MemoryQuery {
  MemoryOp op = MemoryOp::rmsnorm;
  std::int64_t tokens = 0;
  std::optional<int> dim;      // default: the model's hidden size (swiglu: its width)
  std::optional<int> heads;    // rope; default: the model's query heads
  std::optional<int> experts;  // router_topk; default: the model's routed experts
  std::optional<int> topk;     // router_topk, gather (copies); default: the model's top-k
};

using KernelQuery = std::variant<GemmQuery, DeepepQuery, AttentionQuery, MemoryQuery>;

// The model whose numbers a query takes when none is named: DeepSeek-V3, or DeepSeek-V4-Pro for
// the mHC kernels (V3 has no mHC).
std::string default_model_for(const KernelQuery& q);

// The kernels the query is (a DeepEP low-latency op is three), priced alone on `hw`. `sms` > 0
// prices them on that many SMs (GEMM, attention and memory kernels: an SM cap; DeepEP normal
// mode: its SMs). InputError naming the model's file when it lacks what the query needs.
std::vector<KernelCost> kernel_costs(const HwProfile& hw, const ModelConfig& model,
                                     const KernelQuery& q, int sms);

}  // namespace ovs
