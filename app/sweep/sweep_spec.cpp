#include "app/sweep/sweep_spec.hpp"

#include "models/graph/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include "sim/core/error.hpp"

namespace ovs {

const std::vector<std::string>& whatif_fields() {
  static const std::vector<std::string> f{
      "model", "hw", "phase", "tokens_per_gpu", "context", "ep", "gpus_per_node", "imbalance",
      "cuda_graphs", "deepep_mode", "decode_q_len", "redundant_experts", "placement",
      "attention_backend", "v4_kernels",
      // Per-request lengths (app/analysis/length_spec.hpp) and SGLang's split threshold
      "prompt_lens", "context_lens", "isl", "osl", "seed", "tbo_token_distribution_threshold",
      // SGLang's memory flags (models/memory/)
      "mem_fraction_static", "kv_cache_dtype", "moe_dense_tp_size"};
  return f;
}

namespace {

const std::set<std::string> kIntegerFields{"tokens_per_gpu", "context",           "ep",
                                           "gpus_per_node",  "redundant_experts", "decode_q_len"};

bool known_field(const std::string& f) {
  const auto& w = whatif_fields();
  return std::find(w.begin(), w.end(), f) != w.end() || f.rfind("hw.", 0) == 0 ||
         f.rfind("model.", 0) == 0;
}

// More points than this is a mistake (a trillion what-ifs would run for years), and the point
// count must stay far from overflowing.
constexpr double kMaxPoints = 1e12;

// A what-if field's value, checked as the what-if command checks its flag: integers >= 1,
// imbalance >= 1, the enumerations by name; hw.* and model.* overrides are checked when the
// profile or config is read.
std::string field_value(const std::string& field, const yaml::Value& v) {
  // GPUs per node: a number, or auto for the profile's NVLink domain (nvlink_domain_gpus).
  if (field == "gpus_per_node" && v.is_scalar() && v.raw().Scalar() == "auto") return "auto";
  if (field == "redundant_experts") return std::to_string(v.integer(0));
  if (kIntegerFields.count(field)) return std::to_string(v.integer(1));
  if (field == "imbalance") {
    if (v.is_scalar() && v.raw().Scalar() == "auto") return "auto";
    v.number({1, std::numeric_limits<double>::infinity(), false});
    return v.str();
  }
  if (field == "placement") return v.choice({"eplb", "balanced"});
  if (field == "v4_kernels")
    return v.choice({kV4KernelsNames[0], kV4KernelsNames[1], kV4KernelsNames[2]});
  if (field == "mem_fraction_static") {
    if (v.is_scalar() && v.raw().Scalar() == "auto") return "auto";
    if (v.number({0, 1, true}) >= 1) v.fail("must be below 1 (a share of GPU memory), or auto");
    return v.str();
  }
  if (field == "kv_cache_dtype") return v.choice({"auto", "bf16", "fp8_e4m3"});
  if (field == "moe_dense_tp_size") {
    if (v.is_scalar() && v.raw().Scalar() == "auto") return "auto";
    return std::to_string(v.integer(1));
  }
  if (field == "seed") return std::to_string(v.integer(0));
  if (field == "tbo_token_distribution_threshold") {
    v.number({0, 0.5, false});
    return v.str();
  }
  if (field == "phase") return v.choice({"prefill", "decode"});
  if (field == "cuda_graphs") return v.choice({"on", "off", "auto", "true", "false"});
  if (field == "deepep_mode") return v.choice({"normal", "low_latency", "auto"});
  return v.str();
}

std::string number_text(double v, bool integer) {
  if (integer) return std::to_string(static_cast<long long>(std::llround(v)));
  return fmt::format("{}", v);
}

Axis parse_axis(const yaml::Value& v) {
  yaml::Map m(v, {"field", "values", "range"});
  Axis a;
  a.line = v.line();
  auto fv = m.required("field");
  a.field = fv.str();
  if (!known_field(a.field)) {
    const std::string near = yaml::did_you_mean(a.field, whatif_fields());
    fv.fail("unknown field '" + a.field + "'" +
            (near.empty() ? "" : " (did you mean '" + near + "'?)") +
            "; fields: " + yaml::join(whatif_fields()) + ", hw.<path>, model.<path>");
  }
  const bool integer = kIntegerFields.count(a.field) > 0;
  if (m.has("values") == m.has("range")) v.fail("an axis has exactly one of 'values' or 'range'");
  if (auto vals = m.optional("values")) {
    for (const auto& item : vals->items()) a.values.push_back(field_value(a.field, item));
    if (a.values.empty()) vals->fail("an axis needs at least one value");
  } else {
    yaml::Map r(m.required("range"), {"from", "to", "steps", "scale"});
    const yaml::NumberRange range = integer ? yaml::NumberRange{1, 1e15, false} : yaml::kPositive;
    const double from = r.required("from").number(range);
    const double to = r.required("to").number(range);
    const long long steps = r.required("steps").integer(1, 100000);
    const bool log = r.has("scale") && r.required("scale").choice({"linear", "log"}) == "log";
    if (to < from) r.required("to").fail("must be >= from");
    for (long long i = 0; i < steps; ++i) {
      const double t = steps == 1 ? 0.0 : double(i) / double(steps - 1);
      const double x = log ? from * std::pow(to / from, t) : from + (to - from) * t;
      const std::string s = number_text(x, integer);
      if (std::find(a.values.begin(), a.values.end(), s) == a.values.end()) a.values.push_back(s);
    }
  }
  return a;
}

}  // namespace

long long SweepSpec::points() const {
  if (axes.empty()) return 1;
  if (zip) return static_cast<long long>(axes.front().values.size());
  long long n = 1;
  for (const auto& a : axes) n *= static_cast<long long>(a.values.size());
  return n;
}

std::map<std::string, std::string> SweepSpec::point(long long index) const {
  std::map<std::string, std::string> p = base;
  if (zip) {
    for (const auto& a : axes) p[a.field] = a.values[static_cast<size_t>(index)];
    return p;
  }
  // Mixed radix, the last axis varying fastest.
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    const long long n = static_cast<long long>(it->values.size());
    p[it->field] = it->values[static_cast<size_t>(index % n)];
    index /= n;
  }
  return p;
}

std::vector<std::string> SweepSpec::input_columns() const {
  std::vector<std::string> cols = whatif_fields();
  std::set<std::string> extra;
  for (const auto& [k, v] : base)
    if (std::find(cols.begin(), cols.end(), k) == cols.end()) extra.insert(k);
  for (const auto& a : axes)
    if (std::find(cols.begin(), cols.end(), a.field) == cols.end()) extra.insert(a.field);
  cols.insert(cols.end(), extra.begin(), extra.end());
  return cols;
}

SweepSpec parse_sweep_spec(const yaml::Value& root) {
  SweepSpec s;
  s.file = root.file();
  yaml::Map m(root, {"name", "description", "base", "axes", "combine", "baseline", "strategies",
                     "uncertainty"});
  if (auto u = m.optional("uncertainty")) s.uncertainty = static_cast<int>(u->integer(1, 100000));
  s.name = m.required("name").str();
  if (auto d = m.optional("description")) d->str();
  // Defaults of the what-if command, so a spec need only name what it fixes.
  s.base = {{"phase", "decode"},
            {"gpus_per_node", "auto"},
            {"imbalance", "auto"},
            {"cuda_graphs", "auto"},
            {"deepep_mode", "auto"},
            {"decode_q_len", "1"},
            {"redundant_experts", "0"},
            {"placement", "eplb"},
            {"mem_fraction_static", "auto"},
            {"kv_cache_dtype", "auto"},
            {"moe_dense_tp_size", "auto"},
            {"attention_backend", "auto"},
            {"v4_kernels", "fused"},
            {"prompt_lens", ""},
            {"context_lens", ""},
            {"isl", ""},
            {"osl", ""},
            {"seed", "0"},
            {"tbo_token_distribution_threshold", number_text(kSglangTboTokenThreshold, false)}};
  auto bv = m.required("base");
  if (!bv.is_map()) bv.fail("expected a map of what-if fields");
  std::set<std::string> seen;
  for (const auto& kv : bv.raw()) {
    const std::string key = kv.first.Scalar();
    const int line = kv.first.Mark().line + 1;
    if (!known_field(key)) {
      const std::string near = yaml::did_you_mean(key, whatif_fields());
      throw InputError(s.file, line, "base." + key,
                       "unknown field" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
    if (!seen.insert(key).second) throw InputError(s.file, line, "base." + key, "duplicate key");
    if (!kv.second.IsScalar())
      throw InputError(s.file, line, "base." + key, "expected a single value");
    const yaml::Value value(std::make_shared<const std::string>(s.file), kv.second, "base." + key,
                            line);
    s.base[key] = field_value(key, value);
    s.lines["base." + key] = line;
  }
  if (auto av = m.optional("axes")) {
    double points = 1;
    for (const auto& item : av->items()) {
      s.axes.push_back(parse_axis(item));
      points *= double(s.axes.back().values.size());
    }
    if (points > kMaxPoints)
      av->fail(fmt::format("too many points ({:.3g}; at most {:.0e})", points, kMaxPoints));
  }
  if (auto c = m.optional("combine")) s.zip = c->choice({"cartesian", "zip"}) == "zip";
  if (s.zip)
    for (const auto& a : s.axes)
      if (a.values.size() != s.axes.front().values.size())
        throw InputError(s.file, a.line, "axes", "zipped axes need the same number of values");
  if (auto b = m.optional("baseline")) {
    s.baseline = b->str();
    s.lines["baseline"] = b->line();
  }
  auto sv = m.required("strategies");
  s.lines["strategies"] = sv.line();
  for (const auto& item : sv.items()) s.strategies.push_back(item.str());
  if (s.strategies.empty()) sv.fail("at least one strategy");
  auto given = [&](const char* f) {
    bool set = s.base.count(f) > 0 && !s.base.at(f).empty();
    for (const auto& a : s.axes) set = set || a.field == f;
    return set;
  };
  // Per-request lengths stand for the batch size (a list) and the length (any of them).
  const bool list = given("prompt_lens") || given("context_lens");
  const bool lengths = list || given("isl");
  for (const char* f : {"model", "hw", "tokens_per_gpu", "context", "ep"}) {
    if (std::string(f) == "tokens_per_gpu" && list) continue;
    if (std::string(f) == "context" && lengths) continue;
    if (!given(f))
      throw InputError(s.file, bv.line(), std::string("base.") + f,
                       "missing required field (in base or an axis)");
  }
  return s;
}

SweepSpec load_sweep_spec(const std::string& path) {
  return parse_sweep_spec(yaml::load_file(path));
}

}  // namespace ovs
