#include "app/plan/sglang_command.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {

namespace {

SglangFlagSpec parse_spec(const yaml::Value& v, bool env) {
  yaml::Map m(v,
              {"name", "aliases", "takes", "choices", "sets", "deprecated", "default", "source"});
  SglangFlagSpec s;
  s.name = m.required("name").str();
  if (!env && s.name.rfind("--", 0) != 0) m.required("name").fail("a flag starts with --");
  if (auto a = m.optional("aliases"))
    for (const auto& item : a->items()) s.aliases.push_back(item.str());
  s.takes = env ? m.required("takes").choice({"bool", "int", "string"})
                : m.required("takes").choice({"flag", "int", "float", "string", "choice"});
  if (auto c = m.optional("choices"))
    for (const auto& item : c->items()) s.choices.push_back(item.str());
  if (s.takes == "choice" && s.choices.empty())
    m.required("choices").fail("a choice needs choices");
  s.sets = m.required("sets").str();
  if (auto d = m.optional("deprecated")) s.deprecated = d->str();
  if (auto d = m.optional("default")) s.default_value = d->str();
  s.source = m.required("source").str();
  return s;
}

SglangFlagTable load_table() {
  const std::string path = (std::filesystem::path(data_root()) / "sglang" / "flags.yaml").string();
  return yaml::parse_file(path, [&](const yaml::Value& root) {
    yaml::Map m(root, {"flags", "env"});
    SglangFlagTable t;
    t.file = path;
    for (const auto& f : m.required("flags").items()) t.flags.push_back(parse_spec(f, false));
    for (const auto& e : m.required("env").items()) t.env.push_back(parse_spec(e, true));
    return t;
  });
}

[[noreturn]] void bad(int index, const std::string& word, const std::string& why) {
  throw InputError("command line", 0, fmt::format("{} (argument {})", word, index), why);
}

long long to_int(int index, const std::string& flag, const std::string& v) {
  long long out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size())
    bad(index, flag, "'" + v + "' is not an integer");
  return out;
}

double to_float(int index, const std::string& flag, const std::string& v) {
  double out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(out))
    bad(index, flag, "'" + v + "' is not a number");
  return out;
}

// The deployment field `field` set from a flag's value (or its `field=value` for flags).
void set_field(SglangDeployment& d, const std::string& field, const std::string& v, int index,
               const std::string& flag) {
  auto positive = [&] {
    const long long n = to_int(index, flag, v);
    if (n < 1) bad(index, flag, "must be >= 1 (got " + v + ")");
    return n;
  };
  if (field == "model")
    d.model = v;
  else if (field == "tp")
    d.tp = static_cast<int>(positive());
  else if (field == "dp")
    d.dp = static_cast<int>(positive());
  else if (field == "dp_attention")
    d.dp_attention = v == "true";
  else if (field == "ep")
    d.ep = static_cast<int>(positive());
  else if (field == "a2a")
    d.a2a = v;
  else if (field == "deepep_mode")
    d.deepep_mode = v;
  else if (field == "redundant_experts")
    d.redundant_experts = static_cast<int>(to_int(index, flag, v));
  else if (field == "tbo")
    d.tbo = v == "true";
  else if (field == "sbo")
    d.sbo = v == "true";
  else if (field == "tbo_threshold")
    d.tbo_threshold = to_float(index, flag, v);
  else if (field == "cuda_graph_max_bs")
    d.cuda_graph_max_bs = static_cast<int>(positive());
  else if (field == "cuda_graph")
    d.cuda_graph = v == "true";
  else if (field == "max_running_requests")
    d.max_running_requests = positive();
  else if (field == "chunked_prefill_size")
    d.chunked_prefill_size = to_int(index, flag, v);
  else if (field == "max_prefill_tokens")
    d.max_prefill_tokens = positive();
  else if (field == "speculative")
    d.speculative = v;
  else if (field == "speculative_draft_tokens")
    d.speculative_draft_tokens = static_cast<int>(positive());
  else if (field == "disaggregation")
    d.disaggregation = v;
  else if (field == "nnodes")
    d.nnodes = static_cast<int>(positive());
  else if (field == "mem_fraction_static") {
    const double f = to_float(index, flag, v);
    if (f <= 0 || f >= 1) bad(index, flag, "must be in (0, 1) (got " + v + ")");
    d.mem_fraction_static = v;
  } else if (field == "kv_cache_dtype")
    d.kv_cache_dtype = v;
  else if (field == "moe_dense_tp_size")
    d.moe_dense_tp_size = static_cast<int>(positive());
  else if (field == "multi_stream")
    d.multi_stream = v == "1" || v == "true" || v == "True";
  else if (field == "deepep_ll_max_tokens")
    d.deepep_ll_max_tokens = positive();
  // Fields read for the table but not simulated (EPLB, placement files, steps, top-k, backend,
  // prefill-token cap): kept as given in the notes.
  else
    d.notes.push_back(fmt::format("{} {}: read, not simulated", flag, v));
}

// The flag `word` names: exact name or alias, else a unique prefix of one (argparse's
// allow_abbrev). Null when none or several.
const SglangFlagSpec* find_flag(const SglangFlagTable& t, const std::string& word,
                                std::vector<std::string>& candidates) {
  for (const auto& f : t.flags) {
    if (f.name == word) return &f;
    for (const auto& a : f.aliases)
      if (a == word) return &f;
  }
  const SglangFlagSpec* hit = nullptr;
  for (const auto& f : t.flags) {
    bool match = f.name.rfind(word, 0) == 0;
    for (const auto& a : f.aliases) match = match || a.rfind(word, 0) == 0;
    if (!match) continue;
    candidates.push_back(f.name);
    hit = &f;
  }
  return candidates.size() == 1 ? hit : nullptr;
}

}  // namespace

const SglangFlagTable& sglang_flag_table() {
  static const SglangFlagTable table = load_table();
  return table;
}

const std::string& sglang_flag_name(const std::string& field) {
  for (const auto& f : sglang_flag_table().flags)
    if (f.sets == field || f.sets.rfind(field + "=", 0) == 0) return f.name;
  throw std::logic_error("sglang/flags.yaml has no flag that sets '" + field + "'");
}

int SglangDeployment::decode_q_len() const {
  if (speculative.empty()) return 1;
  if (speculative_draft_tokens > 0) return speculative_draft_tokens;
  // SGLang's default draft for the model when none is given (the table's, with its source).
  const std::string& d = []() -> const std::string& {
    for (const auto& f : sglang_flag_table().flags)
      if (f.sets == "speculative_draft_tokens") return f.default_value;
    throw std::logic_error("sglang/flags.yaml has no speculative_draft_tokens flag");
  }();
  return d.empty() ? 1 : std::stoi(d);
}

SglangDeployment parse_sglang_command(const std::vector<std::string>& args,
                                      const std::vector<std::string>& env) {
  const SglangFlagTable& t = sglang_flag_table();
  SglangDeployment d;
  size_t i = 0;
  // The launcher: python[3] -m sglang.launch_server | sglang serve [MODEL] | the flags alone.
  if (i < args.size() && args[i].rfind("python", 0) == 0) {
    ++i;
    if (i + 1 < args.size() && args[i] == "-m") i += 2;
  } else if (i < args.size() && (args[i] == "sglang" || args[i].ends_with("/sglang"))) {
    ++i;
    if (i < args.size() && args[i] == "serve") ++i;
    if (i < args.size() && args[i].rfind("--", 0) != 0) d.model = args[i++];
  }
  for (; i < args.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    std::string word = args[i];
    if (word.rfind("--", 0) != 0) {
      d.ignored.push_back(word);
      continue;
    }
    std::string value;
    bool has_value = false;
    if (const size_t eq = word.find('='); eq != std::string::npos) {
      value = word.substr(eq + 1);
      word = word.substr(0, eq);
      has_value = true;
    }
    std::vector<std::string> candidates;
    const SglangFlagSpec* f = find_flag(t, word, candidates);
    if (!f) {
      if (candidates.size() > 1)
        bad(index, word,
            "ambiguous: SGLang's argparse would refuse it (it starts " + yaml::join(candidates) +
                ")");
      // Not ours to read: skip it and its value (any following word not starting with --).
      d.ignored.push_back(word);
      while (!has_value && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
        d.ignored.back() += " " + args[i + 1];
        ++i;
      }
      continue;
    }
    if (word != f->name)
      d.notes.push_back(
          fmt::format("{} read as {}{}", word, f->name,
                      std::find(f->aliases.begin(), f->aliases.end(), word) != f->aliases.end()
                          ? " (alias)"
                          : " (a unique prefix, as argparse reads it)"));
    if (!f->deprecated.empty()) d.notes.push_back(f->name + ": " + f->deprecated);
    if (f->takes == "flag") {
      if (has_value) bad(index, word, "takes no value");
      const size_t eq = f->sets.find('=');
      set_field(d, f->sets.substr(0, eq), eq == std::string::npos ? "true" : f->sets.substr(eq + 1),
                index, f->name);
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) bad(index, word, "expects a value");
      value = args[++i];
    }
    if (f->takes == "int") to_int(index, f->name, value);
    if (f->takes == "float") to_float(index, f->name, value);
    if (f->takes == "choice" &&
        std::find(f->choices.begin(), f->choices.end(), value) == f->choices.end())
      bad(index, word, "'" + value + "' is not one of " + yaml::join(f->choices));
    set_field(d, f->sets, value, index, f->name);
  }
  for (const std::string& kv : env) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("command line", 0, "--env", "'" + kv + "' is not NAME=VALUE");
    const std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
    const auto it = std::find_if(t.env.begin(), t.env.end(),
                                 [&](const SglangFlagSpec& s) { return s.name == name; });
    if (it == t.env.end()) {
      if (name.rfind("SGLANG_", 0) == 0) d.ignored.push_back(kv);
      continue;
    }
    if (it->takes == "int") to_int(0, name, value);
    set_field(d, it->sets, value, 0, name);
  }
  if (d.dp == 1 && d.dp_attention) {
    d.dp_attention = false;
    d.notes.push_back("--dp-size 1 turns DP attention off (SGLang's _data_parallelism_defaults)");
  }
  if (d.ep == 0 && d.a2a != "none")
    d.notes.push_back(
        fmt::format("--ep-size not given: SGLang sets it to --tp-size ({}) for the "
                    "{} backend",
                    d.tp, d.a2a));
  return d;
}

}  // namespace ovs
