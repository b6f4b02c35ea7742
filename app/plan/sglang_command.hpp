#pragma once
// An SGLang launch command read as SGLang reads it (`overlapsim sglang-check`): the flags and
// environment variables of the shipped table (sglang/flags.yaml, with the SGLang source of each),
// argparse's rules (exact name or alias, then a prefix unique among the table's flags - SGLang's
// own parser also weighs the flags the table leaves out; `--flag=value`), deprecated
// spellings named, every other flag listed as ignored. `plan` writes its commands with the same
// table's names, so a command it prints reads back to the same deployment.
#include <string>
#include <vector>

#include "models/graph/workload.hpp"  // kSglangTboTokenThreshold

namespace ovs {

struct SglangFlagSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string takes;  // flag | int | float | string | choice | bool (environment)
  std::vector<std::string> choices;
  std::string sets;  // the deployment field ("tp", "tbo=true")
  std::string deprecated;
  std::string default_value;  // SGLang's value when the flag is not given (empty: none here)
  std::string source;
};

struct SglangFlagTable {
  std::string file;
  std::vector<SglangFlagSpec> flags, env;
};

// The shipped table (read once; InputError naming its file, line and field when malformed).
const SglangFlagTable& sglang_flag_table();
// The table's spelling of the flag that sets `field` ("ep" -> "--ep-size").
const std::string& sglang_flag_name(const std::string& field);

struct SglangDeployment {
  std::string model;
  int tp = 1, dp = 1;
  bool dp_attention = false;
  int ep = 0;  // 0: not given (SGLang: tp for the a2a backends, else 1)
  std::string a2a = "none";
  std::string deepep_mode = "auto";
  int redundant_experts = 0;
  bool tbo = false, sbo = false;
  double tbo_threshold = kSglangTboTokenThreshold;
  int cuda_graph_max_bs = 0;  // 0: SGLang's default
  bool cuda_graph = true;
  long long max_running_requests = 0;
  long long chunked_prefill_size = 0;
  long long max_prefill_tokens = 0;  // 0: SGLang's default (16384)
  std::string speculative;           // empty: none
  int speculative_draft_tokens = 0;
  std::string disaggregation = "null";
  int nnodes = 1;
  std::string mem_fraction_static = "auto";
  std::string kv_cache_dtype = "auto";
  int moe_dense_tp_size = 0;
  bool multi_stream = true;  // SGLANG_OPT_USE_MULTI_STREAM_OVERLAP (newest default: on)
  // SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK; 0: not set (SGLang's default, the profile's
  // memory.deepep_ll_max_tokens_per_rank)
  long long deepep_ll_max_tokens = 0;
  std::vector<std::string> ignored;  // flags outside the table, as given
  std::vector<std::string> notes;    // prefixes resolved, deprecated spellings, defaults applied

  int effective_ep() const { return ep > 0 ? ep : (a2a != "none" ? tp : 1); }
  // Tokens one decode request verifies per step (1 without speculative decoding).
  int decode_q_len() const;
};

// `args`: the command after `--` (python -m sglang.launch_server ..., sglang serve MODEL ...,
// or the flags alone); `env`: K=V words (the environment's SGLANG_* and --env). InputError
// "command line" / "argument N '--flag'" on a malformed value.
SglangDeployment parse_sglang_command(const std::vector<std::string>& args,
                                      const std::vector<std::string>& env);

}  // namespace ovs
