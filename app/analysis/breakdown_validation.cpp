#include "app/analysis/breakdown_validation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <ostream>

#include "app/analysis/layer_breakdown.hpp"
#include "app/analysis/request.hpp"
#include "app/analysis/uncertainty.hpp"
#include "app/analysis/whatif.hpp"
#include "sim/core/error.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {
namespace {

const char* const kColumns[] = {"source",    "series",   "model",
                                "hw",        "phase",    "tokens_per_gpu",
                                "context",   "ep",       "redundant_experts",
                                "placement", "strategy", "attention_backend",
                                "run",       "category", "measured_ms",
                                "use"};

bool known_category(const std::string& c) {
  for (const char* k : kBreakdownCategories)
    if (c == k) return true;
  return c == "Dispatch" || c == "Combine";
}

std::string setting_key(const BreakdownRow& r) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", r.model, r.hw, r.phase, r.tokens_per_gpu,
                     r.context, r.ep, r.redundant_experts, r.placement, r.strategy,
                     r.attention_backend, r.decode_q_len);
}

}  // namespace

bool is_breakdown_csv(const std::string& path) {
  try {
    const CsvTable t = CsvTable::parse(CsvTable::read_text(path), path);
    return t.has("category") && t.has("measured_ms");
  } catch (const std::exception&) {
    return false;
  }
}

BreakdownValidation validate_breakdown(const std::string& path, int draws, std::uint64_t seed) {
  const CsvTable t = CsvTable::load(path);
  for (const char* c : kColumns)
    if (!t.has(c)) throw InputError(path, 1, c, "missing column");
  BreakdownValidation v;
  v.file = path;
  for (size_t i = 0; i < t.rows(); ++i) {
    BreakdownRow r;
    r.line = t.line_of(i);
    auto whole = [&](const char* col) {
      const double x = t.number(i, col);
      if (x < 0 || x != std::floor(x))
        throw InputError(path, r.line, col, "expected a whole number >= 0");
      return static_cast<long long>(x);
    };
    r.source = t.at(i, "source");
    r.series = t.at(i, "series");
    r.model = t.at(i, "model");
    r.hw = t.at(i, "hw");
    r.phase = t.at(i, "phase");
    r.tokens_per_gpu = whole("tokens_per_gpu");
    r.context = whole("context");
    r.ep = static_cast<int>(whole("ep"));
    r.redundant_experts = static_cast<int>(whole("redundant_experts"));
    r.placement = t.at(i, "placement");
    r.strategy = t.at(i, "strategy");
    r.attention_backend = t.at(i, "attention_backend");
    if (t.has("decode_q_len")) {
      r.decode_q_len = static_cast<int>(whole("decode_q_len"));
      if (r.decode_q_len < 1) throw InputError(path, r.line, "decode_q_len", "must be >= 1");
    }
    r.run = t.at(i, "run");
    if (r.run != "in_run" && r.run != "alone")
      throw InputError(path, r.line, "run", "expected in_run or alone, got '" + r.run + "'");
    r.category = t.at(i, "category");
    if (!known_category(r.category))
      throw InputError(path, r.line, "category", "unknown category '" + r.category + "'");
    r.measured_ms = t.number(i, "measured_ms");
    if (!(r.measured_ms >= 0)) throw InputError(path, r.line, "measured_ms", "must be >= 0");
    r.use = t.at(i, "use");
    if (r.use != "fit" && r.use != "check")
      throw InputError(path, r.line, "use", "expected fit or check, got '" + r.use + "'");
    if (t.has("notes")) r.notes = t.at(i, "notes");
    v.rows.push_back(std::move(r));
  }
  // One run per setting: the strategy's run on the shipped profile (and on each draw).
  struct Setting {
    LayerBreakdown shipped;
    std::vector<LayerBreakdown> drawn;
  };
  std::map<std::string, Setting> done;
  v.draws = draws;
  int banded = 0;
  for (auto& r : v.rows) {
    const std::string key = setting_key(r);
    auto it = done.find(key);
    if (it == done.end()) {
      WorkloadWords words;
      words.phase = r.phase;
      words.tokens_per_gpu = r.tokens_per_gpu;
      words.context = r.context;
      words.ep = r.ep;
      words.redundant_experts = r.redundant_experts;
      words.placement = r.placement;
      words.attention_backend = r.attention_backend;
      words.decode_q_len = r.decode_q_len;
      RequestSource from;
      from.file = path;
      for (const char* f : {"phase", "placement", "attention_backend"}) from.lines[f] = r.line;
      const Workload w = resolve_workload(words, from);
      auto simulate = [&](ModelConfig model, HwProfile hw) {
        const Strategy s = load_request_strategy(r.strategy, model.family, "strategy");
        const int first_moe = model.dense_layers, layers = model.layers;
        RunRecycler keep_timelines;  // a session with a recycler keeps each run's timeline
        WhatIfSession session(std::move(model), std::move(hw), w, &keep_timelines);
        const StrategyRun& run = session.run(s);
        return layer_breakdown(run, session.hw(), first_moe, layers);
      };
      Setting st;
      st.shipped = simulate(load_model_config(r.model), load_hw_profile(r.hw));
      if (draws > 0)
        for (auto& d : draw_configs(r.model, r.hw, draws, seed))
          st.drawn.push_back(simulate(std::move(d.model), std::move(d.hw)));
      it = done.emplace(key, std::move(st)).first;
    }
    auto category_ms = [&](const LayerBreakdown& b) {
      const auto& m = r.run == "in_run" ? b.in_run_ms : b.alone_ms;
      const auto c = m.find(r.category);
      return c == m.end() ? 0.0 : c->second;
    };
    r.predicted_ms = category_ms(it->second.shipped);
    r.error = r.measured_ms > 0 ? r.predicted_ms / r.measured_ms - 1 : 0;
    if (draws > 0) {
      std::vector<double> values;
      for (const auto& b : it->second.drawn) values.push_back(category_ms(b));
      const Band band = band_of(values);
      r.p10_ms = band.p10;
      r.p50_ms = band.p50;
      r.p90_ms = band.p90;
      r.inside = r.measured_ms >= band.p10 && r.measured_ms <= band.p90;
    }
    if (r.measured_ms > 0) {
      (r.use == "fit" ? v.mape_fit : v.mape_check) += std::abs(r.error);
      ++(r.use == "fit" ? v.n_fit : v.n_check);
      if (draws > 0) {
        (r.use == "fit" ? v.inside_fit : v.inside_check) += r.inside ? 1 : 0;
        if (r.p50_ms > 0) {
          v.mean_band_width += (r.p90_ms - r.p10_ms) / r.p50_ms;
          ++banded;
        }
      }
    }
  }
  if (v.n_fit) v.mape_fit /= v.n_fit;
  if (v.n_check) v.mape_check /= v.n_check;
  if (banded) v.mean_band_width /= banded;
  return v;
}

void write_breakdown_validation(std::ostream& out, const BreakdownValidation& v) {
  out << "layer breakdown: " << v.file
      << " (ms per MoE layer; predicted by the shipped profiles)\n";
  std::string series;
  for (const auto& r : v.rows) {
    if (r.series != series) {
      series = r.series;
      out << fmt::format(
          "\n{} - {} {} {} tokens/GPU {} context {} EP {}{}, {}, {} placement\n", r.series, r.model,
          r.hw, r.phase, r.tokens_per_gpu, r.context, r.ep,
          r.redundant_experts ? fmt::format(" +{} redundant", r.redundant_experts) : "", r.strategy,
          r.placement);
      out << fmt::format("  {:<20} {:>7} {:>11} {:>10} {:>8}  {}", "category", "run", "measured ms",
                         "predicted", "error", v.draws > 0 ? fmt::format("{:<18}", "use") : "use");
      if (v.draws > 0) out << fmt::format(" {:>9} {:>9}  {}", "P10", "P90", "inside");
      out << "\n";
    }
    const char* use = r.use == "fit" ? "fit (in-sample)" : "check (held back)";
    out << fmt::format("  {:<20} {:>7} {:>11.3f} {:>10.3f} {:>7.1f}%  {}", r.category, r.run,
                       r.measured_ms, r.predicted_ms, 100 * r.error,
                       v.draws > 0 ? fmt::format("{:<18}", use) : use);
    if (v.draws > 0)
      out << fmt::format(" {:>9.3f} {:>9.3f}  {}", r.p10_ms, r.p90_ms,
                         r.measured_ms <= 0         ? "-"
                         : r.inside                 ? "yes"
                         : r.measured_ms < r.p10_ms ? "below"
                                                    : "above");
    out << "\n";
  }
  out << fmt::format(
      "\nMAPE: in-sample (fit) {:.1f} % over {} rows; held back (check) {:.1f} % "
      "over {} rows\n",
      100 * v.mape_fit, v.n_fit, 100 * v.mape_check, v.n_check);
  if (v.draws > 0)
    out << fmt::format(
        "P10-P90 band over {} draws of the profiles and model configs within their spreads: "
        "in-sample {} of {} measurements inside, held back {} of {} (80 % would be honest); "
        "mean band width {:.1f} % of the median draw (as for kernel tables)\n",
        v.draws, v.inside_fit, v.n_fit, v.inside_check, v.n_check, 100 * v.mean_band_width);
}

nlohmann::json breakdown_validation_json(const BreakdownValidation& v) {
  nlohmann::json j;
  j["file"] = v.file;
  j["mape_fit"] = v.mape_fit;
  j["mape_check"] = v.mape_check;
  j["rows_fit"] = v.n_fit;
  j["rows_check"] = v.n_check;
  auto& rows = j["rows"] = nlohmann::json::array();
  for (const auto& r : v.rows)
    rows.push_back({{"line", r.line},
                    {"series", r.series},
                    {"run", r.run},
                    {"category", r.category},
                    {"measured_ms", r.measured_ms},
                    {"predicted_ms", r.predicted_ms},
                    {"error", r.error},
                    {"use", r.use}});
  if (v.draws > 0) {
    j["draws"] = v.draws;
    j["inside_fit"] = v.inside_fit;
    j["inside_check"] = v.inside_check;
    j["mean_band_width"] = v.mean_band_width;
    for (size_t i = 0; i < v.rows.size(); ++i) {
      rows[i]["p10_ms"] = v.rows[i].p10_ms;
      rows[i]["p90_ms"] = v.rows[i].p90_ms;
      rows[i]["inside"] = v.rows[i].inside;
    }
  }
  return j;
}

}  // namespace ovs
