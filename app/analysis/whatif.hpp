#pragma once
// The what-if: one forward pass with a strategy against the baseline on the same model, GPU and
// workload, and why one wins - the communication overlap hides (advantage) against what
// splitting the batch costs (degradation), itemized by cause.
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "app/analysis/degradation.hpp"
#include "app/analysis/request.hpp"
#include "app/strategy/program_builder.hpp"
#include "models/config/model_config.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"
#include "models/memory/memory_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {

struct ProgramStats {
  std::string strategy;
  double total_us = 0;         // one forward pass
  double per_layer_us = 0;     // mean MoE layer in steady state
  double exposed_comm_us = 0;  // communication running while no compute kernel runs
  double comm_busy_us = 0;     // communication running at all
  double compute_busy_us = 0;  // a compute kernel running
  double gpu_idle_us = 0;      // nothing running on the GPU (host-bound or waiting on the host)
  double host_busy_us = 0;
  double host_blocked_us = 0;
  int launches = 0;
  double tokens_per_s_per_gpu = 0;
  bool split = false;
  std::string note;
  std::map<std::string, double> solo_us;  // kernel time alone, by cause (its name)
  MemoryUse memory;                       // per GPU, against the HBM capacity
  bool fits() const { return memory.fits(); }
};

struct DegradationItem {
  DegradationCause cause;
  double us = 0;
};

struct WhatIfResult {
  std::string model, hw, phase;
  Workload workload;
  // The hottest rank's expert load over the mean for the whole batch (the workload's --imbalance,
  // or the routing statistics', rank_spread.hpp), and the attention backend the layers use
  // (empty: the profile's own efficiencies).
  double hot_rank_load = 1;
  std::string attention_backend;
  ProgramStats baseline, overlapped;
  double speedup = 1;
  double advantage_us = 0;
  double degradation_us = 0;
  double comm_hidden_us = 0;
  // The rest of the advantage: the overlapped kernels' extra time alone (as the degradation
  // counts it) that did not lengthen the GPU's busy time - it ran beside other kernels.
  // advantage_us = comm_hidden_us + side_by_side_us.
  double side_by_side_us = 0;
  double net_us = 0;                         // baseline - overlapped = advantage - degradation
  std::vector<DegradationItem> degradation;  // largest first
  std::string verdict;
  std::vector<std::string> notes;  // how the strategy files were read (SGLang op names)
  // Why SGLang would not run each side at this point (app/strategy/sglang_gate.hpp); empty when
  // it does. Outside the gate the result is a proposal, not SGLang's behaviour.
  std::string baseline_outside_sglang, strategy_outside_sglang;
  // Kernels one layer of each type launches for the whole batch, and of them the V4 attention
  // prepare's side branches (KV write, compressors, indexer) under the workload's code path;
  // run_whatif fills it (a sweep's points need not).
  struct LayerKernels {
    std::string type;
    int kernels = 0;
    int side_branch_kernels = 0;
  };
  std::vector<LayerKernels> kernels_per_layer;
  // The overlapped strategy's two micro-batches, when it splits the batch (SGLang's rule,
  // models/graph/workload.hpp): where the cut is, and each half's sequences and tokens.
  bool split = false;
  TboSplit tbo_split;
  std::int64_t a_sequences = 0, a_tokens = 0, b_sequences = 0, b_tokens = 0;
  // Halves of unequal work: the overlapped forward with the same halves evened out
  // (app/analysis/even_halves.hpp). The advantage's terms and the degradation's other causes are
  // then that run's, and the "micro-batch imbalance" cause is the overlapped forward minus it.
  // 0: the halves do the same work (or the batch is not split).
  double even_halves_us = 0;
  double even_halves_exposed_comm_us = 0;  // its communication exposed (comm_hidden_us is from it)
  // Every strategy SGLang runs for the phase at this point (its gate passes), each against the
  // same baseline, fastest first; filled when the request asks for them.
  struct Alternative {
    std::string strategy;
    double speedup = 1;
    bool both_fit = true;
  };
  std::vector<Alternative> alternatives;
};

struct WhatIfRequest {
  std::string model;
  std::string hw;
  // As resolve_workload gives it: a DeepEP mode set here is the user's, and no strategy may
  // override it.
  Workload workload;
  // Empty: the best of SGLang's strategies for the phase at this point (alternatives below).
  std::string strategy;
  std::string baseline = "no-overlap";
  // Also run every other strategy SGLang runs for the phase here (WhatIfResult::alternatives).
  bool alternatives = false;
};

// Watches the runs a what-if simulates (the CLI's Perfetto trace of them, for one): asked once
// per run, before it starts, for an observer of it (or nullptr), which must outlive the run.
class RunWatcher {
 public:
  virtual ~RunWatcher() = default;
  virtual Observer* watch(const Program& p, const std::string& title) = 0;
};

// Changes a strategy's program after it is built and before it runs (import-trace --whatif
// scales each kernel to its measured time). A session with one never caches its runs.
class ProgramAdjuster {
 public:
  virtual ~ProgramAdjuster() = default;
  virtual void adjust(BuiltProgram& b) = 0;
};

// A request's strategy by name or path; an unknown name's error names `field` ("strategy" or
// "baseline": the CLI turns it into the flag).
Strategy load_request_strategy(const std::string& name, ModelFamily family,
                               const std::string& field);

// Both runs: the baseline, then the strategy (`watch` sees them in that order).
WhatIfResult run_whatif(const WhatIfRequest& r, RunWatcher* watch = nullptr);

// One simulated strategy: its program, run and statistics.
struct KernelAlone {
  double us = 0;         // time alone, summed over micro-batches
  double capped_us = 0;  // of which lost to an SM cap
  DegradationCause cause = DegradationCause::fixed_kernel_latency;  // what bounds it
};
// Kernel time alone by layer, op and kernel name (both micro-batches' halves under one key), in
// the order the program first launches each. The names are one id (kernel_name_id), so keys of
// two runs compare without touching strings.
struct AloneKey {
  int layer = -1;
  int name = -1;  // kernel_name_id(op, kernel)
  bool operator==(const AloneKey&) const = default;
};
// A small integer for "op/kernel", the same for every run in the process (the names are the
// models' fixed vocabulary of ops and kernels; thread-safe).
int kernel_name_id(const std::string& op, const std::string& kernel);
class KernelAloneTable {
 public:
  KernelAlone& operator[](const AloneKey& k) {
    const size_t layer = static_cast<size_t>(k.layer + 1), name = static_cast<size_t>(k.name);
    if (layer < index_.size() && name < index_[layer].size() && index_[layer][name] != 0)
      return entries_[static_cast<size_t>(index_[layer][name] - 1)].second;
    return add(k);
  }
  const KernelAlone* find(const AloneKey& k) const;
  void reserve(size_t n) { entries_.reserve(n); }
  void clear();  // empty, keeping the storage
  const std::vector<std::pair<AloneKey, KernelAlone>>& entries() const { return entries_; }

 private:
  KernelAlone& add(const AloneKey& k);  // operator[] for a key not in the table yet

  std::vector<std::pair<AloneKey, KernelAlone>> entries_;
  std::vector<std::vector<int>> index_;  // [layer + 1][name]: entry + 1, 0 for none
};
struct StrategyRun {
  BuiltProgram built;
  RunResult result;
  std::unique_ptr<Timeline> timeline;
  ProgramStats stats;
  KernelAloneTable alone;  // by layer/op/kernel
};

// `counters`: the timeline also records the resource counters and the host's spans (explain reads
// them; the what-if and sweeps do not).
StrategyRun simulate_strategy(const LayerBuilder& lb, const Strategy& s,
                              RunWatcher* watch = nullptr, bool counters = true);
// The same into `r`, reusing the storage an earlier run left in it (program, timeline, table).
// `adjust` (optional) changes the program between building and running it.
void simulate_strategy_into(const LayerBuilder& lb, const Strategy& s, RunWatcher* watch,
                            bool counters, StrategyRun& r, ProgramAdjuster* adjust = nullptr);

// Runs kept between what-if sessions on one thread (a sweep worker's points): a strategy's next
// run is made in the storage of its last, so building and recording it allocates little.
class RunRecycler {
 public:
  std::unique_ptr<StrategyRun> take(const std::string& key);
  void give(const std::string& key, std::unique_ptr<StrategyRun> run);

 private:
  std::map<std::string, std::unique_ptr<StrategyRun>> free_;
};

// A model, GPU and workload with strategies compared on them; runs are cached, so the baseline
// is simulated once however many strategies are compared with it.
class WhatIfSession {
 public:
  // `w` as resolve_workload gives it.
  WhatIfSession(ModelConfig model, HwProfile hw, Workload w);
  // Runs are made in storage from `recycler` and given back to it when the session ends.
  WhatIfSession(ModelConfig model, HwProfile hw, Workload w, RunRecycler* recycler);
  ~WhatIfSession();
  WhatIfSession(const WhatIfSession&) = delete;
  WhatIfSession& operator=(const WhatIfSession&) = delete;
  WhatIfResult compare(const Strategy& baseline, const Strategy& strategy,
                       RunWatcher* watch = nullptr);
  // Cached unless watched.
  const StrategyRun& run(const Strategy& s, RunWatcher* watch = nullptr);
  Workload workload_for(const Strategy& s) const { return for_strategy(w_, s); }
  const ModelConfig& model() const { return model_; }
  const HwProfile& hw() const { return hw_; }
  // Every later run's program goes through `a` (null: none); runs are then not cached.
  void set_adjuster(ProgramAdjuster* a) { adjuster_ = a; }
  // The kernels one layer of each type launches for the whole batch (whatif's table).
  std::vector<WhatIfResult::LayerKernels> kernels_per_layer(const Workload& w);

 private:
  ModelConfig model_;
  HwProfile hw_;
  Workload w_;
  const LayerBuilder& builder(const Workload& w);
  // The strategy with its two micro-batches evened out (EvenHalves), cached as run() caches.
  const StrategyRun& even_halves_run(const Strategy& s);
  const StrategyRun& simulate(const Strategy& s, RunWatcher* watch, bool even_halves);

  std::map<std::string, std::unique_ptr<StrategyRun>> cache_;
  std::map<int, std::unique_ptr<LayerBuilder>> builders_;  // by DeepEP mode and CUDA graphs
  // Watched runs (traced: their events went to a watcher) are kept apart from the cache, so a
  // strategy compared with itself under a watcher does not free the run the first reference holds.
  std::vector<std::unique_ptr<StrategyRun>> kept_;  // watched runs, and runs with the caches off
  std::vector<std::unique_ptr<LayerBuilder>> uncached_builders_;
  RunRecycler* recycler_ = nullptr;
  ProgramAdjuster* adjuster_ = nullptr;
};
void write_whatif_json(std::ostream& out, const WhatIfResult& r);
void write_whatif_table(std::ostream& out, const WhatIfResult& r);
// Memory per GPU of both sides, term by term with its arithmetic (whatif --explain).
void write_memory_breakdown(std::ostream& out, const WhatIfResult& r);

// Program statistics from a run's timeline (exposed communication, per-layer time, ...).
ProgramStats program_stats(const BuiltProgram& b, const Timeline& tl, double makespan_us,
                           const Workload& w, int first_moe_layer, int layers);

}  // namespace ovs
