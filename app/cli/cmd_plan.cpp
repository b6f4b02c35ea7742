// overlapsim plan --model M --hw H --phase decode|prefill --gpus N [--gpus-per-node G]
//   (--tpot-ms T [--context C] | --ttft-ms T --prompt-len L) [--strategies a,b] [--json]
//   [--csv FILE] [--chart FILE.svg]
#include <fmt/format.h>

#include <initializer_list>
#include <limits>
#include <utility>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/cli/memory_flags.hpp"
#include "app/cli/v4_kernels_flag.hpp"
#include "app/plan/plan.hpp"
#include "app/sweep/threads.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"

namespace ovs {
namespace {

struct PlanOptions {
  PlanRequest req;
  std::string phase = "decode";
  double tpot_ms = 0, ttft_ms = 0;
  long long context = 0, prompt_len = 0;
  double mtp_acceptance = 0;
  bool json = false;
  std::string csv, chart;
};

void write_file(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

// The first of `given` that was set is an error: a flag of the other phase.
void refuse_given(std::initializer_list<std::pair<const char*, bool>> given, const char* why) {
  for (const auto& [flag, set] : given)
    if (set) throw flag_error(flag, why);
}

int run(PlanOptions& o, CliContext& ctx) {
  PlanRequest& r = o.req;
  r.phase = o.phase == "prefill" ? Phase::prefill : Phase::decode;
  if (r.phase == Phase::decode) {
    if (o.tpot_ms <= 0)
      throw flag_error("--tpot-ms", "decode needs a time-per-output-token target");
    refuse_given({{"--ttft-ms", o.ttft_ms > 0}, {"--prompt-len", o.prompt_len > 0}},
                 "is a prefill target; decode takes --tpot-ms and --context");
    r.target_ms = o.tpot_ms;
    r.context = o.context > 0 ? o.context : 4096;
    if (o.context > 0 && (!r.context_lens.empty() || !r.isl.empty()))
      throw flag_error("--context", "give the KV lengths once: --context, --context-lens or --isl");
    plan_context_lens(r, 1);  // a malformed length spec fails here, before any point runs
  } else {
    if (o.ttft_ms <= 0) throw flag_error("--ttft-ms", "prefill needs a time-to-first-token target");
    if (o.prompt_len <= 0 && r.isl.empty())
      throw flag_error("--prompt-len",
                       "prefill needs the prompt length of the target (or --isl: prompts drawn "
                       "for each point's batch)");
    refuse_given({{"--prompt-len", o.prompt_len > 0 && !r.isl.empty()}},
                 "give the prompt lengths once: --prompt-len or --isl");
    refuse_given({{"--tpot-ms", o.tpot_ms > 0}, {"--context", o.context > 0}},
                 "is a decode target; prefill takes --ttft-ms and --prompt-len (or --isl)");
    r.target_ms = o.ttft_ms;
    r.context = o.prompt_len;
    refuse_given({{"--context-lens", !r.context_lens.empty()}, {"--osl", !r.osl.empty()}},
                 "is for decode; a prefill batch is its prompts (--prompt-len or --isl)");
    if (!r.isl.empty()) plan_prompt_lens(r, 1, nullptr);  // a malformed spec fails here
  }
  if (o.mtp_acceptance > 0) r.mtp_acceptance = o.mtp_acceptance;
  const PlanResult res = run_plan(r);
  if (!o.csv.empty()) write_file(o.csv, plan_csv(res));
  if (!o.chart.empty()) write_file(o.chart, plan_chart_svg(res));
  if (o.json)
    write_plan_json(ctx.out, res);
  else
    write_plan_table(ctx.out, res);
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<PlanOptions>();
  auto* cmd = app.add_subcommand(
      "plan",
      "Plan a deployment: for a model, a GPU, a phase and a number of GPUs, the batch per GPU, EP\n"
      "size, redundant experts, MTP and overlap strategy that give the most tokens/s per GPU\n"
      "within a latency target (decode: time per output token; prefill: time to first token),\n"
      "the Pareto frontier, and SGLang's launch flags for the best point.");
  cmd->add_option("--model", o->req.model, "Model name or YAML path")->capture_default_str();
  cmd->add_option("--hw", o->req.hw, "Hardware profile name or YAML path")->capture_default_str();
  cmd->add_option("--phase", o->phase, "prefill or decode")
      ->check(flags::one_of({"prefill", "decode"}))
      ->capture_default_str();
  cmd->add_option("--gpus", o->req.gpus, "GPUs to deploy on (one or more EP groups)")
      ->required()
      ->check(flags::whole(1, 1 << 20));
  cmd->add_option("--gpus-per-node", o->req.gpus_per_node,
                  "GPUs per NVLink domain (default: the profile's nvlink_domain_gpus)")
      ->check(flags::whole(1, 1 << 20));
  cmd->add_option("--gpus-per-host", o->req.gpus_per_host,
                  "GPUs per host, counted by SGLang's --nnodes (default: the profile's "
                  "gpus_per_host: 8 on HGX, 4 on GB200 NVL72)")
      ->check(flags::whole(1, 1 << 20));
  cmd->add_option("--tpot-ms", o->tpot_ms, "Decode: time-per-output-token target (ms)")
      ->check(flags::positive());
  cmd->add_option("--context", o->context, "Decode: KV length of every request (default 4096)")
      ->check(flags::whole_count(1));
  cmd->add_option("--context-lens", o->req.context_lens,
                  "Decode: the requests' KV lengths, drawn for each point's batch: a "
                  "distribution (uniform:A,B, normal:MEAN,SD, lognormal:MEAN,SD), file:PATH or a "
                  "list (repeated)");
  cmd->add_option("--isl", o->req.isl,
                  "Input lengths (a length, distribution or file:PATH). Decode: each request's "
                  "KV is its input plus a uniform share of --osl; prefill (instead of "
                  "--prompt-len): each point's batch is prompts drawn until they hold its tokens, "
                  "the TTFT that of the longest drawn");
  cmd->add_option("--osl", o->req.osl, "Decode: output lengths (with --isl)");
  cmd->add_option("--seed", o->req.seed, "Seed of the drawn lengths")->capture_default_str();
  cmd->add_option("--ttft-ms", o->ttft_ms, "Prefill: time-to-first-token target (ms)")
      ->check(flags::positive());
  cmd->add_option("--prompt-len", o->prompt_len, "Prefill: prompt length of the TTFT target")
      ->check(flags::whole_count(1));
  cmd->add_option("--strategies", o->req.strategies,
                  "Strategies to compare, comma-separated (default: every shipped one of the "
                  "model's family that SGLang runs for this phase, and the candidates it lacks)")
      ->delimiter(',');
  cmd->add_option("--tokens-per-gpu", o->req.tokens,
                  "Batch sizes per GPU to search, comma-separated (decode: requests)")
      ->delimiter(',')
      ->check(flags::whole_count(1));
  cmd->add_option("--ep,--ep-size,--expert-parallel-size", o->req.eps,
                  "EP sizes to search, comma-separated (default: the divisors of --gpus that "
                  "are whole hosts inside an NVLink domain or whole domains, and --gpus)")
      ->delimiter(',')
      ->check(flags::whole(1, 1 << 20));
  cmd->add_option("--redundant-experts", o->req.redundant,
                  "Redundant experts to search, comma-separated (default per EP size: the "
                  "fewest that let EP divide the experts)")
      ->delimiter(',')
      ->check(flags::whole(0, 1 << 20));
  cmd->add_option("--mtp", o->req.mtp,
                  "Multi-token prediction: auto (off and on where the model config gives an "
                  "acceptance rate), on, off")
      ->check(flags::one_of({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->add_option("--mtp-acceptance", o->mtp_acceptance,
                  "Share of drafted tokens accepted (overrides the model config)")
      ->check(flags::positive(1));
  cmd->add_option("--imbalance", o->req.imbalance,
                  "Hottest rank's expert load over the mean (default: from the routing statistics, "
                  "EP size and batch of each point)")
      ->check(flags::real(1, std::numeric_limits<double>::infinity()));
  cmd->add_option("--placement", o->req.placement,
                  "Expert placement: eplb (SGLang's EPLB) or balanced (perfect)")
      ->check(flags::one_of({"eplb", "balanced"}))
      ->capture_default_str();
  add_v4_kernels_flag(cmd, o->req.v4_kernels);
  add_memory_flags(cmd, o->req.memory, /*any_tp=*/false);
  cmd->add_option("-j,--jobs", o->req.jobs,
                  fmt::format("Threads, 1 to {} (default: all cores, {} here)", flags::max_jobs(),
                              all_cores()))
      ->check(flags::whole(1, flags::max_jobs()));
  cmd->add_flag("--json", o->json, "Print one JSON object");
  auto* uncertainty =
      cmd->add_option("--uncertainty",
                      "Draw the best point's what-if N times (default 64) within the files' "
                      "spreads and say in how many the target is met (marked below 80 %)")
          ->expected(0, 1)
          ->type_name("[N]");
  cmd->add_option("--csv", o->csv, "Write every point (with why it was left out) to this CSV");
  cmd->add_option("--chart", o->chart, "Write the Pareto chart to this SVG file");
  cmd->callback([o, uncertainty, &ctx] {
    o->req.uncertainty = flags::optional_count(*uncertainty, 64);
    ctx.exit_code = run(*o, ctx);
  });
}

}  // namespace ovs
