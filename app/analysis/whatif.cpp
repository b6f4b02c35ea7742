#include "app/analysis/whatif.hpp"

#include "app/analysis/even_halves.hpp"
#include "app/strategy/sglang_gate.hpp"
#include "sim/core/caches.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

// Which side of the ledger a kernel's time alone falls in, for the degradation itemization.
DegradationCause bucket(const KernelInfo& info, const KernelSpec& k, const SoloBreakdown& b) {
  using C = DegradationCause;
  if (info.comm) return C::communication_latency;
  const std::string_view bound = b.bound();
  if (k.category == category_name(KernelCategory::gemm)) {
    if (bound == "hbm" || bound == "l2") return C::weight_rereads;
    if (bound == "latency") return C::fixed_kernel_latency;
    return C::tile_and_wave_waste;
  }
  if (k.category == category_name(KernelCategory::attention)) return C::attention_efficiency;
  if (bound == "latency") return C::fixed_kernel_latency;
  return C::small_memory_bound_kernels;
}

std::string name_of(DegradationCause c) {
  return std::string(cause_name(c));
}

// Empty when both fit; else what does not fit and why (the limit it breaks: weights, the KV pool
// or the transients outside the static share).
std::string fit_sentence(const ProgramStats& base, const ProgramStats& over, const HwProfile& hw) {
  auto why = [](const ProgramStats& s) {
    return fmt::format("{} ({})", s.memory.limit_sentence(),
                       memory_limit_name(s.memory.limited_by));
  };
  const std::string cap =
      fmt::format("{} has {:.1f} GB", hw.name, base.memory.capacity_bytes / units::kBytesPerGB);
  if (!base.fits() && !over.fits())
    return fmt::format("Neither fits in HBM as SGLang holds it: for '{}' {}; for '{}' {}; {}.",
                       base.strategy, why(base), over.strategy, why(over), cap);
  if (!over.fits())
    return fmt::format("'{}' does not fit in HBM as SGLang holds it: {}; {} ('{}' fits).",
                       over.strategy, why(over), cap, base.strategy);
  if (!base.fits())
    return fmt::format(
        "'{}' does not fit in HBM as SGLang holds it: {}; {}. '{}' fits: it is what makes this "
        "batch possible.",
        base.strategy, why(base), cap, over.strategy);
  return {};
}

}  // namespace

int kernel_name_id(const std::string& op, const std::string& kernel) {
  // One table for the process (runs cached by one thread may be compared by another); asked once
  // per distinct plan kernel of a run.
  static std::mutex mutex;
  static std::unordered_map<std::string, int> ids;
  const std::lock_guard<std::mutex> lock(mutex);
  std::string key;
  key.reserve(op.size() + 1 + kernel.size());
  key.append(op).append(1, '/').append(kernel);
  return ids.try_emplace(std::move(key), static_cast<int>(ids.size())).first->second;
}

KernelAlone& KernelAloneTable::add(const AloneKey& k) {
  const size_t layer = static_cast<size_t>(k.layer + 1), name = static_cast<size_t>(k.name);
  if (index_.size() <= layer) index_.resize(layer + 1);
  auto& row = index_[layer];
  if (row.size() <= name) row.resize(name + 1, 0);
  if (row[name] == 0) {
    entries_.push_back({k, {}});
    row[name] = static_cast<int>(entries_.size());
  }
  return entries_[static_cast<size_t>(row[name] - 1)].second;
}

const KernelAlone* KernelAloneTable::find(const AloneKey& k) const {
  const size_t layer = static_cast<size_t>(k.layer + 1), name = static_cast<size_t>(k.name);
  if (layer >= index_.size() || name >= index_[layer].size() || index_[layer][name] == 0)
    return nullptr;
  return &entries_[static_cast<size_t>(index_[layer][name] - 1)].second;
}

void KernelAloneTable::clear() {
  entries_.clear();
  for (auto& row : index_) std::fill(row.begin(), row.end(), 0);
}

std::unique_ptr<StrategyRun> RunRecycler::take(const std::string& key) {
  auto it = free_.find(key);
  if (it == free_.end()) return nullptr;
  return std::move(it->second);
}

void RunRecycler::give(const std::string& key, std::unique_ptr<StrategyRun> run) {
  free_[key] = std::move(run);
}

StrategyRun simulate_strategy(const LayerBuilder& lb, const Strategy& s, RunWatcher* watch,
                              bool counters) {
  StrategyRun r;
  simulate_strategy_into(lb, s, watch, counters, r);
  return r;
}

void simulate_strategy_into(const LayerBuilder& lb, const Strategy& s, RunWatcher* watch,
                            bool counters, StrategyRun& r, ProgramAdjuster* adjust) {
  build_program_into(lb, s, r.built);
  if (adjust) adjust->adjust(r.built);
  if (r.timeline)
    r.timeline->reset(r.built.program, counters, counters);
  else
    r.timeline = std::make_unique<Timeline>(r.built.program, counters, counters);
  const Engine engine(lb.hw().engine);
  ObserverList obs;
  obs.add(r.timeline.get());
  if (watch) obs.add(watch->watch(r.built.program, s.name + " on " + lb.hw().name));
  // The timeline alone needs no list passing each notification on.
  r.result = engine.run(r.built.program, watch ? static_cast<Observer*>(&obs) : r.timeline.get());
  const ModelConfig& m = lb.model();
  r.stats = program_stats(r.built, *r.timeline, r.result.makespan_us, lb.workload(), m.dense_layers,
                          m.layers);
  r.stats.strategy = s.name;
  r.stats.host_busy_us = r.result.host_busy_us;
  r.stats.host_blocked_us = r.result.host_blocked_us;
  const Hardware& hw = lb.hw().engine;
  // Summed by cause in the same order as a map keyed by the cause's name would (one addition per
  // kernel, in program order), then named once.
  std::array<double, kDegradationCauses.size()> solo_by_cause{};
  std::array<bool, kDegradationCauses.size()> solo_seen{};
  auto add_solo = [&](DegradationCause c, double us) {
    solo_by_cause[static_cast<size_t>(c)] += us;
    solo_seen[static_cast<size_t>(c)] = true;
  };
  r.alone.clear();
  r.alone.reserve(r.built.info.size());
  // A kernel alone, what its SM cap costs it and the cause it is charged to, once per work class
  // (plan cost and SM cap): identical layers launch the same plan kernels (the Work is the
  // plan's; only tensor scopes and streams differ).
  struct Solo {
    SoloBreakdown b;
    double capped_loss = 0;
    double total_us = 0;  // b.total_us()
    int name = -1;        // kernel_name_id
    DegradationCause cause = DegradationCause::fixed_kernel_latency;
    bool made = false;
  };
  const LaunchMode mode = r.built.program.launch_mode;  // a graph's nodes start sooner
  auto solo_of = [&hw, mode](const KernelSpec& k, const KernelInfo& info) {
    Solo s{solo_breakdown(hw, k, mode), 0};
    s.total_us = s.b.total_us();
    // A kernel held to fewer SMs than the GPU has (deep_gemm_num_sms, a placement's cap) loses
    // time to that cap; the rest of its time is charged by what bounds it.
    if (k.sm_cap > 0 && k.sm_cap < hw.sm_count) {
      KernelSpec free = k;
      free.sm_cap = 0;
      s.capped_loss = std::max(0.0, s.total_us - solo_breakdown(hw, free, mode).total_us());
    }
    s.name = kernel_name_id(info.op, info.kernel);
    s.cause = bucket(info, k, s.b);
    s.made = true;
    return s;
  };
  const bool memo = caches_enabled();
  std::vector<Solo> solo_memo;  // by work class
  for (size_t i = 0; i < r.built.program.kernels.size(); ++i) {
    const KernelSpec& k = r.built.program.kernels[i];
    const KernelInfo& info = r.built.info[i];
    if (k.data_in_flight()) continue;  // holds no SM
    Solo fresh;
    const Solo* solo = &fresh;
    if (memo && k.work_class >= 0) {
      const auto c = static_cast<size_t>(k.work_class);
      if (c >= solo_memo.size()) solo_memo.resize(c + 1);
      if (!solo_memo[c].made) solo_memo[c] = solo_of(k, info);
      solo = &solo_memo[c];
    } else {
      fresh = solo_of(k, info);
    }
    const double alone_us = solo->total_us - solo->capped_loss;
    auto& e = r.alone[{info.layer, solo->name}];
    e.us += alone_us;
    e.capped_us += solo->capped_loss;
    e.cause = solo->cause;
    add_solo(e.cause, alone_us);
    if (solo->capped_loss > 0)
      add_solo(DegradationCause::sms_given_to_communication, solo->capped_loss);
  }
  for (const DegradationCause c : kDegradationCauses)
    if (solo_seen[static_cast<size_t>(c)])
      r.stats.solo_us[name_of(c)] = solo_by_cause[static_cast<size_t>(c)];
}

namespace {
std::string run_key(const Strategy& s, const Workload& w) {
  return s.file + "|" + (w.mode() == DeepepMode::normal ? "n" : "l");
}
}  // namespace

WhatIfSession::WhatIfSession(ModelConfig model, HwProfile hw, Workload w)
    : WhatIfSession(std::move(model), std::move(hw), w, nullptr) {}

WhatIfSession::WhatIfSession(ModelConfig model, HwProfile hw, Workload w, RunRecycler* recycler)
    : model_(std::move(model)),
      hw_(std::move(hw)),
      w_(in_nvlink_domain(w, hw_)),
      recycler_(recycler) {
  require_kernel_params(hw_);
}

WhatIfSession::~WhatIfSession() {
  if (!recycler_) return;
  for (auto& [key, run] : cache_)
    if (run) recycler_->give(key, std::move(run));
}

const StrategyRun& WhatIfSession::run(const Strategy& s, RunWatcher* watch) {
  return simulate(s, watch, /*even_halves=*/false);
}

const StrategyRun& WhatIfSession::even_halves_run(const Strategy& s) {
  return simulate(s, nullptr, /*even_halves=*/true);
}

const StrategyRun& WhatIfSession::simulate(const Strategy& s, RunWatcher* watch, bool even_halves) {
  const Workload w = workload_for(s);
  const std::string key = (even_halves ? "even|" : "") + run_key(s, w);
  const bool cached = !watch && !adjuster_ && caches_enabled();
  if (cached) {
    auto it = cache_.find(key);
    if (it != cache_.end()) return *it->second;
  }
  // The halves evened out after the session's own adjuster (a trace's anchoring), if it has one.
  struct Both : ProgramAdjuster {
    ProgramAdjuster* first = nullptr;
    EvenHalves even;
    void adjust(BuiltProgram& b) override {
      if (first) first->adjust(b);
      even.adjust(b);
    }
  } both;
  both.first = adjuster_;
  const LayerBuilder& lb = builder(w);
  std::unique_ptr<StrategyRun> r = cached && recycler_ ? recycler_->take(key) : nullptr;
  if (!r) r = std::make_unique<StrategyRun>();
  try {
    simulate_strategy_into(lb, s, watch, /*counters=*/false, *r, even_halves ? &both : adjuster_);
  } catch (const SimulationError& e) {
    throw InputError(s.file, 0, "", e.what());
  }
  if (even_halves && both.even.unpaired > 0)
    r->stats.note = fmt::format(
        "{} kernels of one micro-batch have no counterpart in the other (per-request kernels of "
        "unequal count): evened out they keep their own work, so the micro-batch imbalance "
        "understates the halves' difference",
        both.even.unpaired);
  // The statistics are kept; the timeline is only needed while running (or as storage for the
  // recycler's next run of this strategy).
  if (!recycler_) r->timeline.reset();
  r->stats.memory = memory_per_gpu(model_, hw_, w, r->stats.split);
  if (!cached) {
    kept_.push_back(std::move(r));
    return *kept_.back();
  }
  auto& slot = cache_[key];
  slot = std::move(r);
  return *slot;
}

// Strategies differ in the workload only by DeepEP mode and (through it) CUDA graphs: one layer
// builder per pair, so a layer kind and batch is planned and costed once for all strategies.
const LayerBuilder& WhatIfSession::builder(const Workload& w) {
  const int key = (w.mode() == DeepepMode::normal ? 2 : 0) + (w.graphs() ? 1 : 0);
  if (!caches_enabled())
    return *uncached_builders_.emplace_back(std::make_unique<LayerBuilder>(model_, hw_, w));
  auto& slot = builders_[key];
  if (!slot) slot = std::make_unique<LayerBuilder>(model_, hw_, w);
  return *slot;
}

std::vector<WhatIfResult::LayerKernels> WhatIfSession::kernels_per_layer(const Workload& w) {
  const LayerBuilder& lb = builder(w);
  const MicroBatch whole = whole_batch(w);
  std::vector<WhatIfResult::LayerKernels> out;
  for (int l = 0; l < model_.layers; ++l) {
    const std::string type = to_string(lb.layer_type(l));
    if (std::any_of(out.begin(), out.end(), [&](const auto& k) { return k.type == type; }))
      continue;
    WhatIfResult::LayerKernels lk{type, 0, 0};
    for (const auto& op : lb.plan(l, whole, "A").ops) {
      lk.kernels += static_cast<int>(op.kernels.size() + op.comm_kernels.size());
      if (op.op == "attn")
        for (const auto& k : op.kernels) lk.side_branch_kernels += is_v4_side_branch(k.name);
    }
    out.push_back(lk);
  }
  return out;
}

WhatIfResult WhatIfSession::compare(const Strategy& base_s, const Strategy& over_s,
                                    RunWatcher* watch) {
  const StrategyRun& base = run(base_s, watch);
  const StrategyRun& over = run(over_s, watch);
  const ModelConfig& model = model_;
  const HwProfile& hw = hw_;
  WhatIfResult r;
  r.model = model.name;
  r.hw = hw.name;
  r.phase = w_.phase == Phase::prefill ? "prefill" : "decode";
  r.workload = workload_for(over_s);
  r.hot_rank_load = hot_rank_load_ratio(model, r.workload);
  if (const AttentionBackend* ab = builder(r.workload).attention_backend())
    r.attention_backend = ab->name;
  r.baseline = base.stats;
  r.overlapped = over.stats;
  r.speedup = r.baseline.total_us / r.overlapped.total_us;
  r.baseline_outside_sglang = sglang_gate(base_s, workload_for(base_s), hw);
  bool uneven = false;
  if (over_s.two_batch_overlap)
    if (const auto halves = split_batch(r.workload, nullptr)) {
      uneven = !same_halves(halves->first, halves->second);
      r.split = true;
      r.tbo_split = tbo_split_of(r.workload);
      r.a_sequences = halves->first.sequences;
      r.a_tokens = halves->first.tokens;
      r.b_sequences = halves->second.sequences;
      r.b_tokens = halves->second.tokens;
    }
  r.strategy_outside_sglang = sglang_gate(over_s, r.workload, hw);
  // Degradation: what the overlapped program's kernels take alone beyond the same kernels of the
  // baseline (the two micro-batches' halves of a GEMM against the whole one), charged to the cause
  // that bounds the smaller kernel; plus GPU time lost waiting on the host (launches, per-op
  // framework overhead), which only costs when the GPU runs out of queued work.
  // Halves of unequal work: the ledger is that of the same halves evened out (EvenHalves), plus
  // what these halves lose against them - the imbalance - so advantage - degradation is still the
  // net gain.
  const StrategyRun& terms = uneven && over.built.split ? even_halves_run(over_s) : over;
  using C = DegradationCause;
  std::map<C, double> by_cause;
  if (&terms != &over) {
    r.even_halves_us = terms.stats.total_us;
    r.even_halves_exposed_comm_us = terms.stats.exposed_comm_us;
    if (!terms.stats.note.empty()) r.notes.push_back(terms.stats.note);
    by_cause[C::micro_batch_imbalance] = r.overlapped.total_us - terms.stats.total_us;
  }
  for (const auto& [key, o] : terms.alone.entries()) {
    const KernelAlone* b = base.alone.find(key);
    by_cause[o.cause] += o.us - (b ? b->us : 0.0);
    by_cause[C::sms_given_to_communication] += o.capped_us - (b ? b->capped_us : 0.0);
  }
  for (const auto& [key, b] : base.alone.entries())
    if (!terms.alone.find(key)) {
      by_cause[b.cause] -= b.us;
      by_cause[C::sms_given_to_communication] -= b.capped_us;
    }
  by_cause[C::host_bound_gpu_idle] += terms.stats.gpu_idle_us - r.baseline.gpu_idle_us;
  for (const auto& [cause, d] : by_cause)
    if (std::fabs(d) > 1e-6) r.degradation.push_back({cause, d});
  // Largest first; equal ones by name.
  std::sort(r.degradation.begin(), r.degradation.end(), [](auto& a, auto& b) {
    return a.us != b.us ? a.us > b.us : cause_name(a.cause) < cause_name(b.cause);
  });
  for (const auto& d : r.degradation) r.degradation_us += d.us;
  // Differences of sums that agree to rounding are zero, not "-0 us".
  auto difference = [](double a, double b) {
    const double d = a - b;
    return std::fabs(d) <= 1e-9 * std::max({std::fabs(a), std::fabs(b), 1.0}) ? 0.0 : d;
  };
  r.comm_hidden_us = difference(r.baseline.exposed_comm_us, terms.stats.exposed_comm_us);
  // Net gain = advantage - degradation, so the advantage is what overlap gained besides.
  r.advantage_us = (r.baseline.total_us - r.overlapped.total_us) + r.degradation_us;
  // The forward is compute busy + communication exposed + GPU idle, so the advantage is the
  // communication hidden plus the kernel time alone the split added (the degradation without
  // its idle term) minus the busy time it added: time that ran beside other kernels.
  auto alone_total = [](const StrategyRun& run) {
    double us = 0;
    for (const auto& [key, k] : run.alone.entries()) us += k.us + k.capped_us;
    return us;
  };
  r.side_by_side_us = difference(alone_total(terms) - alone_total(base),
                                 terms.stats.compute_busy_us - r.baseline.compute_busy_us);
  const double gain = difference(r.baseline.total_us, r.overlapped.total_us);
  r.net_us = gain;
  const std::string top = r.degradation.empty() ? "nothing" : name_of(r.degradation.front().cause);
  // Forward-level times in ms (kernels stay in us elsewhere).
  constexpr double ms = 1e-3;
  const std::string ledger = fmt::format(
      "advantage {:.2f} ms{} (communication hidden {:.2f} ms + kernel time run side by side {:.2f} "
      "ms) - degradation {:.2f} ms (mostly {}) = net {:+.2f} ms",
      r.advantage_us * ms, r.even_halves_us > 0 ? " with the halves evened out" : "",
      r.comm_hidden_us * ms, r.side_by_side_us * ms, r.degradation_us * ms, top, gain * ms);
  if (!over.built.note.empty()) {
    r.verdict =
        fmt::format("'{}' could not split the batch ({}); {}: {}", over_s.name, over.built.note,
                    gain >= 0 ? "no gain from two-batch overlap" : "it only adds cost", ledger);
  } else if (gain > 0) {
    r.verdict = fmt::format("'{}' pays: {:.1f} % faster ({:.2f} ms per forward): {}.", over_s.name,
                            100 * (r.speedup - 1), gain * ms, ledger);
  } else {
    r.verdict = fmt::format("'{}' does not pay: {:.1f} % slower ({:.2f} ms per forward): {}.",
                            over_s.name, 100 * (1 / r.speedup - 1), (0.0 - gain) * ms, ledger);
  }
  // A side that does not fit in HBM has no throughput to compare: the verdict says so first.
  const std::string fit = fit_sentence(r.baseline, r.overlapped, hw);
  if (!fit.empty()) r.verdict = fit;
  return r;
}

}  // namespace ovs

namespace ovs {

Strategy load_request_strategy(const std::string& name, ModelFamily family,
                               const std::string& field) {
  try {
    return load_strategy(name, family);
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError("", 0, field, e.message());
  }
}

namespace {

// Every shipped strategy of the family that SGLang runs for the phase at this point (its gate
// passes), the baseline left out, each against the baseline; fastest first (then by name).
std::vector<WhatIfResult::Alternative> sglang_alternatives(WhatIfSession& session,
                                                           const Strategy& base_s) {
  std::vector<WhatIfResult::Alternative> out;
  const HwProfile& hw = session.hw();
  for (const auto& name : shipped_names(strategy_folder(session.model().family))) {
    const Strategy s = for_vendor(load_strategy(name, session.model().family), hw.vendor);
    if (s.name == base_s.name || (!s.plan_of.empty() && s.plan_of == base_s.name)) continue;
    if (!s.sglang.given || !s.sglang.runs_in_sglang()) continue;
    if (!sglang_gate(s, session.workload_for(s), hw).empty()) continue;
    const WhatIfResult r = session.compare(base_s, s, nullptr);
    out.push_back({s.plan_of.empty() ? s.name : s.plan_of, r.speedup,
                   r.baseline.fits() && r.overlapped.fits()});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.speedup != b.speedup ? a.speedup > b.speedup : a.strategy < b.strategy;
  });
  return out;
}

}  // namespace

WhatIfResult run_whatif(const WhatIfRequest& req, RunWatcher* watch) {
  ModelConfig model = load_model_config(req.model);
  HwProfile hw = load_hw_profile(req.hw);
  require_kernel_params(hw);
  const Strategy base_s =
      for_vendor(load_request_strategy(req.baseline, model.family, "baseline"), hw.vendor);
  const ModelFamily family = model.family;
  WhatIfSession session(std::move(model), std::move(hw), req.workload);
  std::vector<WhatIfResult::Alternative> alternatives;
  if (req.alternatives || req.strategy.empty()) alternatives = sglang_alternatives(session, base_s);
  std::string chosen = req.strategy;
  if (chosen.empty()) {
    if (alternatives.empty())
      throw flag_error("--strategy",
                       "SGLang runs no strategy for this phase at this point other "
                       "than the baseline: name one");
    chosen = alternatives.front().strategy;
  }
  const Strategy over_s =
      for_vendor(load_request_strategy(chosen, family, "strategy"), session.hw().vendor);
  WhatIfResult r = session.compare(base_s, over_s, watch);
  r.alternatives = std::move(alternatives);
  r.kernels_per_layer = session.kernels_per_layer(r.workload);
  for (const auto* s : {&base_s, &over_s})
    if (!s->plan_of.empty())
      r.notes.push_back(fmt::format("'{}' on {} GPUs runs SGLang's plan for them, '{}' ({})",
                                    s->plan_of, session.hw().vendor, s->name, s->file));
  for (const auto* s : {&base_s, &over_s})
    r.notes.insert(r.notes.end(), s->notes.begin(), s->notes.end());
  return r;
}

}  // namespace ovs
