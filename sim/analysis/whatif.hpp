#pragma once
// The what-if: one forward pass with a strategy against the baseline on the same model, GPU and
// workload, and why one wins - the communication overlap hides (advantage) against what
// splitting the batch costs (degradation), itemized by cause.
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "models/config/model_config.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"
#include "models/memory/memory_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/strategy/program_builder.hpp"

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
  std::map<std::string, double> solo_us;  // kernel time alone, by cause bucket
  MemoryUse memory;                       // per GPU, against the HBM capacity
  bool fits() const { return memory.fits(); }
};

struct DegradationItem {
  std::string cause;
  double us = 0;
};

struct WhatIfResult {
  std::string model, hw, phase;
  Workload workload;
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
};

struct WhatIfRequest {
  std::string model;
  std::string hw;
  Workload workload;
  bool deepep_mode_given = false;  // the user set it: strategies may not override it
  std::string strategy;
  std::string baseline = "no-overlap";
  std::string trace;  // optional Perfetto output (both programs)
};

WhatIfResult run_whatif(const WhatIfRequest& r);

// The workload with its GPUs per node resolved: 0 (not given) becomes the profile's NVLink domain
// (`nvlink_domain_gpus`: 8 on HGX boards, 72 on GB200 NVL72), so an EP group inside the domain
// uses NVLink only. InputError when the profile does not give it.
Workload in_nvlink_domain(Workload w, const HwProfile& hw);

// One simulated strategy: its program, run and statistics.
struct KernelAlone {
  double us = 0;         // time alone, summed over micro-batches
  double capped_us = 0;  // of which lost to an SM cap
  std::string cause;     // what bounds it (degradation bucket)
};
struct StrategyRun {
  BuiltProgram built;
  RunResult result;
  std::unique_ptr<Timeline> timeline;
  ProgramStats stats;
  std::map<std::string, KernelAlone> alone;  // by layer/op/kernel
};

class TraceSink;
StrategyRun simulate_strategy(const LayerBuilder& lb, const Strategy& s, TraceSink* sink = nullptr,
                              int pid = 1);

// A model, GPU and workload with strategies compared on them; runs are cached, so the baseline
// is simulated once however many strategies are compared with it.
class WhatIfSession {
 public:
  WhatIfSession(ModelConfig model, HwProfile hw, Workload w, bool deepep_mode_given);
  WhatIfResult compare(const Strategy& baseline, const Strategy& strategy,
                       TraceSink* sink = nullptr);
  const StrategyRun& run(const Strategy& s, TraceSink* sink = nullptr, int pid = 1);
  Workload workload_for(const Strategy& s) const;
  const ModelConfig& model() const { return model_; }
  const HwProfile& hw() const { return hw_; }

 private:
  ModelConfig model_;
  HwProfile hw_;
  Workload w_;
  bool mode_given_;
  std::map<std::string, std::unique_ptr<StrategyRun>> cache_;
};
void write_whatif_json(std::ostream& out, const WhatIfResult& r);
void write_whatif_table(std::ostream& out, const WhatIfResult& r);
// Memory per GPU of both sides, term by term with its arithmetic (whatif --explain).
void write_memory_breakdown(std::ostream& out, const WhatIfResult& r);

// Program statistics from a run's timeline (exposed communication, per-layer time, ...).
ProgramStats program_stats(const BuiltProgram& b, const Timeline& tl, double makespan_us,
                           const Workload& w, int first_moe_layer, int layers);

}  // namespace ovs
