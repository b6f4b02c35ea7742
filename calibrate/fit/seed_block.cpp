#include "calibrate/fit/seed_block.hpp"

#include <algorithm>

#include "app/strategy/strategy.hpp"
#include "models/config/model_config.hpp"
#include "models/graph/layer_builder.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {
namespace {

Workload seed_workload(std::int64_t tokens) {
  Workload w;
  w.phase = Phase::prefill;
  w.tokens_per_gpu = tokens;
  w.context = tokens;
  w.ep = 8;
  return w;
}

// The attn op of the model's first CSA layer.
const OpPlan& csa_attention(const LayerBuilder& lb) {
  int csa = 0;
  while (csa < lb.model().layers && lb.layer_type(csa) != LayerType::csa) ++csa;
  if (csa == lb.model().layers)
    throw InputError(lb.model().file, 0, "compress_ratios", "the model has no CSA (ratio 4) layer");
  return *lb.plan(csa, whole_batch(lb.workload()), "A").find("attn");
}

// The block's kernels under the multi-stream plan's placement (side streams, records, waits).
Program block_program(const OpPlan& attn, const Strategy& ms) {
  Program p;
  p.streams = {{"main", 0}};
  for (const auto& s : ms.side_streams) p.streams.push_back({s, 0});
  auto stream = [&](const std::string& n) {
    for (size_t i = 0; i < p.streams.size(); ++i)
      if (p.streams[i].name == n) return int(i);
    return 0;
  };
  auto event = [&](const std::string& n) {
    for (size_t i = 0; i < p.events.size(); ++i)
      if (p.events[i] == n) return int(i);
    p.events.push_back(n);
    return int(p.events.size()) - 1;
  };
  p.actions.push_back({RecordAction{event("op_start"), 0}, {}});
  for (const auto& k : attn.kernels) {
    // The seed's block ends before the attention kernel (its 2290 us are the projections, the
    // indexer, the compressor and the KV write).
    if (k.name == "attention") break;
    int s = 0;
    const Placement* pl = nullptr;
    for (const auto& x : ms.for_type(LayerType::csa).placement)
      if (x.op == "attn" && x.kernel == k.name) pl = &x;
    if (pl) {
      s = stream(pl->stream);
      for (const auto& e : pl->wait)
        if (std::find(p.events.begin(), p.events.end(), e) != p.events.end())
          p.actions.push_back({WaitAction{event(e), s}, {}});
    }
    p.kernels.push_back(k.cost.spec(s));
    p.kernels.back().name = k.name;
    p.actions.push_back({LaunchAction{int(p.kernels.size()) - 1, 0.0}, {}});
    if (pl)
      for (const auto& e : pl->record) p.actions.push_back({RecordAction{event(e), s}, {}});
  }
  return p;
}

// The block under the multi-stream plan, run once: its program and each kernel's duration in
// that run.
struct BlockRun {
  Program program;
  std::vector<double> durations_us;
  double makespan_us = 0;
};
BlockRun run_block(const HwProfile& hw, const std::string& model, std::int64_t tokens) {
  const ModelConfig m = load_model_config(model);
  const LayerBuilder lb(m, hw, seed_workload(tokens));
  BlockRun r;
  r.program = block_program(csa_attention(lb), load_strategy("multistream", m.family));
  Timeline tl(r.program);
  r.makespan_us = Engine(hw.engine).run(r.program, &tl).makespan_us;
  for (const auto& k : tl.kernels()) r.durations_us.push_back(k.duration_us());
  return r;
}

// Summed durations in the run of the kernels whose names start with one of `prefixes`.
double in_run_us(const BlockRun& r, const std::vector<std::string>& prefixes) {
  double total = 0;
  for (size_t i = 0; i < r.program.kernels.size(); ++i)
    for (const auto& x : prefixes)
      if (r.program.kernels[i].name.rfind(x, 0) == 0) {
        total += r.durations_us[i];
        break;
      }
  return total;
}

}  // namespace

SeedBlock seed_block(const HwProfile& hw, const std::string& model, std::int64_t tokens) {
  const BlockRun r = run_block(hw, model, tokens);
  SeedBlock b;
  b.makespan_us = r.makespan_us;
  b.serial_us = Engine(hw.engine).run(serialized(r.program)).makespan_us;
  b.wqkv_a_us = in_run_us(r, {"wqkv_a"});
  b.q_b_us = in_run_us(r, {"q_b"});
  return b;
}

double seed_block_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                     bool multistream) {
  const SeedBlock b = seed_block(hw, model, tokens);
  return multistream ? b.makespan_us : b.serial_us;
}

double seed_in_run_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                      const std::vector<std::string>& prefixes) {
  return in_run_us(run_block(hw, model, tokens), prefixes);
}

double seed_side_branches_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                             const std::vector<std::string>& prefixes) {
  const ModelConfig m = load_model_config(model);
  const LayerBuilder lb(m, hw, seed_workload(tokens));
  double total = 0;
  for (const auto& k : csa_attention(lb).kernels)
    for (const auto& p : prefixes)
      if (k.name.rfind(p, 0) == 0) {
        total += solo_time_us(hw.engine, k.cost.spec());
        break;
      }
  return total;
}

}  // namespace ovs
