// overlapsim kernel --hw H (--gemm M,N,K | --deepep MODE --op OP | --attention KIND | --memory OP)
// ...
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <optional>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "models/cost/kernel_query.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/kernel_model.hpp"

namespace ovs {
namespace {

struct KernelOptions {
  std::string hw = "h800-sxm";
  std::string model;  // empty: default_model_for(the query)
  std::vector<std::int64_t> gemm;
  int groups = 1;
  std::string layout = "dense";
  std::string dtype = "fp8";
  std::string deepep;
  std::string op = "dispatch";
  int ep = 8;
  std::int64_t tokens = 0;
  // 0: the model's number.
  int hidden = 0;
  int topk = 0;
  int experts = 0;
  int expert_groups = 1;
  int topk_groups = 1;
  int gpus_per_node = 0;  // 0: the profile's nvlink_domain_gpus
  std::string attention;
  std::int64_t batch = 1;
  std::int64_t q_len = 1;
  std::int64_t kv_len = 4096;
  int heads = 0;
  int d_qk = 0;
  int d_v = 0;
  std::int64_t attn_topk = 0;
  std::string kv_dtype = "bf16";
  std::string memory;
  int dim = 0;
  int sms = 0;
  bool json = false;
};

std::optional<int> given(int v) {
  return v > 0 ? std::optional<int>(v) : std::nullopt;
}

Dtype dtype_of(const std::string& s, const char* flag) {
  auto d = parse_dtype(s);
  if (!d) throw flag_error(flag, "unknown dtype '" + s + "'; expected bf16, fp8 or fp4");
  return *d;
}

// The flags as a query (CLI11 has checked each word).
KernelQuery query_of(const KernelOptions& o) {
  const int chosen = int(!o.gemm.empty()) + int(!o.deepep.empty()) + int(!o.attention.empty()) +
                     int(!o.memory.empty());
  if (chosen != 1)
    throw flag_error("--gemm/--deepep/--attention/--memory",
                     "give exactly one of --gemm, --deepep, --attention, --memory");
  if (!o.gemm.empty()) {
    if (o.gemm.size() != 3) throw flag_error("--gemm", "expected M,N,K");
    GemmQuery q;
    q.shape.m = o.gemm[0];
    q.shape.n = o.gemm[1];
    q.shape.k = o.gemm[2];
    q.shape.groups = o.groups;
    q.shape.layout = o.layout == "masked"       ? GemmLayout::masked
                     : o.layout == "contiguous" ? GemmLayout::contiguous
                                                : GemmLayout::dense;
    q.shape.dtype = dtype_of(o.dtype, "--dtype");
    return q;
  }
  // DeepEP and memory kernels need --tokens (attention reads --batch and --q-len).
  if ((!o.deepep.empty() || !o.memory.empty()) && o.tokens <= 0)
    throw flag_error("--tokens", "must be > 0");
  if (!o.deepep.empty()) {
    DeepepQuery q;
    q.mode = o.deepep == "low_latency" ? DeepepMode::low_latency : DeepepMode::normal;
    q.op = o.op == "combine" ? CommOp::combine : CommOp::dispatch;
    q.ep = o.ep;
    q.tokens = o.tokens;
    q.hidden = given(o.hidden);
    q.topk = given(o.topk);
    q.experts = given(o.experts);
    q.expert_groups = o.expert_groups;
    q.topk_groups = o.topk_groups;
    q.gpus_per_node = o.gpus_per_node;
    return q;
  }
  if (!o.attention.empty()) {
    AttentionQuery q;
    q.kind = o.attention == "sparse_decode"    ? AttentionKind::sparse_decode
             : o.attention == "dense_prefill"  ? AttentionKind::dense_prefill
             : o.attention == "sparse_prefill" ? AttentionKind::sparse_prefill
                                               : AttentionKind::mla_decode;
    q.batch = o.batch;
    q.q_len = o.q_len;
    q.kv_len = o.kv_len;
    q.heads = given(o.heads);
    q.d_qk = given(o.d_qk);
    q.d_v = given(o.d_v);
    q.topk = o.attn_topk;
    q.kv_dtype = o.kv_dtype == "fp8" ? Dtype::fp8 : Dtype::bf16;
    return q;
  }
  MemoryQuery q;
  q.op = *memory_op_named(o.memory);
  q.tokens = o.tokens;
  q.dim = given(o.dim);
  q.heads = given(o.heads);
  q.experts = given(o.experts);
  q.topk = given(o.topk);
  return q;
}

int run_kernel(const KernelOptions& o, CliContext& ctx) {
  const HwProfile hw = load_hw_profile(o.hw);
  require_kernel_params(hw);
  const KernelQuery query = query_of(o);
  const ModelConfig model = load_model_config(o.model.empty() ? default_model_for(query) : o.model);
  std::vector<KernelCost> kernels;
  try {
    kernels = kernel_costs(hw, model, query, o.sms);
  } catch (const InputError& e) {
    // Attention's key count is --attn-topk here (--topk is DeepEP's experts per token).
    if (e.file().empty() && e.field() == "topk" && std::holds_alternative<AttentionQuery>(query))
      throw flag_error("--attn-topk", e.message());
    // DeepEP's routing: experts over EP ranks and groups.
    if (e.file().empty() && e.field() == "routing")
      throw flag_error("--ep/--experts/--topk/--expert-groups/--topk-groups", e.message());
    throw;
  }
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  double total_us = 0, flops = 0, logical = 0, hbm = 0;
  const char* bound = "latency";
  double longest = -1;
  int waves = 0;
  for (const auto& k : kernels) {
    const SoloBreakdown b = solo_breakdown(hw.engine, k.spec());
    const double t = b.total_us();
    total_us += t;
    flops += k.useful_flops;
    logical += k.logical_bytes;
    hbm += k.work.hbm_bytes;
    for (const auto& r : k.work.reads) hbm += r.bytes;
    for (const auto& w : k.work.writes) hbm += w.bytes;
    waves = std::max(waves, k.waves);
    if (t > longest) {
      longest = t;
      bound = b.bound();
    }
    parts.push_back({{"name", k.name},
                     {"time_us", t},
                     {"bound", b.bound()},
                     {"sms", b.sms},
                     {"compute_us", b.compute_us},
                     {"hbm_us", b.hbm_us},
                     {"l2_us", b.l2_us},
                     {"link_us", b.link_us},
                     {"latency_us", b.latency_us},
                     {"detail", k.detail}});
  }
  const double tflops = total_us > 0 ? flops / total_us / 1e6 : 0;
  const double gbps = total_us > 0 ? (logical > 0 ? logical : hbm) / total_us / 1e3 : 0;
  if (o.json) {
    nlohmann::ordered_json j{
        {"hardware", hw.name},       {"time_us", total_us},      {"bound", bound},
        {"achieved_tflops", tflops}, {"achieved_gbps", gbps},    {"waves", waves},
        {"useful_flops", flops},     {"logical_bytes", logical}, {"kernels", parts}};
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << fmt::format("hardware      {}\n", hw.name);
  for (const auto& p : parts) {
    ctx.out << fmt::format("kernel        {}  ({})\n", p["name"].get<std::string>(),
                           p["detail"].get<std::string>());
    ctx.out << fmt::format("  time        {:.2f} us, {}-bound on {} SMs\n",
                           p["time_us"].get<double>(), p["bound"].get<std::string>(),
                           p["sms"].get<int>());
    ctx.out << fmt::format(
        "  alone by    compute {:.2f} | HBM {:.2f} | L2 {:.2f} | link {:.2f} | latency {:.2f} us\n",
        p["compute_us"].get<double>(), p["hbm_us"].get<double>(), p["l2_us"].get<double>(),
        p["link_us"].get<double>(), p["latency_us"].get<double>());
  }
  ctx.out << fmt::format("total         {:.2f} us ({}-bound)\n", total_us, bound);
  if (flops > 0) ctx.out << fmt::format("achieved      {:.1f} TFLOP/s\n", tflops);
  ctx.out << fmt::format("bandwidth     {:.1f} GB/s {}\n", gbps,
                         logical > 0 ? "(logical bytes)" : "(HBM bytes)");
  if (waves > 0) ctx.out << fmt::format("waves         {}\n", waves);
  return 0;
}

}  // namespace

void add_kernel_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<KernelOptions>();
  auto* cmd = app.add_subcommand(
      "kernel",
      "The cost of one kernel alone on a hardware profile: time, what bounds it\n"
      "(compute, hbm, l2, link, latency), achieved TFLOP/s and GB/s, waves.");
  cmd->add_option("--hw", o->hw, "Hardware profile (name or path)")->capture_default_str();
  cmd->add_option("--model", o->model,
                  "Model whose architecture gives the shape numbers not given (default "
                  "deepseek-v3; deepseek-v4-pro for mhc_pre and mhc_post)");
  cmd->add_option("--gemm", o->gemm, "GEMM M,N,K (M per group for grouped layouts)")
      ->delimiter(',')
      ->expected(3)
      ->check(flags::whole_count(1));
  cmd->add_option("--groups", o->groups, "GEMM groups (experts)")->check(flags::whole_int(1));
  cmd->add_option("--layout", o->layout, "GEMM layout")
      ->check(flags::one_of({"dense", "contiguous", "masked"}));
  cmd->add_option("--dtype", o->dtype, "GEMM dtype")->check(flags::one_of({"bf16", "fp8", "fp4"}));
  cmd->add_option("--deepep", o->deepep, "DeepEP mode")
      ->check(flags::one_of({"normal", "low_latency"}));
  cmd->add_option("--op", o->op, "DeepEP op")->check(flags::one_of({"dispatch", "combine"}));
  cmd->add_option("--ep,--ep-size,--expert-parallel-size", o->ep, "EP size (ranks)")
      ->check(flags::whole_int(1));
  cmd->add_option("--tokens", o->tokens, "Tokens on this GPU (DeepEP, memory kernels)")
      ->check(flags::whole_count(1));
  cmd->add_option("--hidden", o->hidden, "Hidden size (default: the model's)")
      ->check(flags::whole_int(1));
  cmd->add_option("--topk", o->topk, "Experts per token (default: the model's)")
      ->check(flags::whole_int(1));
  cmd->add_option("--experts", o->experts, "Routed experts (default: the model's)")
      ->check(flags::whole_int(1));
  cmd->add_option("--expert-groups", o->expert_groups, "Expert groups (group-limited routing)")
      ->check(flags::whole_int(1));
  cmd->add_option("--topk-groups", o->topk_groups, "Groups a token may use")
      ->check(flags::whole_int(1));
  cmd->add_option("--gpus-per-node", o->gpus_per_node,
                  "GPUs per NVLink domain (default: the profile's nvlink_domain_gpus)")
      ->check(flags::whole_int(1));
  cmd->add_option("--attention", o->attention, "Attention kernel")
      ->check(flags::one_of({"mla_decode", "sparse_decode", "dense_prefill", "sparse_prefill"}));
  cmd->add_option("--batch", o->batch, "Attention: requests")->check(flags::whole_int(1));
  cmd->add_option("--q-len", o->q_len, "Attention: query tokens per request")
      ->check(flags::whole_int(1));
  cmd->add_option("--kv-len", o->kv_len, "Attention: keys per request")->check(flags::whole_int(1));
  cmd->add_option("--heads", o->heads, "Attention, rope: query heads (default: the model's)")
      ->check(flags::whole_int(1));
  cmd->add_option("--d-qk", o->d_qk,
                  "Attention: query/key head dim (default: the model's decode attention)")
      ->check(flags::whole_int(1));
  cmd->add_option("--d-v", o->d_v,
                  "Attention: value head dim (default: the model's decode attention)")
      ->check(flags::whole_int(1));
  cmd->add_option("--attn-topk", o->attn_topk, "Sparse attention: keys per query")
      ->check(flags::whole_count(0));
  cmd->add_option("--kv-dtype", o->kv_dtype, "KV cache dtype")
      ->check(flags::one_of({"bf16", "fp8"}));
  cmd->add_option("--memory", o->memory, "Memory-bound kernel")
      ->check(flags::one_of(memory_op_names()));
  cmd->add_option("--dim", o->dim, "Memory kernels: hidden dim (default: the model's)")
      ->check(flags::whole_int(1));
  cmd->add_option("--sms", o->sms, "Price it on this many SMs")->check(flags::whole_int(1));
  cmd->add_flag("--json", o->json,
                "Print one JSON object (time_us, bound, achieved_tflops, achieved_gbps, waves)");
  cmd->callback([o, &ctx] { ctx.exit_code = run_kernel(*o, ctx); });
}

}  // namespace ovs
