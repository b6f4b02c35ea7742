#pragma once
// The SGLang server the memory model assumes for a workload, and SGLang's default
// --mem-fraction-static for it (../shared/data/sglang_flags_memory.md B1).
//
// The server is the one `overlapsim plan` launches (app/plan/sglang_flags.cpp prints its flags
// from sglang_server_of): one instance per EP group, DP attention over it (tp = dp = EP),
// DeepEP, prefill-decode disaggregated by phase, and
//   decode:  --cuda-graph-max-bs <requests per GPU> (when CUDA graphs are on),
//            --max-running-requests <requests per GPU x EP> (SGLang divides it over the ranks),
//            MTP as <decode_q_len> draft tokens;
//   prefill: a prompt that fits the batch (context <= tokens per GPU) runs without chunked
//            prefill (--chunked-prefill-size -1) and --max-prefill-tokens <tokens per GPU>; a
//            longer one is chunked, --chunked-prefill-size <tokens per GPU x EP> (SGLang divides
//            it over the DP ranks - but its default fraction counts it whole, B1).
#include <string>

#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct SglangServer {
  enum class Role { mixed, prefill, decode };  // --disaggregation-mode (mixed: none)
  Role role = Role::mixed;
  int tp = 1;
  int pp = 1;
  int dp = 1;
  bool dp_attention = false;
  bool deepep = false;
  bool decode_graphs = false;
  bool prefill_graphs = false;
  long long decode_max_bs = 0;         // --cuda-graph-max-bs
  long long max_running_requests = 0;  // the instance's; 0 = not given
  int draft_tokens = 0;                // --speculative-num-draft-tokens; 0 = no speculation
  long long chunked_prefill_size = 0;  // <= 0: chunked prefill off
  long long max_prefill_tokens = 0;
};

// The server `overlapsim plan` launches for `w` (see above).
SglangServer sglang_server_of(const Workload& w);

struct DefaultFraction {
  double fraction = 0;  // round((GPU MiB - reserved MiB) / GPU MiB, 3); may be <= 0
  double reserved_mib = 0;
  double activation_tokens = 0;
  std::string how;  // the arithmetic, for --explain
};

// SGLang's default --mem-fraction-static (server_args.py _handle_gpu_memory_settings, B1) for a
// GPU of `gpu_mib` MiB, with the profile's memory.sglang_reserve numbers.
DefaultFraction sglang_default_fraction(const HwProfile::MemoryParams::SglangReserve& r,
                                        double gpu_mib, const SglangServer& s);

}  // namespace ovs
