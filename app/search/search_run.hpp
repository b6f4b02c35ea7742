#pragma once
// `overlapsim search`: the best strategy for a model, GPU and workload, layer type by layer type
// on a short model of that type (its steady-state layer time), then the best few checked on the
// full model against SGLang's shipped strategy.
#include <ostream>
#include <string>
#include <vector>

#include "app/analysis/caveats.hpp"
#include "app/analysis/whatif.hpp"
#include "app/search/searcher.hpp"

namespace ovs {

struct SearchRequest {
  WhatIfRequest base;  // model, hw, workload, baseline; strategy: the shipped one to beat
  int top = 5;
  double latency_bound_us = 0;  // > 0: rank by throughput among strategies within the bound
  // Work per layer type: host actions plus engine steps simulated in all (sized to about 0.8 s
  // on a 2-core 2026 machine), at most max_candidates candidates.
  long long budget_work = 1000000;
  long long max_candidates = 1000;
};

struct RankedStrategy {
  Strategy strategy;
  double forward_us = 0;
  double tokens_per_s_per_gpu = 0;
  std::string description;
  double memory_gb = 0;  // per GPU
  bool fits = true;      // in the GPU's HBM; ranked after every strategy that fits
};

// Where the best strategy's gain over no overlap comes from, step by step: the baseline in the
// phase's default DeepEP mode, then in the best's mode, then with the best's DeepGEMM SM cap,
// then the best itself (its yields, micro-batches and side streams). The steps add up to
// baseline_us - best_us.
struct GainSplit {
  std::string default_mode, best_mode;  // normal | low_latency
  bool best_caps_sms = false;
  bool best_overlaps = false;  // two micro-batches, side streams or another op order
  std::string overlap_words;   // which of them: "op order", "two micro-batches", ...
  double baseline_us = 0;
  double baseline_best_mode_us = 0;
  double baseline_best_mode_sms_us = 0;
  double best_us = 0;
  double from_mode_us() const { return baseline_us - baseline_best_mode_us; }
  double from_sm_split_us() const { return baseline_best_mode_us - baseline_best_mode_sms_us; }
  double from_overlap_us() const { return baseline_best_mode_sms_us - best_us; }
};

struct SearchReport {
  std::vector<std::pair<LayerType, LayerSearch>> per_type;
  std::vector<double> seconds_per_type;
  std::vector<RankedStrategy> ranked;  // full model, best first (the shipped one included)
  RankedStrategy shipped;
  double baseline_us = 0;
  double capacity_gb = 0;
  std::string best_yaml;
  GainSplit gain;
  std::vector<Caveat> caveats;  // of "What is not modelled yet", those the pick depends on
  // Why SGLang would not run the shipped strategy, or the baseline, at this point
  // (app/strategy/sglang_gate.hpp); empty when it does.
  std::string shipped_outside_sglang, baseline_outside_sglang;
  // Candidate programs the program builder or the engine refused ("layer type moe: 3
  // program(s) could not run: <why>"); such a candidate ranks last.
  std::vector<std::string> failures;
};

SearchReport run_search(const SearchRequest& r);
void write_search_report(std::ostream& out, const SearchReport& s, const SearchRequest& r);
void write_search_json(std::ostream& out, const SearchReport& s, const SearchRequest& r);

}  // namespace ovs
