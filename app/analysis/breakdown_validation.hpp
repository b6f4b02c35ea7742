#pragma once
// overlapsim validate on layer breakdowns: a CSV of whole-layer measurements by kernel category
// (calibrate/published/sglang_h100_layer_breakdown.csv: SGLang's large-scale EP report, one MoE
// layer of DeepSeek-V3 on H100 as it runs) - each row's setting simulated with the shipped
// profiles and compared category by category, in-sample (use: fit) and held back (use: check).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ovs {

struct BreakdownRow {
  int line = 0;
  std::string source, series;
  // The setting, in what-if words.
  std::string model, hw, phase, placement, strategy, attention_backend;
  long long tokens_per_gpu = 0, context = 0;
  int ep = 0, redundant_experts = 0;
  int decode_q_len = 1;  // optional column: query tokens per request per decode step (MTP: 2)
  std::string run;       // in_run: the strategy's run as it runs; alone: its kernels each alone
  std::string category;
  double measured_ms = 0;
  std::string use;  // fit (in-sample) | check (held back)
  std::string notes;
  double predicted_ms = 0;
  double error = 0;  // predicted / measured - 1
  // With draws: the prediction's P10 and P90 over profiles and model configs drawn within their
  // spreads, and whether the measurement lies between them.
  double p10_ms = 0, p50_ms = 0, p90_ms = 0;
  bool inside = false;
};

struct BreakdownValidation {
  std::string file;
  std::vector<BreakdownRow> rows;
  double mape_fit = 0, mape_check = 0;  // over rows with measured > 0
  int n_fit = 0, n_check = 0;
  int draws = 0;                         // 0: no bands
  int inside_fit = 0, inside_check = 0;  // rows (measured > 0) inside their P10-P90 band
  double mean_band_width = 0;            // (P90 - P10) / P50, over those rows
};

// True when the CSV's header names a layer breakdown (a `category` and a `measured_ms` column).
bool is_breakdown_csv(const std::string& path);

// Reads the rows (InputError naming file, line and column on bad input) and predicts each; with
// draws > 0 also each row's P10-P90 band over that many profiles and model configs drawn within
// their spreads (draw_configs, Latin hypercube with `seed`).
BreakdownValidation validate_breakdown(const std::string& path, int draws = 0,
                                       std::uint64_t seed = 1);

void write_breakdown_validation(std::ostream& out, const BreakdownValidation& v);
nlohmann::json breakdown_validation_json(const BreakdownValidation& v);

}  // namespace ovs
