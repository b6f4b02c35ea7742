#pragma once
// The GEMM grid: every linear layer of DeepSeek-V3 and DeepSeek-V4-Pro/Flash as
// y[M, N] = x[M, K] * w[N, K]^T (PyTorch's Linear), for M tokens in kGemmTokenCounts.
// Model numbers from ../shared/data/models.csv (config.json of each model):
//   V3:       hidden 7168, q_lora 1536, kv_lora 512, 128 heads, qk 128 nope + 64 rope, v 128,
//             moe_inter 2048 (256 routed + 1 shared expert), dense inter 18432 (first 3 layers)
//   V4-Pro:   hidden 7168, q_lora 1536, 128 heads x 512, o_groups 16 x o_lora 1024,
//             moe_inter 3072, indexer 64 heads x 128
//   V4-Flash: hidden 4096, q_lora 1024, 64 heads x 512, o_groups 8 x o_lora 1024,
//             moe_inter 2048, indexer 64 heads x 128
// A shape used by several ops or models is listed once; `models` names them all.

#include <cstdint>

struct GemmShape {
  const char* models;  // which models use it
  const char* op;      // the op, as the model code names it
  int64_t n;           // output features
  int64_t k;           // input features (the reduction)
  int batch;           // independent GEMMs of this shape at once (grouped wo_a), else 1
};

inline constexpr GemmShape kGemmShapes[] = {
    // DeepSeek-V3 attention (MLA)
    {"v3", "wq_a", 1536, 7168, 1},             // hidden -> q_lora
    {"v3", "wkv_a", 576, 7168, 1},             // hidden -> kv_lora 512 + rope 64
    {"v3;v4-pro", "wqkv_a", 2112, 7168, 1},    // V3 wq_a+wkv_a fused (1536+576); the V4 seed's
                                               // wqkv_a (M=4096, N=2112, K=7168)
    {"v3", "wq_b", 24576, 1536, 1},            // q_lora -> 128 heads x 192 (nope 128 + rope 64)
    {"v3", "wkv_b", 32768, 512, 1},            // kv_lora -> 128 heads x (k_nope 128 + v 128)
    {"v3;v4-pro", "wo;wo_b", 7168, 16384, 1},  // V3 wo: 128 heads x v 128 -> hidden;
                                               // V4-Pro wo_b: 16 groups x o_lora 1024 -> hidden
    // DeepSeek-V3 MoE and dense FFN (gate and up fused)
    {"v3", "expert.gate_up", 4096, 7168, 1},  // routed and shared expert: hidden -> 2 x 2048
    {"v3", "expert.down", 7168, 2048, 1},     // routed and shared expert: 2048 -> hidden
    {"v3", "dense.gate_up", 36864, 7168, 1},  // dense layers 0-2: hidden -> 2 x 18432
    {"v3", "dense.down", 7168, 18432, 1},     // dense layers 0-2: 18432 -> hidden

    // DeepSeek-V4-Pro attention (wo_b is V3's wo shape above)
    {"v4-pro", "wqkv_a.config", 2048, 7168, 1},      // by config: q_lora 1536 + kv 512 (the seed
                                                     // says 2112, measured above)
    {"v4-pro", "wq_b", 65536, 1536, 1},              // q_lora -> 128 heads x 512
    {"v4-pro", "wo_a", 1024, 4096, 16},              // 16 groups: 128 x 512 / 16 = 4096 -> o_lora
    {"v4-pro;v3.2", "indexer.wq_b", 8192, 1536, 1},  // q_lora -> 64 index heads x 128
    {"v4-pro;v3.2", "indexer.wk", 128, 7168, 1},     // hidden -> index_head_dim 128
    {"v4-pro;v3.2", "indexer.weights_proj", 64, 7168, 1},  // hidden -> 64 head weights
    // DeepSeek-V4-Pro MoE
    {"v4-pro", "expert.gate_up", 6144, 7168, 1},  // routed and shared expert: hidden -> 2 x 3072
    {"v4-pro", "expert.down", 7168, 3072, 1},     // routed and shared expert: 3072 -> hidden

    // DeepSeek-V4-Flash attention
    {"v4-flash", "wqkv_a", 1536, 4096, 1},              // hidden -> q_lora 1024 + kv 512
    {"v4-flash", "wq_b", 32768, 1024, 1},               // q_lora -> 64 heads x 512
    {"v4-flash", "wo_a", 1024, 4096, 8},                // 8 groups: 64 x 512 / 8 = 4096 -> o_lora
    {"v4-flash", "wo_b", 4096, 8192, 1},                // 8 groups x o_lora 1024 -> hidden
    {"v4-flash", "indexer.wq_b", 8192, 1024, 1},        // q_lora -> 64 index heads x 128
    {"v4-flash", "indexer.wk", 128, 4096, 1},           // hidden -> index_head_dim 128
    {"v4-flash", "indexer.weights_proj", 64, 4096, 1},  // hidden -> 64 head weights
    // DeepSeek-V4-Flash MoE
    {"v4-flash", "expert.gate_up", 4096, 4096, 1},  // routed and shared expert: hidden -> 2 x 2048
    {"v4-flash", "expert.down", 4096, 2048, 1},     // routed and shared expert: 2048 -> hidden
};

// Tokens per GEMM (M): decode batches up to prefill chunks.
inline constexpr int64_t kGemmTokenCounts[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

// SM counts for CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET runs (all SMs of an H100/H200/H800 = 132;
// 112 = 132 - 20 DeepEP SMs; 108 = 132 - 24; 96; 66 = half; 33 = quarter), clipped to the device.
inline constexpr int kGemmSmCountTargets[] = {132, 112, 108, 96, 66, 33};
