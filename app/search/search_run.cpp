#include "app/search/search_run.hpp"

#include "app/strategy/sglang_gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/simulation_error.hpp"

namespace ovs {
namespace {

// A short model of one layer type: long enough for the micro-batch pipeline to reach its steady
// state; the layer time is measured between the ends of layers 2 and 5 (of 0..5), over 3 layers.
constexpr int kShortLayers = 6;
constexpr int kMeasureFrom = 2, kMeasureTo = 5;

// A model of `layers` layers all of one type (the steady state of that type).
ModelConfig short_model(const ModelConfig& m, LayerType type, const LayerBuilder& full) {
  ModelConfig s = m;
  s.layers = kShortLayers;
  s.dense_layers = 0;
  s.hash_layers = 0;
  if (m.family == ModelFamily::v4) {
    int ratio = 0;
    for (int l = 0; l < m.layers; ++l)
      if (full.layer_type(l) == type) ratio = m.compress_ratios[l];
    s.compress_ratios.assign(kShortLayers, ratio);
  }
  return s;
}

// Records when each layer's last kernel ends (a lighter observer than a full timeline).
class LayerEnds : public Observer {
 public:
  LayerEnds(const BuiltProgram& b, int layers) : b_(b), end_us(layers, 0.0) {}
  void on_kernel_end(double t, int k) override {
    const int l = b_.info[k].layer;
    if (l >= 0 && l < int(end_us.size())) end_us[l] = std::max(end_us[l], t);
  }

 private:
  const BuiltProgram& b_;

 public:
  std::vector<double> end_us;
};

// Evaluates candidates of one layer type on the short model; one layer builder per DeepEP mode
// (their layer plans are memoized across candidates).
class ShortModelEvaluator {
 public:
  ShortModelEvaluator(const ModelConfig& m, const HwProfile& hw, const Workload& w, LayerType type,
                      const SpaceOptions& opts)
      : m_(m), hw_(hw), w_(w), type_(type), opts_(opts) {}

  // A candidate that cannot be built or run takes forever (its failure is kept: failures()).
  double operator()(const Candidate& c) {
    const Strategy s = to_strategy("candidate", m_.family, {{type_, c}}, opts_);
    LayerBuilder& lb = builder(c.mode);
    try {
      const BuiltProgram b = build_program(lb, s);
      LayerEnds ends(b, m_.layers);
      Engine(hw_.engine).run(b.program, &ends);
      return (ends.end_us[kMeasureTo] - ends.end_us[kMeasureFrom]) / (kMeasureTo - kMeasureFrom);
    } catch (const InputError& e) {
      failed(e.what());
    } catch (const SimulationError& e) {
      failed(e.what());
    }
    return std::numeric_limits<double>::infinity();
  }

  // Work of simulating a branch's program with a yield after every op, in host actions plus
  // engine steps: both deterministic, both proportional to the time a candidate takes.
  long long cost(const Candidate& branch) {
    Candidate c = branch;
    c.yield_after.assign(branch.ops.size(), 1);
    try {
      const BuiltProgram b =
          build_program(builder(branch.mode), to_strategy("size", m_.family, {{type_, c}}, opts_));
      const RunResult r = Engine(hw_.engine).run(b.program);
      return static_cast<long long>(b.program.actions.size()) + r.steps;
    } catch (const InputError& e) {
      failed(e.what());
    } catch (const SimulationError& e) {
      failed(e.what());
    }
    return 1;
  }

  // Lower bound of a branch: every candidate runs its compute-stream kernels one after another,
  // alone at best: the smaller of that sum with the batch split (two-batch overlap) and whole
  // (one batch) bounds every yield placement of the branch.
  double bound(const Candidate& branch) {
    double best = std::numeric_limits<double>::infinity();
    for (bool tbo : {false, true}) {
      Candidate c = branch;
      c.tbo = tbo;
      c.yield_after.assign(branch.ops.size(), 0);
      c.yield_after.back() = 1;
      const Strategy s = to_strategy("bound", m_.family, {{type_, c}}, opts_);
      LayerBuilder& lb = builder(branch.mode);
      try {
        const BuiltProgram b = build_program(lb, s);
        double compute = 0;
        for (size_t i = 0; i < b.program.kernels.size(); ++i)
          if (b.info[i].layer >= 0 && b.program.kernels[i].stream == 0)
            compute += solo_breakdown(hw_.engine, b.program.kernels[i]).total_us();
        best = std::min(best, compute / m_.layers);
      } catch (const InputError& e) {
        failed(e.what());
      } catch (const SimulationError& e) {
        failed(e.what());
      }
    }
    return best;
  }

 private:
  LayerBuilder& builder(DeepepMode mode) {
    auto it = builders_.find(mode);
    if (it == builders_.end()) {
      Workload w = w_;
      w.deepep_mode = mode;
      settle_cuda_graphs(w);  // succeeds: only modes that can run are searched (run_search)
      it = builders_.emplace(mode, std::make_unique<LayerBuilder>(m_, hw_, w)).first;
    }
    return *it->second;
  }
  const ModelConfig& m_;
  const HwProfile& hw_;
  Workload w_;
  LayerType type_;
  const SpaceOptions& opts_;
  std::map<DeepepMode, std::unique_ptr<LayerBuilder>> builders_;
  std::map<std::string, long long> failures_;

  void failed(const std::string& why) { ++failures_[why]; }

 public:
  // Why programs of this layer type could not be built or run, with how many times each.
  const std::map<std::string, long long>& failures() const { return failures_; }
};

std::vector<Candidate> branches_of(const LayerBuilder& lb, LayerType type,
                                   const SpaceOptions& opts) {
  std::vector<Candidate> out;
  for (const auto& order : op_orders(lb.canonical_ops(type), lb.op_graph(type)))
    for (DeepepMode mode : opts.modes)
      for (bool cap : {false, true}) {
        if (cap && (mode != DeepepMode::normal || !opts.allow_deep_gemm_cap)) continue;
        for (bool side : {false, true}) {
          if (side && !opts.allow_side_streams) continue;
          Candidate c;
          c.ops = order;
          c.yield_after.assign(order.size(), 0);
          c.mode = mode;
          c.deep_gemm_auto = cap;
          c.side_streams = side;
          out.push_back(c);
        }
      }
  return out;
}

// The baseline strategy run another way (its cache key says how).
Strategy baseline_variant(const Strategy& base, std::optional<DeepepMode> mode, bool cap) {
  Strategy s = base;
  if (mode) {
    s.deepep_mode = mode;
    s.file += *mode == DeepepMode::normal ? "#deepep_mode=normal" : "#deepep_mode=low_latency";
  }
  if (cap) {
    s.deep_gemm_auto = true;
    s.file += "#deep_gemm_num_sms=auto";
  }
  return s;
}

GainSplit split_gain(WhatIfSession& session, const Strategy& baseline, const Strategy& best) {
  GainSplit g;
  const Workload wb = session.workload_for(baseline);
  const Workload wbest = session.workload_for(best);
  auto name = [](DeepepMode m) { return m == DeepepMode::normal ? "normal" : "low_latency"; };
  g.default_mode = name(wb.mode());
  g.best_mode = name(wbest.mode());
  g.best_caps_sms = best.deep_gemm_auto || best.deep_gemm_num_sms > 0;
  // Overlap inside one batch is an op order: the shared experts between a communication's
  // halves (single-batch overlap) where the baseline waits right away.
  bool reordered = false;
  for (const auto& [type, l] : best.layers) {
    auto ops = [](const LayerStrategy& ls) {
      std::vector<std::string> out;
      for (const auto& i : ls.items)
        if (i != kYield) out.push_back(i);
      return out;
    };
    if (const auto t = parse_layer_type(type))
      reordered = reordered || ops(l) != ops(baseline.for_type(*t));
  }
  std::vector<std::string> words;
  if (reordered) words.push_back("op order");
  if (best.two_batch_overlap) words.push_back("two micro-batches");
  if (!best.side_streams.empty()) words.push_back("side streams");
  g.best_overlaps = !words.empty();
  g.overlap_words = words.empty() ? "none" : yaml::join(words);
  g.baseline_us = session.run(baseline).stats.total_us;
  const Strategy in_mode = baseline_variant(baseline, wbest.mode(), false);
  g.baseline_best_mode_us = session.run(in_mode).stats.total_us;
  if (g.best_caps_sms) {
    Strategy capped = baseline_variant(baseline, wbest.mode(), best.deep_gemm_auto);
    if (!best.deep_gemm_auto) {
      capped.deep_gemm_num_sms = best.deep_gemm_num_sms;
      capped.file += "#deep_gemm_num_sms=" + std::to_string(best.deep_gemm_num_sms);
    }
    g.baseline_best_mode_sms_us = session.run(capped).stats.total_us;
  } else {
    g.baseline_best_mode_sms_us = g.baseline_best_mode_us;
  }
  g.best_us = session.run(best).stats.total_us;
  return g;
}

}  // namespace

SearchReport run_search(const SearchRequest& req) {
  SearchReport rep;
  const ModelConfig model = load_model_config(req.base.model);
  const HwProfile hw = load_hw_profile(req.base.hw);
  require_kernel_params(hw);
  const Workload w = in_nvlink_domain(resolve_workload(req.base.workload, RequestSource{}), hw);
  const LayerBuilder full(model, hw, w);
  // DeepEP modes: the one asked for, else both where they can run (low-latency buffers hold a
  // few hundred tokens per rank; normal mode cannot be captured in a CUDA graph).
  SpaceOptions opts;
  if (w.deepep_mode) {
    opts.modes = {w.mode()};
  } else {
    if (w.tokens() <= 512) opts.modes.push_back(DeepepMode::low_latency);
    if (allows_normal_mode(w)) opts.modes.push_back(DeepepMode::normal);
  }
  if (model.family == ModelFamily::v4) {
    const Strategy plan = for_vendor(load_strategy("multistream", model.family), hw.vendor);
    opts.allow_side_streams = true;
    opts.side_streams = plan.side_streams;
    for (const auto& type : full.layer_types())
      opts.side_plans[type] = plan.for_type(type).placement;
  }
  std::vector<std::pair<LayerType, Candidate>> best_per_type;
  for (const auto& type : full.layer_types()) {
    if (type == LayerType::dense) continue;
    const SpaceOptions& topts = opts;
    const ModelConfig sm = short_model(model, type, full);
    ShortModelEvaluator eval(sm, hw, w, type, topts);
    const auto t0 = std::chrono::steady_clock::now();
    const auto branches = branches_of(full, type, topts);
    // The budget is in simulation work (host actions and engine steps, machine-independent):
    // layer types whose programs take more work get fewer candidates.
    long long cost = 1;
    for (const auto& b : branches) cost = std::max(cost, eval.cost(b));
    const long long budget = std::clamp<long long>(req.budget_work / cost, 100, req.max_candidates);
    LayerSearch ls = search_layer(
        branches, [&](const Candidate& c) { return eval(c); },
        [&](const Candidate& c) { return eval.bound(c); }, req.top, budget);
    rep.seconds_per_type.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const auto& [why, times] : eval.failures())
      rep.failures.push_back(fmt::format("layer type {}: {} program(s) could not run: {}",
                                         to_string(type), times, why));
    if (ls.top.empty())
      throw InputError(model.file, 0, "layers",
                       "no candidate of layer type " + to_string(type) + " could run" +
                           (eval.failures().empty() ? std::string()
                                                    : " (" + eval.failures().begin()->first + ")"));
    best_per_type.push_back({type, ls.top.front().c});
    rep.per_type.push_back({type, std::move(ls)});
  }

  // Full model: the best per type, the runners-up of the first type combined with the best of
  // the others, and the shipped strategy - ranked by forward time (or throughput within a bound).
  const Strategy baseline = for_vendor(load_strategy(req.base.baseline, model.family), hw.vendor);
  WhatIfSession session(model, hw, w);
  rep.baseline_us = session.run(baseline).stats.total_us;
  auto rank = [&](const Strategy& s, const std::string& desc) {
    const ProgramStats& st = session.run(s).stats;
    return RankedStrategy{s,
                          st.total_us,
                          st.tokens_per_s_per_gpu,
                          desc,
                          st.memory.total_bytes / units::kBytesPerGB,
                          st.fits()};
  };
  // Candidates for the full model: the best of every kind on the first layer type, each with the
  // other types' best of the same kind (or their overall best), and the overall bests.
  std::vector<std::vector<std::pair<LayerType, Candidate>>> combos{best_per_type};
  for (const auto& first : rep.per_type.front().second.best_by_kind) {
    auto combo = best_per_type;
    combo.front().second = first.c;
    for (size_t t = 1; t < combo.size(); ++t)
      for (const auto& other : rep.per_type[t].second.best_by_kind)
        if (kind_of(other.c) == kind_of(first.c)) {
          combo[t].second = other.c;
          break;
        }
    combos.push_back(combo);
  }
  for (auto& combo : combos) {
    for (auto& [t, c] : combo) {
      c.delta = combo.front().second.delta;
      c.mode = combo.front().second.mode;
      c.deep_gemm_auto = combo.front().second.deep_gemm_auto;
      c.tbo = combo.front().second.tbo;
      if (!c.tbo) c.yield_after.assign(c.ops.size(), 0);
    }
    std::string desc;
    for (const auto& [t, c] : combo)
      desc += (desc.empty() ? "" : "; ") + to_string(t) + ": " + c.describe() +
              (c.tbo ? fmt::format(" (delta {})", c.delta) : std::string(" (one batch)")) +
              (c.side_streams ? " + side streams" : "");
    desc += fmt::format(", DeepEP {}{}",
                        combo.front().second.mode == DeepepMode::normal ? "normal" : "low-latency",
                        combo.front().second.deep_gemm_auto ? ", GEMMs on SMs - DeepEP SMs" : "");
    rep.ranked.push_back(rank(to_strategy("searched", model.family, combo, opts), desc));
  }
  const Strategy shipped = for_vendor(load_strategy(req.base.strategy, model.family), hw.vendor);
  rep.shipped = rank(shipped, "SGLang's shipped '" + shipped.name + "'");
  rep.shipped_outside_sglang = sglang_gate(shipped, session.workload_for(shipped), hw);
  rep.baseline_outside_sglang = sglang_gate(baseline, session.workload_for(baseline), hw);
  rep.ranked.push_back(rep.shipped);
  const double bound = req.latency_bound_us;
  rep.capacity_gb = device_capacity_bytes(hw) / units::kBytesPerGB;  // as SGLang sees it
  std::stable_sort(rep.ranked.begin(), rep.ranked.end(),
                   [&](const RankedStrategy& a, const RankedStrategy& b) {
                     if (a.fits != b.fits) return a.fits;  // what does not fit cannot be run
                     if (bound > 0) {
                       const bool ia = a.forward_us <= bound, ib = b.forward_us <= bound;
                       if (ia != ib) return ia;
                       return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
                     }
                     return a.forward_us < b.forward_us;
                   });
  const RankedStrategy& best = rep.ranked.front();
  Strategy named = best.strategy;
  named.name = "searched-" + model.name;
  rep.best_yaml = strategy_yaml(
      named,
      fmt::format(
          "Found by overlapsim search for {} on {}, {} {} {} per GPU, context {}, EP {}.\n{}\n"
          "Forward {:.1f} us against {:.1f} us for SGLang's '{}' and {:.1f} us without overlap.",
          model.name, hw.name, w.phase == Phase::prefill ? "prefill" : "decode", w.tokens_per_gpu,
          w.phase == Phase::prefill ? "tokens" : "requests", w.context, w.ep, best.description,
          best.forward_us, rep.shipped.forward_us, shipped.name, rep.baseline_us));
  rep.gain = split_gain(session, baseline, best.strategy);
  rep.caveats = caveats_for(session.workload_for(best.strategy), hw);
  return rep;
}

}  // namespace ovs
