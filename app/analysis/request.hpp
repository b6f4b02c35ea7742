#pragma once
// From what a user asks - command-line flags or a sweep point's fields, in words - to the
// Workload every analysis runs (whatif, explain, search, sweep, plan), with each rule that ties
// two fields together written here once:
//   - DeepEP mode left to auto: normal for prefill, low-latency for decode (Workload::mode); a
//     strategy's deepep_mode applies unless the user gave one (for_strategy).
//   - DeepEP normal mode blocks the host on its receive counts, so no CUDA graph can capture it:
//     under normal mode CUDA graphs left to auto are off, and asked on they are an error.
//   - GPUs per node left to auto (0): the hardware profile's NVLink domain (in_nvlink_domain).
//   - decode_q_len: query tokens per request per decode step (2 with MTP); prefill ignores it.
//   - redundant experts: EP must divide routed + redundant; checked where the model is known
//     (the layer builder).
#include <cstdint>
#include <map>
#include <string>

#include "app/strategy/strategy.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

// Where the words came from, so that an error names it: the command line (its flags,
// --cuda-graphs) or a file (its fields, cuda_graphs, at their lines).
struct RequestSource {
  std::string file;                  // empty: the command line
  std::map<std::string, int> lines;  // a file's field -> its line (0 or absent: unknown)

  // The name a user knows a field by: "--cuda-graphs" on the command line, else "cuda_graphs".
  std::string field(const std::string& name) const;
  // InputError naming the file (or "command line") and the field.
  [[noreturn]] void fail(const std::string& name, const std::string& message) const;
};

// SGLang's memory flags in the user's words (models/memory/): --mem-fraction-static (auto or a
// number in (0, 1)), --kv-cache-dtype (auto, bf16, fp8_e4m3), --moe-dense-tp-size (auto, 1 or
// the EP size: SGLang allows only 1 or its TP size).
struct MemoryWords {
  std::string mem_fraction_static = "auto";
  std::string kv_cache_dtype = "auto";
  std::string moe_dense_tp_size = "auto";
};

// A workload in the user's words.
struct WorkloadWords {
  std::string phase = "decode";  // prefill | decode
  std::int64_t tokens_per_gpu = 0;
  std::int64_t context = 0;
  int ep = 0;
  int gpus_per_node = 0;  // 0: auto
  int redundant_experts = 0;
  // The hottest rank's expert load over the mean: "auto" (from the routing statistics and the
  // placement) or a number >= 1.
  std::string imbalance = "auto";
  std::string placement = "eplb";  // eplb | balanced
  // SGLang's --attention-backend; "auto": the one SGLang picks for the phase on the GPU.
  std::string attention_backend = "auto";
  // DeepSeek-V4's side-branch kernels: fused | rocm-2605 | torch-fallback.
  std::string v4_kernels = "fused";
  // Per-request lengths, comma-separated (empty: one length, --context): prefill prompt lengths,
  // decode KV lengths; and SGLang's --tbo-token-distribution-threshold.
  // Each also takes a distribution or a file (app/analysis/length_spec.hpp): prompts drawn until
  // they hold --tokens-per-gpu tokens, or --tokens-per-gpu requests' KV lengths.
  std::string prompt_lens, context_lens;
  // Input and output lengths per request (a length, a distribution or a file): prefill prompts
  // of --isl; decode contexts of --isl plus a uniform share of --osl (each request caught at a
  // random moment of its output). Drawn with `seed`.
  std::string isl, osl;
  std::uint64_t seed = 0;
  double tbo_token_distribution_threshold = kSglangTboTokenThreshold;
  std::string cuda_graphs = "auto";  // on | off | auto (or true | false)
  std::string deepep_mode = "auto";  // normal | low_latency | auto
  int decode_q_len = 1;
  MemoryWords memory;
};

// The workload the words ask for. Its deepep_mode is set only when the user gave one (a
// strategy may choose it otherwise); gpus_per_node stays 0 when auto. InputError naming the
// flag or field on a word it does not know, or on DeepEP normal mode under CUDA graphs.
Workload resolve_workload(const WorkloadWords& asked, const RequestSource& from);
// The same rules for a workload already in types (the planner's grid, a test).
Workload resolve_workload(Workload asked, const RequestSource& from);
// SGLang's memory flags onto `w` (whose EP is set), checked as SGLang checks them; InputError
// naming the flag or field.
void apply_memory_words(const MemoryWords& asked, const RequestSource& from, Workload& w);

// The rule between DeepEP normal mode and CUDA graphs, for a workload whose mode is settled:
// false when CUDA graphs were asked on under normal mode (the caller names whose request it was);
// otherwise true, with CUDA graphs left to auto turned off under normal mode.
bool settle_cuda_graphs(Workload& w);
// Whether DeepEP normal mode can run at all: not when CUDA graphs were asked on.
bool allows_normal_mode(const Workload& w);
extern const char* const kNormalModeUnderCudaGraphs;  // the error's words

// The workload with GPUs per node resolved: 0 (auto) becomes the profile's NVLink domain
// (`nvlink_domain_gpus`: 8 on HGX boards, 72 on GB200 NVL72), so an EP group inside the domain
// uses NVLink only. InputError when the profile does not give it.
Workload in_nvlink_domain(Workload w, const HwProfile& hw);

// The workload strategy `s` runs: its deepep_mode unless the user gave one, then the CUDA-graph
// rule (an error names the strategy's file).
Workload for_strategy(Workload w, const Strategy& s);

}  // namespace ovs
