// overlapsim describe model|hw NAME [--json] [--template]: a shipped model config or hardware
// profile with the source of every number, to read or to copy for one's own model or GPU.
// overlapsim describe strategy NAME [--model M] [--json]: what a strategy does
// (app/cli/describe_strategy.hpp).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "app/cli/commands.hpp"
#include "app/cli/describe_strategy.hpp"
#include "app/cli/flag_checks.hpp"
#include "models/config/model_config.hpp"
#include "models/hw/hw_profile.hpp"
#include "models/memory/memory_model.hpp"
#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

using Json = nlohmann::ordered_json;

struct DescribeOptions {
  std::string kind;
  std::string name;
  std::string model;  // strategy: the model whose family's strategy to describe
  bool json = false;
  bool templ = false;
};

Json scalar_json(const std::string& s) {
  if (s == "true") return true;
  if (s == "false") return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0') return s;
  if (std::fabs(v) < 9e18 && v == static_cast<double>(static_cast<long long>(v)) &&
      s.find_first_of(".eE") == std::string::npos)
    return static_cast<long long>(v);
  return v;
}

Json node_json(const YAML::Node& n) {
  if (n.IsScalar()) return scalar_json(n.Scalar());
  if (n.IsSequence()) {
    Json a = Json::array();
    for (const auto& i : n) a.push_back(node_json(i));
    return a;
  }
  if (n.IsMap()) {
    Json o = Json::object();
    for (const auto& kv : n) o[kv.first.Scalar()] = node_json(kv.second);
    return o;
  }
  return nullptr;
}

// Every field: {field, value, source}; a {value(s), source} map is one field.
void walk(const YAML::Node& n, const std::string& path, Json& out) {
  if (n.IsMap() && n["source"] && (n["value"] || n["values"])) {
    Json f{{"field", path},
           {"value", node_json(n["value"] ? n["value"] : n["values"])},
           {"source", n["source"].Scalar()}};
    // How sure the number is (models/hw/spread.hpp): a relative 1-sigma or a range.
    if (n["spread"]) f["spread"] = node_json(n["spread"]);
    if (n["range"]) f["range"] = node_json(n["range"]);
    out.push_back(std::move(f));
    return;
  }
  if (n.IsMap()) {
    for (const auto& kv : n)
      walk(kv.second, path.empty() ? kv.first.Scalar() : path + "." + kv.first.Scalar(), out);
    return;
  }
  out.push_back({{"field", path}, {"value", node_json(n)}, {"source", nullptr}});
}

// The KV cache layout for each --kv-cache-dtype SGLang offers here.
struct KvLayoutRow {
  std::string dtype;
  bool is_auto = false;
  double bytes = 0;  // 0: no such layout
  std::string how;
};

std::vector<KvLayoutRow> kv_layout_rows(const ModelConfig& m) {
  std::vector<KvLayoutRow> rows;
  for (Dtype d : {Dtype::bf16, Dtype::fp8}) {
    KvLayoutRow r;
    r.dtype = kv_dtype_name(d);
    r.is_auto = d == m.kv_auto_dtype;
    try {
      r.bytes = kv_bytes_per_token_per_layer(m, d);
      r.how = m.family == ModelFamily::v3
                  ? fmt::format(
                        "(kv_lora_rank {} + qk_rope_head_dim {}) x {} B; x {} layers = "
                        "{:g} B per token",
                        m.kv_lora_rank, m.qk_rope_head_dim, d == Dtype::bf16 ? 2 : 1, m.layers,
                        r.bytes * m.layers)
                  : fmt::format(
                        "{} nope x 1 B + {} rope x 2 B + {} scale B (FlashMLA packed); "
                        "per layer type: window + 1 entry per compress ratio",
                        m.head_dim - m.rope_dim, m.rope_dim, m.kv_fp8_scale_bytes);
    } catch (const InputError& e) {
      r.how = e.message();
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream t;
  t << in.rdbuf();
  return t.str();
}

// The file with every source marked for the user to replace, and a name of its own.
std::string as_template(const std::string& text, const std::string& name) {
  std::string out = std::regex_replace(
      text, std::regex("source: \"([^\"]*)\""),
      "source: \"TODO: where your number comes from (template from " + name + ": $1)\"");
  return std::regex_replace(out, std::regex("(^|\n)name: [^\n#]*"), "$1name: my-" + name);
}

int run(const DescribeOptions& o, CliContext& ctx) {
  if (o.kind == "strategy") {
    if (o.templ)
      throw flag_error("--template",
                       "is for model and hw; copy a strategy's file from strategies/ instead");
    return describe_strategy(o.name, o.model, o.json, ctx.out);
  }
  if (!o.model.empty()) throw flag_error("--model", "is for describe strategy only");
  const bool hw = o.kind == "hw";
  const std::string folder = hw ? "hw_profiles" : "models/configs";
  const std::string what = hw ? "hardware profile" : "model";
  std::string path;
  try {
    path = resolve_data_file(o.name, folder, what);
  } catch (const NameError& e) {
    throw flag_error("name", e.what());
  }
  // Loaded the way every command loads it: a describe of a broken file is the same error.
  std::string name;
  std::vector<KvLayoutRow> kv;
  if (hw) {
    name = load_hw_profile(path).name;
  } else {
    const ModelConfig m = load_model_config(path);
    name = m.name;
    kv = kv_layout_rows(m);
  }
  const std::string text = slurp(path);
  if (o.templ) {
    ctx.out << "# Template for your own " << what << ", from " << name
            << ": replace the values and every source, then pass this file's path as --"
            << (hw ? "hw" : "model") << ".\n"
            << as_template(text, name);
    return 0;
  }
  if (o.json) {
    Json fields = Json::array();
    walk(YAML::LoadFile(path), "", fields);
    Json j{{"kind", o.kind}, {"name", name}, {"file", path}, {"fields", fields}};
    if (!hw) {
      Json rows = Json::array();
      for (const auto& r : kv)
        rows.push_back({{"kv_cache_dtype", r.dtype},
                        {"auto", r.is_auto},
                        {"bytes_per_token_per_layer", r.bytes > 0 ? Json(r.bytes) : Json(nullptr)},
                        {"how", r.how}});
      j["kv_cache_bytes_per_token_per_layer"] = rows;
    }
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << "# " << what << " '" << name << "' (" << path << ")\n"
          << "# Every number carries its source and its spread (spread: relative 1-sigma, range: "
             "[lo, hi] for a guess, spread: 0 exact; whatif --uncertainty draws within them).\n"
          << "# For your own " << (hw ? "GPU" : "model") << ": overlapsim describe " << o.kind
          << " " << name << " --template > mine.yaml, edit, pass --" << (hw ? "hw" : "model")
          << " ./mine.yaml\n";
  if (!hw) {
    ctx.out << "# KV cache as SGLang's pool stores it, bytes per token per layer "
               "(--kv-cache-dtype; models/memory/kv_cache.cpp):\n";
    for (const auto& r : kv)
      ctx.out << fmt::format("#   {:<9} {:>6}  {}{}\n", r.dtype,
                             r.bytes > 0 ? fmt::format("{:g} B", r.bytes) : std::string("-"), r.how,
                             r.is_auto ? " <- auto" : "");
  }
  ctx.out << text;
  return 0;
}

}  // namespace

void add_describe_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<DescribeOptions>();
  auto* cmd = app.add_subcommand(
      "describe",
      "Print a model config or hardware profile with the source of every number (--json: field\n"
      "by field); --template prints it as a starting point for your own model or GPU. describe\n"
      "strategy NAME: its ops and Yield points, streams and events, SM split, and SGLang's\n"
      "status, flags and sources.");
  cmd->add_option("kind", o->kind, "model, hw or strategy")
      ->required()
      ->check(flags::one_of({"model", "hw", "strategy"}));
  cmd->add_option("name", o->name,
                  "Shipped name (h800, deepseek-v3, tbo-decode, ...) or a YAML path")
      ->required();
  cmd->add_option("--model", o->model,
                  "describe strategy: the model whose family's strategy to show (a name shipped "
                  "for both DeepSeek-V3 and V4, e.g. sbo, shows both without it)");
  cmd->add_flag("--json", o->json,
                "model/hw: every field as {field, value, source}; strategy: one JSON object");
  cmd->add_flag("--template", o->templ,
                "The file with every source marked TODO and a name of its own, to copy");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o, ctx); });
}

}  // namespace ovs
