#pragma once
// The "why" behind a verdict: the critical path of the overlapped forward, the communication
// left exposed per op, resource utilization per stage, with the degradation by cause.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "app/analysis/whatif.hpp"

namespace ovs {

struct PathShare {
  std::string what;  // op name, or "host: waiting on launches", "waiting for SMs"
  double us = 0;
};

struct StageUse {
  int stage = 0;
  std::string ops;       // ops of the stage (first layer type with this many stages)
  double window_us = 0;  // time kernels of this stage run (both micro-batches, MoE layers)
  double sms_busy = 0;   // mean over that time
  double hbm_gbps = 0;
  double nvlink_gbps = 0;
  double rdma_gbps = 0;
};

struct Explanation {
  WhatIfResult whatif;
  double critical_path_us = 0;
  std::vector<PathShare> critical_path;  // largest first
  std::map<std::string, std::pair<double, double>>
      exposed_by_op;  // op -> (baseline, overlapped) us
  std::vector<StageUse> stages;
  std::vector<std::string> guesses;  // numbers of the hardware profile that are still guesses
};

// The what-if (its runs watched as run_whatif's), then the why.
Explanation explain(const WhatIfRequest& r, RunWatcher* watch = nullptr);
void write_explanation(std::ostream& out, const Explanation& e);
void write_explanation_json(std::ostream& out, const Explanation& e);

// Critical path of a run: walks back from the last kernel through what each kernel waited for
// (its stream predecessor, an event's producer, the host's launch, SMs released by a neighbour).
std::vector<PathShare> critical_path(const BuiltProgram& b, const Timeline& tl, double* total_us);

}  // namespace ovs
