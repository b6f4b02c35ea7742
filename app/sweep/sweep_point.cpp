#include "app/sweep/sweep_point.hpp"

#include <fmt/format.h>

#include <set>

#include "app/analysis/degradation.hpp"
#include "app/analysis/request.hpp"
#include "app/analysis/uncertainty.hpp"
#include "app/analysis/whatif.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/io/csv_reader.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_override.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {

namespace {

std::string cause_column(DegradationCause cause) {
  std::string c = "degradation_";
  for (char ch : cause_name(cause)) c += (ch == ' ' || ch == '-') ? '_' : ch;
  return c + "_us";
}

std::string num(double v) {
  return fmt::format("{}", v);
}

// Where a point's fields come from in the spec: an axis's line, else the base field's (and the
// lines of baseline and strategies).
RequestSource source_of(const SweepSpec& spec) {
  RequestSource from{spec.file, {}};
  for (const auto& [key, line] : spec.lines)
    from.lines[key.rfind("base.", 0) == 0 ? key.substr(5) : key] = line;
  for (const auto& axis : spec.axes) from.lines[axis.field] = axis.line;
  return from;
}

Workload workload_of(const std::map<std::string, std::string>& p, const RequestSource& from) {
  auto integer = [&](const std::string& key) -> long long {
    try {
      return std::stoll(p.at(key));
    } catch (const std::exception&) {
      from.fail(key, "expected an integer, got '" + p.at(key) + "'");
    }
  };
  WorkloadWords words;
  words.phase = p.at("phase");
  auto text = [&](const std::string& key) { return p.count(key) ? p.at(key) : std::string(); };
  words.tokens_per_gpu = text("tokens_per_gpu").empty() ? 0 : integer("tokens_per_gpu");
  words.context = text("context").empty() ? 0 : integer("context");
  words.prompt_lens = text("prompt_lens");
  words.context_lens = text("context_lens");
  words.isl = text("isl");
  words.osl = text("osl");
  if (!text("seed").empty()) words.seed = static_cast<std::uint64_t>(integer("seed"));
  if (!text("tbo_token_distribution_threshold").empty())
    words.tbo_token_distribution_threshold = std::stod(p.at("tbo_token_distribution_threshold"));
  words.ep = static_cast<int>(integer("ep"));
  words.gpus_per_node =
      p.at("gpus_per_node") == "auto" ? 0 : static_cast<int>(integer("gpus_per_node"));
  words.redundant_experts = static_cast<int>(integer("redundant_experts"));
  words.decode_q_len = static_cast<int>(integer("decode_q_len"));
  words.imbalance = p.at("imbalance");
  words.placement = p.at("placement");
  words.attention_backend = p.at("attention_backend");
  words.v4_kernels = p.at("v4_kernels");
  words.cuda_graphs = p.at("cuda_graphs");
  words.deepep_mode = p.at("deepep_mode");
  words.memory.mem_fraction_static = p.at("mem_fraction_static");
  words.memory.kv_cache_dtype = p.at("kv_cache_dtype");
  words.memory.moe_dense_tp_size = p.at("moe_dense_tp_size");
  return resolve_workload(words, from);
}

Overrides overrides_of(const std::map<std::string, std::string>& p, const std::string& prefix) {
  Overrides o;
  for (const auto& [k, v] : p)
    if (k.rfind(prefix, 0) == 0) o.emplace_back(k.substr(prefix.size()), v);
  return o;
}

}  // namespace

const std::vector<std::string>& output_columns() {
  static const std::vector<std::string> cols = [] {
    std::vector<std::string> c{"strategy",
                               "baseline",
                               "baseline_us",
                               "overlapped_us",
                               "speedup",
                               "advantage_us",
                               "degradation_us",
                               "comm_hidden_us",
                               "baseline_per_layer_us",
                               "overlapped_per_layer_us",
                               "baseline_tokens_per_s_per_gpu",
                               "overlapped_tokens_per_s_per_gpu",
                               "baseline_exposed_comm_us",
                               "overlapped_exposed_comm_us",
                               "baseline_gpu_idle_us",
                               "overlapped_gpu_idle_us",
                               "two_micro_batches",
                               "deepep_mode_used",
                               "cuda_graphs_used",
                               "baseline_memory_gb",
                               "overlapped_memory_gb",
                               "baseline_fits",
                               "overlapped_fits",
                               "baseline_fits_limited_by",
                               "overlapped_fits_limited_by",
                               "baseline_memory_tight",
                               "overlapped_memory_tight"};
    for (const DegradationCause cause : kDegradationCauses) c.push_back(cause_column(cause));
    c.push_back("outside_sglang");  // why SGLang would not run the pair here; empty when it does
    c.push_back("verdict");
    c.push_back("error");
    return c;
  }();
  return cols;
}

const std::vector<std::string>& uncertainty_columns() {
  static const std::vector<std::string> cols{"speedup_p10", "speedup_p50", "speedup_p90", "p_pays"};
  return cols;
}

struct PointEvaluator::Cache {
  // Strategies by (family, name), models and GPUs by name when not overridden.
  std::map<std::string, Strategy> strategies;
  std::map<std::string, ModelConfig> models;
  std::map<std::string, HwProfile> gpus;
  RunRecycler runs;  // each strategy's run storage, from point to point
};

PointEvaluator::PointEvaluator(const SweepSpec& spec)
    : spec_(spec), inputs_(spec.input_columns()), cache_(std::make_unique<Cache>()) {}
PointEvaluator::~PointEvaluator() = default;

std::string PointEvaluator::header() const {
  std::string h = "point";
  for (const auto& c : inputs_) h += "," + csv_field(c);
  for (const auto& c : output_columns()) h += "," + csv_field(c);
  if (spec_.uncertainty > 0)
    for (const auto& c : uncertainty_columns()) h += "," + csv_field(c);
  return h + "\n";
}

std::string point_prefix(const SweepSpec& spec, const std::vector<std::string>& inputs,
                         long long index) {
  const auto p = spec.point(index);
  std::string prefix = std::to_string(index);
  for (const auto& c : inputs) prefix += "," + csv_field(p.count(c) ? p.at(c) : std::string());
  return prefix;
}

std::string PointEvaluator::rows(long long index) {
  const auto p = spec_.point(index);
  const std::string prefix = point_prefix(spec_, inputs_, index);
  const size_t n_out = output_columns().size();
  auto error_rows = [&](const std::string& message) {
    std::string out;
    for (const auto& s : spec_.strategies) {
      out += prefix + "," + csv_field(s) + "," + csv_field(spec_.baseline);
      for (size_t i = 2; i + 1 < n_out; ++i) out += ",";
      out += "," + csv_field(message);
      if (spec_.uncertainty > 0) out += std::string(uncertainty_columns().size(), ',');
      out += "\n";
    }
    return out;
  };
  try {
    const Workload w = workload_of(p, source_of(spec_));
    const Overrides hw_o = overrides_of(p, "hw."), model_o = overrides_of(p, "model.");
    ModelConfig model;
    if (model_o.empty()) {
      auto it = cache_->models.find(p.at("model"));
      if (it == cache_->models.end())
        it = cache_->models.emplace(p.at("model"), load_model_config(p.at("model"))).first;
      model = it->second;
    } else {
      model = load_model_config(p.at("model"), model_o);
    }
    HwProfile hw;
    if (hw_o.empty()) {
      auto it = cache_->gpus.find(p.at("hw"));
      if (it == cache_->gpus.end())
        it = cache_->gpus.emplace(p.at("hw"), load_hw_profile(p.at("hw"))).first;
      hw = it->second;
    } else {
      hw = load_hw_profile(p.at("hw"), hw_o);
    }
    auto strategy = [&](const std::string& name) -> const Strategy& {
      const std::string key = std::to_string(int(model.family)) + "/" + hw.vendor + "/" + name;
      auto it = cache_->strategies.find(key);
      if (it == cache_->strategies.end())
        it = cache_->strategies
                 .emplace(key, for_vendor(load_strategy(name, model.family), hw.vendor))
                 .first;
      return it->second;
    };
    WhatIfSession session(model, hw, w, &cache_->runs);
    const Strategy& base = strategy(spec_.baseline);
    std::string out;
    for (const auto& name : spec_.strategies) {
      const WhatIfResult r = session.compare(base, strategy(name));
      std::map<DegradationCause, double> deg;
      for (const auto& d : r.degradation) deg[d.cause] = d.us;
      std::string row = prefix + "," + csv_field(name) + "," + csv_field(spec_.baseline);
      const ProgramStats &b = r.baseline, &o = r.overlapped;
      // A side that does not fit in HBM has no throughput; the speedup is the simulated forwards'
      // ratio either way (the fits columns say whether SGLang would run them; reports skip it).
      auto fitting = [](bool fits, double v) { return fits ? num(v) : std::string(); };
      row += "," + num(b.total_us) + "," + num(o.total_us) + "," + num(r.speedup);
      for (double v :
           {r.advantage_us, r.degradation_us, r.comm_hidden_us, b.per_layer_us, o.per_layer_us})
        row += "," + num(v);
      row += "," + fitting(b.fits(), b.tokens_per_s_per_gpu) + "," +
             fitting(o.fits(), o.tokens_per_s_per_gpu);
      for (double v : {b.exposed_comm_us, o.exposed_comm_us, b.gpu_idle_us, o.gpu_idle_us})
        row += "," + num(v);
      row += std::string(",") + (o.split ? "true" : "false");
      row +=
          std::string(",") + (r.workload.mode() == DeepepMode::normal ? "normal" : "low_latency");
      row += std::string(",") + (r.workload.graphs() ? "true" : "false");
      row += "," + num(b.memory.total_bytes / units::kBytesPerGB) + "," +
             num(o.memory.total_bytes / units::kBytesPerGB);
      row += std::string(",") + (b.fits() ? "true" : "false") + "," + (o.fits() ? "true" : "false");
      row += std::string(",") + memory_limit_name(b.memory.limited_by) + "," +
             memory_limit_name(o.memory.limited_by);
      row += std::string(",") + (b.memory.tight ? "true" : "false") + "," +
             (o.memory.tight ? "true" : "false");
      for (const DegradationCause cause : kDegradationCauses)
        row += "," + num(deg.count(cause) ? deg.at(cause) : 0.0);
      std::string outside = r.strategy_outside_sglang;
      if (!r.baseline_outside_sglang.empty())
        outside += (outside.empty() ? "" : "; ") + r.baseline_outside_sglang;
      row += "," + csv_field(outside) + "," + csv_field(r.verdict) + ",";
      if (spec_.uncertainty > 0) {
        // The point's what-if drawn within the files' spreads (its axes' fields stay as set);
        // one thread: the sweep runs its points in parallel already.
        UncertaintyRequest u;
        u.what.model = p.at("model");
        u.what.hw = p.at("hw");
        u.what.workload = w;
        u.what.strategy = name;
        u.what.baseline = spec_.baseline;
        u.hw_overrides = hw_o;
        u.model_overrides = model_o;
        u.draws = spec_.uncertainty;
        u.sensitivity = false;
        const UncertaintyResult ur = run_uncertainty(u);
        row += "," + num(ur.speedup.p10) + "," + num(ur.speedup.p50) + "," + num(ur.speedup.p90) +
               "," + num(ur.p_pays);
      }
      row += "\n";
      out += row;
    }
    return out;
  } catch (const InputError& e) {
    if (!e.file().empty()) return error_rows(e.what());
    // A value of this point's: the spec's field that gave it, at its line.
    std::string field = e.field();
    for (char& c : field)
      if (c == '-' || c == ' ') c = '_';
    if (field == "hardware") field = "hw";
    if (field == "strategy") field = "strategies";
    const RequestSource from = source_of(spec_);
    const auto line = from.lines.find(field);
    return error_rows(
        InputError(spec_.file, line == from.lines.end() ? 0 : line->second, field, e.message())
            .what());
  } catch (const std::exception& e) {
    return error_rows(std::string("internal error: ") + e.what());
  }
}

void check_sweep_names(const SweepSpec& spec) {
  // Each name with where the spec gives it: a base field or an axis.
  struct Use {
    std::string name, field;
    int line;
  };
  auto uses = [&](const std::string& field) {
    std::vector<Use> out;
    if (spec.base.count(field)) {
      const auto line = spec.lines.find("base." + field);
      out.push_back(
          {spec.base.at(field), "base." + field, line == spec.lines.end() ? 0 : line->second});
    }
    for (size_t i = 0; i < spec.axes.size(); ++i)
      if (spec.axes[i].field == field)
        for (const auto& v : spec.axes[i].values)
          out.push_back({v, "axes[" + std::to_string(i) + "].values", spec.axes[i].line});
    return out;
  };
  auto line_of = [&](const std::string& key) {
    const auto it = spec.lines.find(key);
    return it == spec.lines.end() ? 0 : it->second;
  };
  // An unknown name is the spec's error; a shipped or given file that does not load is that
  // file's own error, which names it.
  auto resolve = [&](const Use& u, const std::string& folder, const std::string& what) {
    try {
      resolve_data_file(u.name, folder, what);
    } catch (const NameError& e) {
      throw InputError(spec.file, u.line, u.field, e.what());
    }
  };
  // Fields set by path ("hw.hbm.peak_gbps", "model.moe.topk") must exist in every file they
  // would override, or every point of the sweep would fail.
  struct PathUse {
    std::string path, field;
    int line;
  };
  auto path_uses = [&](const std::string& prefix) {
    std::vector<PathUse> out;
    for (const auto& [k, v] : spec.base)
      if (k.rfind(prefix, 0) == 0)
        out.push_back({k.substr(prefix.size()), "base." + k, line_of("base." + k)});
    for (size_t i = 0; i < spec.axes.size(); ++i)
      if (spec.axes[i].field.rfind(prefix, 0) == 0)
        out.push_back({spec.axes[i].field.substr(prefix.size()),
                       "axes[" + std::to_string(i) + "].field", spec.axes[i].line});
    return out;
  };
  auto check_paths = [&](const std::string& prefix, const std::string& name,
                         const std::string& folder, const std::string& what) {
    const auto ps = path_uses(prefix);
    if (ps.empty()) return;
    const yaml::Value root = yaml::load_file(resolve_data_file(name, folder, what));
    for (const auto& p : ps) {
      try {
        check_override_path(root, p.path);
      } catch (const NameError& e) {
        throw InputError(spec.file, p.line, p.field, e.what());
      }
    }
  };
  std::set<std::string> done;
  for (const auto& u : uses("hw")) {
    resolve(u, "hw_profiles", "hardware profile");
    if (!done.insert("hw/" + u.name).second) continue;
    load_hw_profile(u.name);
    check_paths("hw.", u.name, "hw_profiles", "hardware profile");
  }
  for (const auto& u : uses("model")) {
    resolve(u, "models/configs", "model");
    if (!done.insert("model/" + u.name).second) continue;
    const ModelConfig mc = load_model_config(u.name);
    check_paths("model.", u.name, "models/configs", "model");
    const std::string dir =
        mc.family == ModelFamily::v4 ? "strategies/deepseek-v4" : "strategies/deepseek-v3";
    for (size_t i = 0; i < spec.strategies.size(); ++i)
      resolve({spec.strategies[i], "strategies[" + std::to_string(i) + "]", line_of("strategies")},
              dir, "strategy");
    resolve({spec.baseline, "baseline", line_of("baseline")}, dir, "strategy");
    for (const auto& s : spec.strategies) load_strategy(s, mc.family);
    load_strategy(spec.baseline, mc.family);
  }
}

}  // namespace ovs
