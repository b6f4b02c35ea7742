// overlapsim sglang-check [--hw H] [--phase P] [--tokens-per-gpu N] [--context C] [--env K=V]...
//                         [--json] -- <SGLang launch command>
// Audits an SGLang launch for overlap: the deployment it understood, the overlap it runs against
// SGLang's other strategies at the batch, the flag change that pays, and the limits it breaks.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/plan/sglang_check.hpp"
#include "sim/core/error.hpp"
#include "sim/io/yaml_reader.hpp"

extern char** environ;

namespace ovs {
namespace {

using Json = nlohmann::ordered_json;

struct CheckOptions {
  std::string hw = "h800-sxm";
  std::string phase;
  long long tokens_per_gpu = 0;
  long long context = 4096;
  std::vector<std::string> env;
  std::vector<std::string> command;
  bool json = false;
};

// The SGLANG_* variables of this process's environment, then --env (which wins).
std::vector<std::string> environment(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e)
    if (std::string(*e).rfind("SGLANG_", 0) == 0) out.emplace_back(*e);
  out.insert(out.end(), given.begin(), given.end());
  return out;
}

Json deployment_json(const SglangDeployment& d, const SglangCheck& c) {
  return Json{{"model", c.model},
              {"model_path", d.model},
              {"phase", c.phase},
              {"tp", d.tp},
              {"dp", d.dp},
              {"dp_attention", d.dp_attention},
              {"ep", c.ep},
              {"moe_a2a_backend", d.a2a},
              {"deepep_mode", d.deepep_mode},
              {"redundant_experts", d.redundant_experts},
              {"strategy", c.strategy},
              {"two_batch_overlap", d.tbo},
              {"single_batch_overlap", d.sbo},
              {"tbo_token_distribution_threshold", d.tbo_threshold},
              {"cuda_graph", d.cuda_graph},
              {"cuda_graph_max_bs", d.cuda_graph_max_bs},
              {"mtp", !d.speculative.empty()},
              {"decode_q_len", d.decode_q_len()},
              {"nnodes", d.nnodes},
              {"tokens_per_gpu", c.tokens_per_gpu},
              {"multi_stream_overlap", d.multi_stream},
              {"deepep_ll_max_tokens_per_rank",
               d.deepep_ll_max_tokens > 0 ? Json(d.deepep_ll_max_tokens) : Json()}};
}

void write_text(std::ostream& out, const SglangDeployment& d, const SglangCheck& c) {
  out << "SGLang deployment understood\n";
  out << fmt::format("  model         {} ({})\n", c.model, d.model);
  out << fmt::format("  GPUs          tp {} dp {}{}, EP {} ({}{}), {} host(s)\n", d.tp, d.dp,
                     d.dp_attention ? " with DP attention" : "", c.ep, d.a2a,
                     d.a2a == "deepep" ? ", " + d.deepep_mode : "", d.nnodes);
  out << fmt::format("  experts       {} redundant\n", d.redundant_experts);
  out << fmt::format("  overlap       {}\n", c.strategy);
  out << fmt::format("  phase, batch  {}, {} {} per GPU, context {}\n", c.phase, c.tokens_per_gpu,
                     c.phase == "decode" ? "requests" : "tokens", c.result.workload.context);
  out << fmt::format(
      "  CUDA graphs   {}{}\n", d.cuda_graph ? "on" : "off",
      d.cuda_graph_max_bs > 0 ? fmt::format(", max batch {}", d.cuda_graph_max_bs) : std::string());
  out << fmt::format("  MTP           {}\n",
                     d.speculative.empty()
                         ? std::string("off")
                         : fmt::format("{}, {} tokens per step", d.speculative, d.decode_q_len()));
  for (const auto& n : d.notes) out << "  note: " << n << "\n";
  if (!d.ignored.empty()) {
    out << "  ignored (not what overlap depends on):";
    for (const auto& i : d.ignored) out << " " << i;
    out << "\n";
  }
  out << "\nAt this batch, against no-overlap:\n";
  const double current = c.strategy == "no-overlap" ? 1.0 : c.result.speedup;
  out << fmt::format("  {:<24} {:.3f}x  (the launch's)\n", c.strategy, current);
  for (const auto& a : c.result.alternatives)
    if (a.strategy != c.strategy)
      out << fmt::format("  {:<24} {:.3f}x{}\n", a.strategy, a.speedup,
                         a.both_fit ? "" : "  (does not fit)");
  if (c.best == c.strategy) {
    out << fmt::format("\nVerdict: the launch's '{}' is the best SGLang runs here.\n", c.strategy);
  } else {
    std::vector<std::string> diff;
    for (const auto& f : c.drop) diff.push_back("drop " + f);
    for (const auto& f : c.add) diff.push_back("add " + f);
    out << fmt::format("\nVerdict: {}: {:+.1f} % at {} per GPU ('{}' instead of '{}').\n",
                       diff.empty() ? std::string("change the strategy") : yaml::join(diff),
                       100 * c.gain, c.tokens_per_gpu, c.best, c.strategy);
  }
  if (!c.by_batch.empty()) {
    out << "Best by batch:";
    for (const auto& b : c.by_batch)
      out << fmt::format(" {} {} ({:.3f}x{});", b.tokens_per_gpu, b.best, b.speedup,
                         b.fits ? "" : ", does not fit");
    out << "\n";
  }
  for (const auto& l : c.limits) out << "limit: " << l << "\n";
}

int run(const CheckOptions& o, CliContext& ctx) {
  if (o.command.empty())
    throw flag_error("command",
                     "give the SGLang launch command after -- (python -m "
                     "sglang.launch_server --model-path ... or sglang serve ...)");
  SglangCheckRequest r;
  r.deployment = parse_sglang_command(o.command, environment(o.env));
  r.hw = o.hw;
  r.phase = o.phase;
  r.tokens_per_gpu = o.tokens_per_gpu;
  r.context = o.context;
  const SglangCheck c = run_sglang_check(r);
  if (!o.json) {
    write_text(ctx.out, r.deployment, c);
    return 0;
  }
  Json verdicts = Json::array();
  verdicts.push_back({{"strategy", c.strategy},
                      {"speedup", c.strategy == "no-overlap" ? 1.0 : c.result.speedup},
                      {"launch", true}});
  for (const auto& a : c.result.alternatives)
    if (a.strategy != c.strategy)
      verdicts.push_back({{"strategy", a.strategy},
                          {"speedup", a.speedup},
                          {"both_fit", a.both_fit},
                          {"launch", false}});
  Json by_batch = Json::array();
  for (const auto& b : c.by_batch)
    by_batch.push_back({{"tokens_per_gpu", b.tokens_per_gpu},
                        {"best", b.best},
                        {"speedup", b.speedup},
                        {"fits", b.fits}});
  Json j{
      {"deployment", deployment_json(r.deployment, c)},
      {"ignored", r.deployment.ignored},
      {"notes", r.deployment.notes},
      {"verdicts", verdicts},
      {"best_strategy", c.best},
      {"flag_diff",
       {{"drop", c.drop}, {"add", c.add}, {"gain", c.gain}, {"tokens_per_gpu", c.tokens_per_gpu}}},
      {"best_by_batch", by_batch},
      {"limits", c.limits}};
  ctx.out << j.dump(2) << "\n";
  return 0;
}

}  // namespace

void add_sglang_check_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand(
      "sglang-check",
      "Audit an SGLang launch for overlap: the deployment it understood, the overlap it runs\n"
      "against SGLang's other strategies at the batch, the flag change that pays, where the best\n"
      "strategy changes with the batch, and the limits it breaks. The command follows --:\n"
      "  overlapsim sglang-check --hw h800-sxm -- python -m sglang.launch_server --model-path ...");
  cmd->add_option("--hw", o->hw, "Hardware profile (name or YAML path)")->capture_default_str();
  cmd->add_option("--phase", o->phase,
                  "prefill or decode (default: --disaggregation-mode's, else decode)")
      ->check(flags::one_of({"prefill", "decode"}));
  cmd->add_option("--tokens-per-gpu", o->tokens_per_gpu,
                  "Batch per GPU (decode: requests; default: --cuda-graph-max-bs, else "
                  "--max-running-requests / --tp-size; prefill: --max-prefill-tokens, else "
                  "--chunked-prefill-size / --dp-size)")
      ->check(flags::whole(1, 1 << 30));
  cmd->add_option("--context", o->context, "KV length per request (decode) or prompt length")
      ->check(flags::whole(1, 1 << 30))
      ->capture_default_str();
  cmd->add_option("--env", o->env,
                  "An environment variable of the launch, NAME=VALUE (repeatable; SGLANG_* of "
                  "this process's environment are read too)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->add_option("command", o->command, "The SGLang launch command (after --)");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o, ctx); });
}

}  // namespace ovs
