#pragma once
// Does the verdict survive what we do not know? A what-if run many times with the uncertain
// numbers of the profile and the model config drawn jointly (Latin hypercube, fixed seed), giving
// bands (P10 / P50 / P90) of the speedup and the latencies, the probability that the strategy
// pays, and which numbers decide it (a low/high tornado, one number at a time).
//
// Each draw re-reads the profile and config from their YAML documents, loaded once per thread,
// with the drawn values set by path (as a sweep's hw.* / model.* axes set them), and simulates in
// the run storage of the thread's previous draw (RunRecycler: the sweep worker's in-place rebuild).
// Results are kept by draw index, so the output is the same bytes for any number of threads.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/analysis/whatif.hpp"
#include "models/hw/spread.hpp"

namespace ovs {

// One number that is not exact: where it lives and how it may vary.
struct UncertainNumber {
  std::string doc;   // "hw" or "model"
  std::string path;  // dotted path in its file ("hbm.achievable_gbps")
  std::string file;
  int line = 0;
  double value = 0;
  std::string source;
  Spread spread;
  yaml::NumberRange legal;
  std::string name() const { return doc + "." + path; }
};

// The numbers of `model` and `hw` with a spread that is not exact, hardware first, file order.
std::vector<UncertainNumber> uncertain_numbers(const ModelConfig& model, const HwProfile& hw);
// The numbers the files give no spread for (a user's own file): counted exact.
std::vector<std::string> unstated_numbers(const ModelConfig& model, const HwProfile& hw);

struct Band {
  double p10 = 0, p50 = 0, p90 = 0;
};
// Quantile q of `values` (linear between order statistics, as numpy's default).
double quantile(std::vector<double> values, double q);
Band band_of(const std::vector<double>& values);

struct UncertaintyRequest {
  WhatIfRequest what;  // strategy resolved (not empty)
  // Fields set by path before any draw (a sweep point's hw.* / model.* axes): those are not
  // drawn.
  std::vector<std::pair<std::string, std::string>> hw_overrides, model_overrides;
  int draws = 64;
  int threads = 1;
  std::uint64_t seed = 1;
  bool sensitivity = true;
  int top = 5;  // sensitivity rows reported
};

// A tornado bar: the speedup with one number at its own P10 and at its P90, every other at its
// value.
struct SensitivityRow {
  std::string name, source, file;
  int line = 0;
  double value = 0;
  double low_value = 0, high_value = 0;  // the number at its P10 and P90
  double low = 0, high = 0;              // the speedup then
  std::string how_to_measure;
  double swing() const { return high > low ? high - low : low - high; }
};

struct UncertaintyResult {
  std::string strategy, baseline;
  int draws = 0;
  std::uint64_t seed = 0;
  double nominal_speedup = 1, nominal_baseline_us = 0, nominal_overlapped_us = 0;
  Band speedup, baseline_us, overlapped_us;
  double p_pays = 0;  // share of draws where the strategy is faster than the baseline
  std::vector<double> overlapped_us_draws;  // the strategy's forward in each draw
  int uncertain = 0;                        // numbers drawn
  std::vector<std::string> exact_unstated;
  std::vector<SensitivityRow> sensitivity;  // largest swing first (all numbers, top ones first)
};

UncertaintyResult run_uncertainty(const UncertaintyRequest& r);

// `draws` copies of a hardware profile with its uncertain numbers drawn jointly (the same Latin
// hypercube as run_uncertainty's), for checks that predict from a profile alone (validate's bands).
std::vector<HwProfile> draw_profiles(const std::string& hw, int draws, std::uint64_t seed);
// `draws` copies of a model config and a hardware profile with the uncertain numbers of both
// drawn jointly (one Latin hypercube over all of them, hardware first, as run_uncertainty), for
// checks that simulate a setting with them (validate's bands on whole layers).
struct DrawnConfig {
  ModelConfig model;
  HwProfile hw;
};
std::vector<DrawnConfig> draw_configs(const std::string& model, const std::string& hw, int draws,
                                      std::uint64_t seed);

// How to pin a number down: the measurement that would narrow it.
std::string how_to_measure(const std::string& doc, const std::string& path);

void write_uncertainty_table(std::ostream& out, const UncertaintyResult& u, int top);
// Adds speedup_p10 / _p50 / _p90, p_pays, the latency bands and the sensitivity list to `j`.
void add_uncertainty_json(nlohmann::ordered_json& j, const UncertaintyResult& u, int top);
// A tornado chart of the top rows around the nominal speedup.
std::string tornado_svg(const UncertaintyResult& u, int top);

}  // namespace ovs
