#include "app/cli/point_flags.hpp"

#include <limits>

#include "app/cli/flag_checks.hpp"
#include "app/cli/memory_flags.hpp"
#include "app/cli/v4_kernels_flag.hpp"

namespace ovs {

void add_point_flags(CLI::App* cmd, std::string& model, std::string& hw, WorkloadWords& w,
                     bool ep_required) {
  cmd->add_option("--model", model,
                  "Model: deepseek-v3, deepseek-v4-flash, deepseek-v4-pro, or a YAML path")
      ->capture_default_str();
  cmd->add_option("--hw", hw,
                  "Hardware profile: h100-sxm, h800-sxm, h200-sxm, h20, b200, gb200, mi355x (or an "
                  "alias such as GB200), or a YAML path")
      ->capture_default_str();
  cmd->add_option("--phase", w.phase, "prefill or decode")
      ->check(flags::one_of({"prefill", "decode"}))
      ->capture_default_str();
  cmd->add_option("--tokens-per-gpu", w.tokens_per_gpu,
                  "Prefill: tokens per GPU; decode: requests per GPU (required unless "
                  "--prompt-lens / --context-lens give the batch)")
      ->check(flags::whole_count(1));
  cmd->add_option("--context", w.context,
                  "Prefill: prompt length; decode: KV length (required unless the lengths are "
                  "given per request)")
      ->check(flags::whole_count(1));
  cmd->add_option("--prompt-lens", w.prompt_lens,
                  "Prefill: each prompt's length on this GPU, comma-separated (e.g. 4095,4096,1), "
                  "file:PATH, or a distribution as --isl; sets --tokens-per-gpu (their sum) and "
                  "--context (the longest)");
  cmd->add_option("--context-lens", w.context_lens,
                  "Decode: each request's KV length, comma-separated, file:PATH, or a distribution "
                  "as --isl (--tokens-per-gpu requests); sets --tokens-per-gpu (their count) and "
                  "--context (the longest)");
  cmd->add_option("--isl", w.isl,
                  "Input length per request: N, uniform:A,B, normal:MEAN,SD, lognormal:MEAN,SD "
                  "or file:PATH (CSV/JSON of lengths to draw from). Prefill: prompts drawn until "
                  "they hold --tokens-per-gpu tokens; decode: --tokens-per-gpu requests");
  cmd->add_option("--osl", w.osl,
                  "Decode: output length per request, as --isl; each request's context is its "
                  "input plus a uniform share of its output (caught at a random moment)");
  cmd->add_option("--seed", w.seed,
                  "Seed of the length draws (--isl, --osl, distributions in --prompt-lens / "
                  "--context-lens): the same seed, the same batch")
      ->capture_default_str();
  cmd->add_option("--tbo-token-distribution-threshold", w.tbo_token_distribution_threshold,
                  "SGLang's: a prefill batch whose best sequence boundary leaves less than this "
                  "share of the tokens on one side is cut at half its tokens, inside a sequence")
      ->check(flags::real(0, 0.5))
      ->capture_default_str();
  CLI::Option* ep =
      cmd->add_option("--ep,--ep-size,--expert-parallel-size", w.ep, "Expert-parallel size (GPUs)")
          ->check(flags::whole_int(1));
  if (ep_required) ep->required();
  cmd->add_option("--gpus-per-node", w.gpus_per_node,
                  "GPUs per NVLink domain (default: the profile's nvlink_domain_gpus, 8 on HGX "
                  "boards, 72 on GB200 NVL72); EP beyond it crosses RDMA")
      ->check(flags::whole_int(1));
  cmd->add_option("--redundant-experts", w.redundant_experts,
                  "Extra physical expert copies (SGLang --ep-num-redundant-experts); EP must "
                  "divide routed + redundant")
      ->capture_default_str()
      ->check(flags::whole_int(0));
  cmd->add_option("--imbalance", w.imbalance,
                  "Hottest rank's expert load over the mean: auto (from the routing statistics, "
                  "the EP size and --placement) or a number >= 1")
      ->capture_default_str()
      ->check(flags::auto_or_real(1, std::numeric_limits<double>::infinity()));
  cmd->add_option("--placement", w.placement,
                  "Expert placement: eplb (SGLang's EPLB placement, its default) or balanced (a "
                  "perfect placement, SGLang's simulated perfect EPLB)")
      ->check(flags::one_of({"eplb", "balanced"}))
      ->capture_default_str();
  cmd->add_option("--attention-backend", w.attention_backend,
                  "SGLang's MLA attention backend: fa3, flashmla, flashinfer, triton (those the "
                  "GPU's profile lists), or auto (what SGLang picks for the phase on the GPU)")
      ->capture_default_str();
  add_v4_kernels_flag(cmd, w.v4_kernels);
  cmd->add_option("--cuda-graphs", w.cuda_graphs, "on, off, or auto (on for decode)")
      ->check(flags::one_of({"on", "off", "auto"}))
      ->capture_default_str();
  cmd->add_option("--deepep-mode", w.deepep_mode,
                  "normal, low_latency, or auto (normal for prefill)")
      ->check(flags::one_of({"normal", "low_latency", "auto"}))
      ->capture_default_str();
  cmd->add_option("--decode-q-len", w.decode_q_len,
                  "Query tokens per request per decode step (2 with MTP)")
      ->check(flags::whole_int(1));
  add_memory_flags(cmd, w.memory);
}

}  // namespace ovs
