// overlapsim search --model M --hw H --phase P --tokens-per-gpu N --context C --ep E [--out
// best.yaml]
#include <limits>

#include "app/cli/commands.hpp"
#include "app/cli/flag_checks.hpp"
#include "app/cli/v4_kernels_flag.hpp"
#include "app/search/search_run.hpp"
#include "sim/io/atomic_file.hpp"

namespace ovs {
namespace {

struct SearchOptions {
  std::string model = "deepseek-v3", hw = "h800-sxm";
  WorkloadWords workload;
  std::string against;
  int top = 5;
  double latency_bound_us = 0;
  std::string out;
  bool json = false;
};

int run(const SearchOptions& o, CliContext& ctx) {
  SearchRequest r;
  r.base.model = o.model;
  r.base.hw = o.hw;
  r.base.workload = resolve_workload(o.workload, RequestSource{});
  const Phase phase = r.base.workload.phase;
  r.base.strategy =
      o.against.empty() ? (phase == Phase::prefill ? "tbo-prefill" : "tbo-decode") : o.against;
  r.top = o.top;
  r.latency_bound_us = o.latency_bound_us;
  const SearchReport rep = run_search(r);
  if (!o.out.empty()) {
    AtomicFile f(o.out);
    f.stream() << rep.best_yaml;
    f.commit();
  }
  if (o.json) {
    write_search_json(ctx.out, rep, r);
  } else {
    write_search_report(ctx.out, rep, r);
    if (!o.out.empty()) ctx.out << "wrote " << o.out << "\n";
  }
  return 0;
}

}  // namespace

void add_search_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<SearchOptions>();
  auto* cmd = app.add_subcommand("search",
                                 "Search the strategy space for a model, GPU and workload: yield "
                                 "positions in each layer type's\n"
                                 "op list, where the shared experts go, delta stages 0-3, DeepGEMM "
                                 "SMs, DeepEP mode, and (V4)\n"
                                 "side streams. Prints the best strategies against SGLang's "
                                 "shipped one; --out writes the best.");
  cmd->add_option("--model", o->model, "Model")->capture_default_str();
  cmd->add_option("--hw", o->hw, "Hardware profile")->capture_default_str();
  cmd->add_option("--phase", o->workload.phase, "prefill or decode")
      ->check(flags::one_of({"prefill", "decode"}))
      ->capture_default_str();
  cmd->add_option("--tokens-per-gpu", o->workload.tokens_per_gpu,
                  "Prefill tokens or decode requests per GPU")
      ->required()
      ->check(flags::whole_count(1));
  cmd->add_option("--context", o->workload.context, "Prompt length or KV length")
      ->required()
      ->check(flags::whole_count(1));
  cmd->add_option("--ep,--ep-size,--expert-parallel-size", o->workload.ep, "Expert-parallel size")
      ->required()
      ->check(flags::whole_int(1));
  cmd->add_option("--gpus-per-node", o->workload.gpus_per_node,
                  "GPUs per NVLink domain (default: the profile's nvlink_domain_gpus)")
      ->check(flags::whole_int(1));
  cmd->add_option("--redundant-experts", o->workload.redundant_experts,
                  "Extra physical expert copies (SGLang --ep-num-redundant-experts)")
      ->check(flags::whole_int(0));
  cmd->add_option("--imbalance", o->workload.imbalance,
                  "Hottest rank's expert load over the mean: auto (routing statistics) or >= 1")
      ->check(flags::auto_or_real(1, std::numeric_limits<double>::infinity()));
  cmd->add_option("--placement", o->workload.placement, "Expert placement: eplb or balanced")
      ->check(flags::one_of({"eplb", "balanced"}));
  add_v4_kernels_flag(cmd, o->workload.v4_kernels);
  cmd->add_option("--deepep-mode", o->workload.deepep_mode,
                  "normal, low_latency or auto (search both)")
      ->check(flags::one_of({"normal", "low_latency", "auto"}));
  cmd->add_option("--cuda-graphs", o->workload.cuda_graphs, "on, off or auto")
      ->check(flags::one_of({"on", "off", "auto"}));
  cmd->add_option("--against", o->against,
                  "Shipped strategy to compare with (default tbo-decode / tbo-prefill)");
  cmd->add_option("--top", o->top, "Candidates kept per layer type")->check(flags::whole(1, 1000));
  cmd->add_option("--latency-bound-us", o->latency_bound_us,
                  "Rank by throughput among strategies within this forward time")
      ->check(flags::real(0, std::numeric_limits<double>::infinity()));
  cmd->add_option("--out", o->out, "Write the best strategy as YAML (whatif accepts it)");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o, ctx); });
}

}  // namespace ovs
