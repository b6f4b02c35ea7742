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

Workload seed_workload(std::int64_t tokens, V4Kernels path) {
  Workload w;
  w.v4_kernels = path;
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
      if (x.op == "attn" && x.kernel == kernel_group(k.name)) pl = &x;
    const bool first =
        p.kernels.empty() || kernel_group(p.kernels.back().name) != kernel_group(k.name);
    const auto next = &k + 1;
    const bool last = next == attn.kernels.data() + attn.kernels.size() ||
                      kernel_group(next->name) != kernel_group(k.name);
    if (pl) {
      s = stream(pl->stream);
      if (first)
        for (const auto& e : pl->wait)
          if (std::find(p.events.begin(), p.events.end(), e) != p.events.end())
            p.actions.push_back({WaitAction{event(e), s}, {}});
    }
    p.kernels.push_back(k.cost.spec(s));
    p.kernels.back().name = k.name;
    p.actions.push_back({LaunchAction{int(p.kernels.size()) - 1, 0.0}, {}});
    if (pl && last)
      for (const auto& e : pl->record) p.actions.push_back({RecordAction{event(e), s}, {}});
  }
  return p;
}

// The block run once, under the multi-stream plan or on one stream: its program and each
// kernel's duration in that run.
struct BlockRun {
  Program program;
  std::vector<double> durations_us;
  double makespan_us = 0;
};
BlockRun run_block(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                   V4Kernels path, bool multistream) {
  const ModelConfig m = load_model_config(model);
  const LayerBuilder lb(m, hw, seed_workload(tokens, path));
  BlockRun r;
  r.program = block_program(csa_attention(lb), load_strategy("multistream", m.family));
  if (!multistream) r.program = serialized(r.program);
  Timeline tl(r.program);
  r.makespan_us = Engine(hw.engine).run(r.program, &tl).makespan_us;
  for (const auto& k : tl.kernels()) r.durations_us.push_back(k.duration_us());
  return r;
}

// Summed durations in the run of the kernels whose names start with one of `prefixes`.
double summed_us(const BlockRun& r, const std::vector<std::string>& prefixes) {
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

SeedBlock seed_block(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                     V4Kernels path) {
  const BlockRun r = run_block(hw, model, tokens, path, true);
  const BlockRun s = run_block(hw, model, tokens, path, false);
  SeedBlock b;
  b.makespan_us = r.makespan_us;
  b.serial_us = s.makespan_us;
  b.wqkv_a_us = summed_us(s, {"wqkv_a"});
  b.q_b_us = summed_us(s, {"q_b"});
  b.side_kernels = 0;
  for (const auto& k : s.program.kernels) b.side_kernels += is_v4_side_branch(k.name);
  return b;
}

double seed_block_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                     bool multistream, V4Kernels path) {
  const SeedBlock b = seed_block(hw, model, tokens, path);
  return multistream ? b.makespan_us : b.serial_us;
}

double seed_serial_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                      const std::vector<std::string>& prefixes, V4Kernels path) {
  return summed_us(run_block(hw, model, tokens, path, false), prefixes);
}

double seed_side_branches_us(const HwProfile& hw, const std::string& model, std::int64_t tokens,
                             const std::vector<std::string>& prefixes, V4Kernels path) {
  const ModelConfig m = load_model_config(model);
  const LayerBuilder lb(m, hw, seed_workload(tokens, path));
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
