#pragma once
// Cost-model parameters of a hardware profile (the `kernels:` section of hw_profiles/*.yaml).
// Fitted ones say so in their source ("fitted by overlapsim calibrate ...").
#include <array>
#include <string>
#include <vector>

#include "sim/core/work.hpp"

namespace ovs {

struct GemmParams {
  std::vector<int> block_m;  // tile heights the GEMM library offers
  std::vector<int> block_n;  // tile widths it offers
  int block_k = 128;
  // Fraction of an SM's sustained tensor peak inside a tile's main loop, per dtype (block_m >=
  // 128), and the ratio for block_m 64 tiles (one consumer warpgroup instead of two).
  std::array<double, kNumDtypes> efficiency{};
  double efficiency_m64_ratio = 1;
  double tile_overhead_us = 0;  // per tile: prologue, pipeline fill, scheduling
  double k_iteration_us = 0;  // per block_k step of a block-scaled (FP8/FP4) tile: scale promotion
  double epilogue_write_fraction = 0;  // share of a tile's output write not hidden by the MMA
  double fixed_latency_us = 0;         // per kernel
  double masked_m_spread = 0;          // masked layout: per-group m ~ U(1-s, 1+s) x expected_m
  // One CTA (persistent: one per SM it uses): its threads, registers per thread (0: base +
  // one FP32 accumulator per output element of the tile per thread) and shared-memory pipeline
  // stages of (block_m + block_n) x block_k operands (0: as many as fit, the SM's whole shared
  // memory, as DeepGEMM sizes its pipeline). 0 threads: no footprint (the CTA owns its SM).
  int cta_threads = 0;
  int cta_registers_per_thread = 0;
  int cta_base_registers = 0;
  int pipeline_stages = 0;
  // 1: persistent, one CTA per SM it uses looping over tiles (DeepGEMM); 0: one CTA per tile
  // (hipBLASLt / CK grids), so its CTAs retire wave by wave and the block scheduler can hand the
  // freed SMs to kernels of other streams (sm.dispatch_share).
  int persistent = 1;
  // Split-K factors the library may choose (dense GEMMs): K cut into s parts, each its own tile
  // writing FP32 partial sums that are reduced after. {1}: none (DeepGEMM).
  std::vector<int> split_k = {1};
};

// One of SGLang's attention backends for MLA (--attention-backend): the efficiencies its kernels
// reach where they differ from the profile's own (0: as the profile's).
struct AttentionBackend {
  std::string name;                  // fa3, flashmla, flashinfer, triton, ...
  double mla_decode_efficiency = 0;  // absorbed MLA decode
  double prefill_efficiency = 0;     // MHA prefill (causal)
};

struct AttentionParams {
  double mla_decode_efficiency = 0;      // of the BF16 sustained peak, compute-bound decode
  double sparse_decode_efficiency = 0;   // FP8-KV sparse decode (DSA / V4)
  double prefill_efficiency = 0;         // dense causal attention (FlashAttention-3 style)
  double sparse_prefill_efficiency = 0;  // sparse prefill (DSA / V4)
  double indexer_efficiency = 0;         // FP8 indexer logits (MQA-style score kernel)
  double fixed_latency_us = 0;
  int cta_threads = 0;  // one CTA of the attention kernels (0: owns its SM)
  int cta_registers_per_thread = 0;
  double cta_shared_bytes = 0;
  // SGLang's backends on this GPU (attention.backends; empty: the profile's efficiencies only)
  // and the one it picks by default for each phase.
  std::vector<AttentionBackend> backends;
  std::string default_decode_backend;
  std::string default_prefill_backend;
  // The backend named `name`, or nullptr.
  const AttentionBackend* backend(const std::string& name) const {
    for (const auto& b : backends)
      if (b.name == name) return &b;
    return nullptr;
  }
};

struct MemoryKernelParams {
  double kernel_min_us = 0;  // the shortest a kernel takes on the GPU
  double bytes_per_cta = 0;  // grid sizing of elementwise kernels
  int ctas_per_sm = 1;
  int cta_threads = 0;  // one CTA of the elementwise / reduction kernels (0: 1/ctas_per_sm SM)
  int cta_registers_per_thread = 0;
};

struct CommParams {
  int deepep_normal_sms = 20;
  double normal_nvlink_efficiency = 1;  // of the NVLink bandwidth, DeepEP normal kernels
  double normal_rdma_efficiency = 1;
  double ll_nvlink_efficiency = 1;  // low-latency kernels
  double ll_rdma_efficiency = 1;
  double ll_latency_us = 0;              // low-latency: fixed part ...
  double ll_latency_per_log2_ep_us = 0;  // ... plus this per doubling of the EP size
  double collective_efficiency = 1;      // all-gather / reduce-scatter on NVLink
  int collective_sms = 16;               // SMs an NCCL collective holds
  // Spread (coefficient of variation) of one rank's time for the same work between two
  // exchanges (rank_spread.hpp): eagerly launched, where each rank's host paces its kernels
  // (Python, the host waiting on DeepEP's counts), and replayed from CUDA graphs, where only the
  // GPUs' own pace differs.
  double rank_time_cv_eager = 0;
  double rank_time_cv_graph = 0;
};

struct KernelParams {
  GemmParams gemm;
  AttentionParams attention;
  MemoryKernelParams memory;
  CommParams comm;
  double framework_op_us = 0;  // host: per-op framework (Python) overhead
};

}  // namespace ovs
