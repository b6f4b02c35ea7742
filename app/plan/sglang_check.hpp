#pragma once
// `overlapsim sglang-check`: an SGLang deployment (sglang_command.hpp) at the user's batch - the
// overlap it runs against every strategy SGLang runs for the phase there, the flag change that
// pays, where the best strategy changes with the batch, and the limits the launch breaks.
#include <string>
#include <vector>

#include "app/analysis/whatif.hpp"
#include "app/plan/sglang_command.hpp"

namespace ovs {

struct SglangCheckRequest {
  SglangDeployment deployment;
  std::string hw = "h800-sxm";
  std::string phase;             // empty: from --disaggregation-mode (decode when null)
  long long tokens_per_gpu = 0;  // 0: from --cuda-graph-max-bs / --max-running-requests
  long long context = 4096;
};

struct SglangBatchBest {
  long long tokens_per_gpu = 0;
  std::string best;  // the fastest SGLang strategy at this batch (among those that fit, if any)
  double speedup = 1;
  bool fits = true;  // false: nothing fits in memory at this batch (best: the fastest regardless)
};

struct SglangCheck {
  std::string model, phase, strategy;  // strategy: the overlap the launch runs
  long long tokens_per_gpu = 0;
  int ep = 0;
  WhatIfResult result;  // the launch's strategy against no-overlap, with the alternatives
  std::string best;     // the fastest of SGLang's strategies here
  double gain = 0;      // best over the launch's strategy, - 1
  std::vector<std::string> drop, add;  // flags: the launch's strategy's, the best's
  std::vector<SglangBatchBest> by_batch;
  std::vector<std::string> limits;  // flags outside SGLang's limits, one line each
};

// The strategy the deployment's flags turn on for the model family and phase.
std::string strategy_of(const SglangDeployment& d, bool v4, bool decode);

SglangCheck run_sglang_check(const SglangCheckRequest& r);

}  // namespace ovs
