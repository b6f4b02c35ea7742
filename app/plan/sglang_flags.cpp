#include "app/plan/sglang_flags.hpp"

#include <fmt/format.h>

#include "app/plan/plan.hpp"
#include "app/plan/sglang_command.hpp"
#include "models/memory/sglang_server.hpp"

namespace ovs {

SglangLaunch sglang_launch(const PlanPoint& p, const Strategy& s, const ModelConfig& m,
                           const HwProfile& hw, const PlanRequest& r) {
  SglangLaunch l;
  auto flag = [&](const std::string& f) { l.flags.push_back(f); };
  const bool decode = r.phase == Phase::decode;
  // One SGLang instance per EP group: DP attention (one attention rank per GPU, as the what-if
  // runs it) and expert parallelism over the same GPUs, DeepEP for the all-to-all.
  flag(fmt::format("{} {}", sglang_flag_name("tp"), p.ep));
  flag(fmt::format("{} {}", sglang_flag_name("dp"), p.ep));
  flag(sglang_flag_name("dp_attention"));
  flag(fmt::format("{} {}", sglang_flag_name("ep"), p.ep));
  flag(sglang_flag_name("a2a") + " deepep");
  flag(sglang_flag_name("deepep_mode") + " " + p.deepep_mode);
  if (p.redundant_experts > 0) {
    flag(fmt::format("{} {}", sglang_flag_name("redundant_experts"), p.redundant_experts));
    l.notes.push_back(
        "--ep-num-redundant-experts only reserves the copies: EPLB places them (--enable-eplb "
        "to rebalance while serving, or --init-expert-location for a fixed placement)");
  }
  // SGLang counts hosts, not NVLink domains: a GB200 NVL72 host carries 4 of the rack's 72 GPUs.
  // A request not resolved by run_plan (gpus_per_host 0): the profile's hosts.
  const int host = r.gpus_per_host > 0    ? r.gpus_per_host
                   : hw.gpus_per_host > 0 ? hw.gpus_per_host
                                          : r.gpus_per_node;
  const int nnodes = sglang_nnodes(p.ep, host);
  if (nnodes > 1) {
    flag(fmt::format("{} {}", sglang_flag_name("nnodes"), nnodes));
    if (p.ep % host != 0)
      l.notes.push_back(fmt::format(
          "EP {} is not whole hosts of {} GPUs: SGLang puts --tp-size / --nnodes GPUs on each "
          "host, so the hosts must run fewer GPUs each",
          p.ep, host));
  }
  flag(sglang_flag_name("disaggregation") + (decode ? " decode" : " prefill"));
  for (const auto& f : s.sglang.flags) flag(f);
  for (const auto& e : s.sglang.env) l.env.push_back(e);
  if (decode) {
    if (p.cuda_graphs) {
      flag(fmt::format("{} {}", sglang_flag_name("cuda_graph_max_bs"), p.tokens_per_gpu));
      l.notes.push_back(
          "--cuda-graph-max-bs is the decode batch of one GPU (one DP-attention rank); not "
          "checked whether every SGLang version reads it per rank rather than per instance");
    } else {
      flag(sglang_flag_name("cuda_graph"));
    }
    flag(fmt::format("{} {}", sglang_flag_name("max_running_requests"), p.tokens_per_gpu * p.ep));
    l.notes.push_back(fmt::format(
        "--max-running-requests counts the whole instance ({} requests per GPU x {} GPUs); "
        "SGLang divides it over the --dp-size ranks under DP attention (unsure for every "
        "version)",
        p.tokens_per_gpu, p.ep));
  } else {
    // The server the memory model assumed (models/memory/sglang_server.hpp): a prompt that fits
    // the batch needs no chunked prefill, and SGLang's default --mem-fraction-static then counts
    // one rank's tokens instead of the whole instance's chunk.
    Workload w;
    w.phase = Phase::prefill;
    w.tokens_per_gpu = p.tokens_per_gpu;
    w.context = p.ttft_prompt > 0 ? p.ttft_prompt : r.context;
    w.ep = p.ep;
    const SglangServer server = sglang_server_of(w);
    flag(fmt::format("{} {}", sglang_flag_name("chunked_prefill_size"),
                     server.chunked_prefill_size));
    flag(fmt::format("{} {}", sglang_flag_name("max_prefill_tokens"), server.max_prefill_tokens));
    if (server.chunked_prefill_size > 0)
      l.notes.push_back(fmt::format(
          "--chunked-prefill-size counts the whole instance ({} tokens per GPU x {} GPUs; SGLang "
          "divides it over the --dp-size ranks under DP attention) and --max-prefill-tokens one "
          "rank's forward (unsure for every version)",
          p.tokens_per_gpu, p.ep));
    else
      l.notes.push_back(
          fmt::format("chunked prefill off (-1): a {}-token prompt fits the {}-token batch; "
                      "--max-prefill-tokens is one rank's forward",
                      w.context, p.tokens_per_gpu));
  }
  // The memory the plan checked the point against (models/memory/): the fraction it used, which
  // is SGLang's own default for this launch unless --mem-fraction-static was given.
  if (p.mem_fraction_static > 0)
    flag(fmt::format("{} {:.3f}", sglang_flag_name("mem_fraction_static"), p.mem_fraction_static));
  if (p.mem_fraction_static > 0 && r.memory.mem_fraction_static == "auto")
    l.notes.push_back(
        "--mem-fraction-static is SGLang's own default for this launch "
        "(sglang_flags_memory.md B1), written out so that the KV pool is the one the plan checked");
  if (r.memory.kv_cache_dtype != "auto")
    flag(sglang_flag_name("kv_cache_dtype") + " " + r.memory.kv_cache_dtype);
  if (r.memory.moe_dense_tp_size == "1") flag(sglang_flag_name("moe_dense_tp_size") + " 1");
  if (p.mtp) {
    // DeepSeek's MTP module as a one-step draft: two tokens verified per step.
    flag(sglang_flag_name("speculative") + " EAGLE");
    flag(sglang_flag_name("speculative_steps") + " 1");
    flag(sglang_flag_name("speculative_topk") + " 1");
    flag(sglang_flag_name("speculative_draft_tokens") + " 2");
    if (s.two_batch_overlap)
      l.notes.push_back(
          "two-batch overlap together with MTP (speculative decoding) is not checked against "
          "SGLang here");
  }
  // DeepEP low-latency buffers hold a fixed number of tokens per rank; a larger micro-batch
  // needs them raised.
  const long long per_rank = p.split ? (p.tokens_per_gpu + 1) / 2 : p.tokens_per_gpu;
  const long long tokens_per_rank = decode ? per_rank * (p.mtp ? 2 : 1) : per_rank;
  if (p.deepep_mode == "low_latency" && tokens_per_rank > hw.memory.deepep_ll_max_tokens_per_rank)
    l.env.push_back(
        fmt::format("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK={}", tokens_per_rank));
  if (s.deep_gemm_auto) {
    const int dg = hw.engine.sm_count - hw.kernels.comm.deepep_normal_sms;
    l.notes.push_back(fmt::format(
        "DeepGEMM on {} of {} SMs (all but DeepEP's {}): SGLang's prefill two-batch overlap sets "
        "deep_gemm_num_sms this way itself (operations_strategy.py), no flag; DeepEP's SMs are "
        "num_sms in --deepep-config",
        dg, hw.engine.sm_count, hw.kernels.comm.deepep_normal_sms));
  } else if (s.deep_gemm_num_sms > 0) {
    l.notes.push_back(
        fmt::format("DeepGEMM capped at {} SMs: SGLang has no launch flag for this (it derives "
                    "deep_gemm_num_sms from DeepEP's SMs); unsure how to reproduce it",
                    s.deep_gemm_num_sms));
  }
  if (!s.sglang.given)
    l.notes.push_back("strategy '" + s.name + "' has no sglang: block: its own flags are unknown");
  else if (!s.sglang.runs_in_sglang())
    l.notes.push_back(
        fmt::format("SGLang does not run '{}' ({}: {})", s.name, s.sglang.status, s.sglang.source));
  if (s.sglang.status == "unsure" || !s.sglang.note.empty())
    l.notes.push_back(s.sglang.note.empty() ? "'" + s.name + "': " + s.sglang.source
                                            : s.sglang.note);
  l.notes.push_back(
      fmt::format("one instance per {} GPUs ({} instance(s) on {} GPUs, {} GPUs per host); add "
                  "--model-path for {}, --trust-remote-code, --node-rank and --dist-init-addr "
                  "for your cluster",
                  p.ep, r.gpus / p.ep, r.gpus, host, m.name));
  return l;
}

}  // namespace ovs
