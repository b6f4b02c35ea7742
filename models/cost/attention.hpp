#pragma once
// Attention cost models: MLA decode (FlashMLA-style: KV bytes and 2*h*s_q*s_k*(d_k+d_v) FLOPs),
// dense causal prefill (MHA mode), sparse attention (V3.2 top-k; V4 sliding window plus
// compressed entries), the V3.2/V4 indexer (FP8 logits, then top-k) and the V4 compressor.
#include <cstdint>
#include <string>
#include <vector>

#include "models/cost/kernel_cost.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

enum class AttentionKind { mla_decode, sparse_decode, dense_prefill, sparse_prefill };
const char* attention_kind_name(AttentionKind k);

struct AttentionShape {
  AttentionKind kind = AttentionKind::mla_decode;
  std::int64_t batch = 1;   // requests
  std::int64_t q_len = 1;   // query tokens per request
  std::int64_t kv_len = 0;  // keys per request (context), prefill: prefix + q_len
  int heads = 128;          // query heads on this GPU
  int d_qk = 576;
  int d_v = 512;
  std::int64_t topk = 0;             // sparse: entries attended per query token
  double kv_bytes_per_token = 1152;  // per key: BF16 576 x 2; FlashMLA FP8: 656
  std::string kv_tensor;             // named KV cache (L2 reuse)
  // SGLang's attention backend (--attention-backend): its efficiencies where it gives them
  // (dense MLA decode and MHA prefill), else the profile's. nullptr: the profile's.
  const AttentionBackend* backend = nullptr;
};

KernelCost attention_cost(const HwProfile& hw, const AttentionShape& s);

// One CTA of the attention kernels (the profile's kernels.attention footprint).
CtaFootprint attention_footprint(const HwProfile& hw);

// Indexer logits: s_q query tokens x index heads x index dim against `entries` FP8 keys per
// request (causal in prefill), written as FP32; then a top-k over them.
struct IndexerShape {
  std::int64_t batch = 1;
  std::int64_t q_len = 1;
  std::int64_t entries = 0;  // compressed keys per request (V4 CSA: context / 4)
  int heads = 64;
  int head_dim = 128;
  std::int64_t topk = 512;
  bool causal = false;
  // A decode-style kernel run over every row: one workgroup per query row, which reads that
  // row's keys again from L2 (no reuse across rows in shared memory).
  bool per_row_keys = false;
};
std::vector<KernelCost> indexer_cost(const HwProfile& hw, const IndexerShape& s);

}  // namespace ovs
