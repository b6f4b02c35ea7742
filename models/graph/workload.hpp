#pragma once
// What the GPUs are asked to do, and how a batch is cut into two micro-batches the way SGLang
// cuts it (two_batch_overlap.py).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/cost/comm.hpp"
#include "models/cost/rank_spread.hpp"

namespace ovs {

enum class Phase { prefill, decode };

// The kernels DeepSeek-V4's side branches (KV write, compressors, indexer) launch, by SGLang's
// code path (../shared/data/sglang_v4_platforms.md section 3): fused (CUDA upstream, current ROCm
// with aiter), the May-2026 ROCm mix (aiter GEMMs with FP32 widening copies, per-request torch
// compressor loops, a decode-style paged-logits kernel over every row) or the torch fallbacks.
enum class V4Kernels { fused, rocm_2605, torch_fallback };
inline constexpr const char* kV4KernelsNames[] = {"fused", "rocm-2605", "torch-fallback"};
const char* to_string(V4Kernels k);  // fused | rocm-2605 | torch-fallback
// The path a name gives (kV4KernelsNames), or nothing.
std::optional<V4Kernels> parse_v4_kernels(const std::string& name);

// SGLang's default --tbo-token-distribution-threshold (server_args.py).
inline constexpr double kSglangTboTokenThreshold = 0.48;

struct Workload {
  Phase phase = Phase::decode;
  std::int64_t tokens_per_gpu = 0;  // prefill: tokens; decode: requests
  std::int64_t context = 0;         // prefill: prompt length; decode: KV length
  int ep = 8;
  int gpus_per_node = 8;
  bool dp_attention = true;
  // Hottest rank's expert load over the mean, when the user gives it (--imbalance); 0 = from the
  // routing statistics and the placement (models/cost/rank_spread.hpp: hot_rank_load_ratio).
  double imbalance = 0;
  // How the experts are placed on the ranks: SGLang's EPLB (its default with redundant experts)
  // or a perfectly balanced placement (SGLang's "simulated perfect EPLB").
  ExpertPlacement placement = ExpertPlacement::eplb;
  // SGLang's --attention-backend (fa3, flashmla, flashinfer, triton, ...); empty: the one SGLang
  // picks for the phase on the GPU (the profile's attention.backends.default).
  std::string attention_backend;
  std::optional<bool> cuda_graphs;        // default: on for decode, off for prefill
  std::optional<DeepepMode> deepep_mode;  // default: normal for prefill, low-latency for decode
  int decode_q_len = 1;                   // query tokens per request per step (MTP: 2)
  // SGLang's --ep-num-redundant-experts: extra physical copies of hot experts (EPLB). Physical
  // experts = routed + redundant; EP must divide them.
  int redundant_experts = 0;
  // DeepSeek-V4's side-branch code path (--v4-kernels).
  V4Kernels v4_kernels = V4Kernels::fused;
  // Per-request lengths, when the batch mixes them: prefill prompt lengths (--prompt-lens; then
  // tokens_per_gpu is their sum and context the longest), decode KV lengths (--context-lens; then
  // tokens_per_gpu is their count and context the longest). Empty: every prompt `context` long
  // (the last one shorter), every request's KV `context` long.
  std::vector<std::int64_t> prompt_lens;
  std::vector<std::int64_t> context_lens;
  // SGLang's --tbo-token-distribution-threshold: below this share of the tokens on one side of
  // the best sequence boundary, a prefill batch is cut at half its tokens, inside a sequence.
  double tbo_token_distribution_threshold = kSglangTboTokenThreshold;

  int physical_experts(int routed_experts) const { return routed_experts + redundant_experts; }

  bool graphs() const { return cuda_graphs.value_or(phase == Phase::decode); }
  DeepepMode mode() const {
    return deepep_mode.value_or(phase == Phase::prefill ? DeepepMode::normal
                                                        : DeepepMode::low_latency);
  }
  // Tokens this GPU processes in one forward.
  std::int64_t tokens() const {
    return phase == Phase::prefill ? tokens_per_gpu : tokens_per_gpu * decode_q_len;
  }

  // --- Memory as SGLang holds it (models/memory/) ---
  // SGLang's --mem-fraction-static, in (0, 1): the share of GPU memory for weights and the KV
  // pool; unset: SGLang's own default (models/memory/mem_fraction.cpp).
  std::optional<double> mem_fraction_static;
  // SGLang's --kv-cache-dtype: bf16 or fp8 (fp8_e4m3); unset: auto, the model config's
  // kv_cache.auto_dtype.
  std::optional<Dtype> kv_cache_dtype;
  // SGLang's --moe-dense-tp-size: 0 = unset (the dense layers' FFN tensor parallel over the
  // instance's TP size, EP here, on tokens gathered from every rank); 1 = replicated on every
  // GPU, each rank computing its own tokens.
  int moe_dense_tp_size = 0;
};

// One micro-batch: its tokens and the attention segments (query tokens, keys) of its sequences.
struct Segment {
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  std::int64_t count = 1;  // identical segments
};
struct MicroBatch {
  std::int64_t tokens = 0;
  std::int64_t sequences = 0;
  std::vector<Segment> segments;
};

// The whole batch as one micro-batch.
MicroBatch whole_batch(const Workload& w);

// SGLang's split (two_batch_overlap.py compute_split_seq_index / compute_split_token_index):
// decode by requests (A gets floor(n/2)); prefill on the sequence boundary that best balances the
// token sums (the first boundary from the left whose imbalance stops falling, ties to the later
// one), unless that leaves one side below the threshold share of the tokens: then at half the
// tokens (total / 2), inside the sequence that holds that token ("two-chunk overlap", whose
// second part attends over the first's KV). Returns nothing when a half would be empty (e.g. one
// request); `why` then says so.
std::optional<std::pair<MicroBatch, MicroBatch>> split_batch(const Workload& w, std::string* why);

// Where SGLang cuts a batch, in its own terms: micro-batch A holds sequences [0, seq_index) -
// plus the first part of sequence seq_index when `cut` - and tokens [0, token_index).
struct TboSplit {
  std::int64_t seq_index = 0;
  std::int64_t token_index = 0;
  bool cut = false;  // a sequence is cut in two (prefill two-chunk split)
};
TboSplit sglang_tbo_split(const std::vector<std::int64_t>& extend_lens, double threshold);
// The split of the workload's batch (decode: requests // 2, times the query tokens per request).
TboSplit tbo_split_of(const Workload& w);

}  // namespace ovs
