#include "app/strategy/strategy.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

std::vector<std::string> string_list(const yaml::Value& v) {
  std::vector<std::string> out;
  if (v.is_scalar()) return {v.str()};
  for (const auto& item : v.items()) out.push_back(item.str());
  return out;
}

LayerStrategy parse_layer(const yaml::Value& v, std::vector<std::string>& notes) {
  LayerStrategy l;
  l.line = v.line();
  yaml::Map m(v, {"operations", "placement"});
  for (const auto& item : m.required("operations").items()) {
    std::string name = item.str();
    if (name == "Yield" || name == "YIELD") name = kYield;
    if (const std::string ours = op_from_sglang_name(name); !ours.empty()) {
      notes.push_back(item.file() + ":" + std::to_string(item.line()) + ": " + item.path() +
                      ": read SGLang's '" + name + "' as '" + ours + "' (overlapsim's name)");
      name = ours;
    }
    l.items.push_back(name);
    l.lines.push_back(item.line());
  }
  if (auto pv = m.optional("placement")) {
    for (const auto& item : pv->items()) {
      yaml::Map pm(item, {"op", "kernel", "stream", "wait", "record", "sm_cap", "optional",
                          "independent_of"});
      Placement p;
      p.line = item.line();
      p.op = pm.required("op").str();
      p.kernel = pm.required("kernel").str();
      if (auto s = pm.optional("stream")) p.stream = s->str();
      if (auto w = pm.optional("wait")) p.wait = string_list(*w);
      if (auto r = pm.optional("record")) p.record = string_list(*r);
      if (auto c = pm.optional("sm_cap")) p.sm_cap = static_cast<int>(c->integer(1, 4096));
      if (auto o = pm.optional("optional")) p.optional = o->boolean();
      if (auto d = pm.optional("independent_of")) p.independent_of = string_list(*d);
      l.placement.push_back(p);
    }
  }
  return l;
}

SglangInfo parse_sglang(const yaml::Value& v) {
  SglangInfo g;
  g.given = true;
  g.line = v.line();
  yaml::Map m(v, {"status", "phases", "flags", "env", "max_tokens_per_gpu", "needs_cuda_graphs",
                  "source", "note"});
  g.status = m.required("status").choice({"shipped", "unsure", "proposal", "not-in-sglang"});
  for (const auto& p : m.required("phases").items())
    g.phases.push_back(p.choice({"prefill", "decode"}));
  if (auto f = m.optional("flags"))
    for (const auto& item : f->items()) {
      const std::string flag = item.str();
      if (flag.rfind("--", 0) != 0) item.fail("a flag starts with '--'");
      g.flags.push_back(flag);
    }
  if (auto e = m.optional("env"))
    for (const auto& item : e->items()) {
      const std::string var = item.str();
      if (var.find('=') == std::string::npos || var.front() == '=')
        item.fail("expected NAME=VALUE");
      g.env.push_back(var);
    }
  if (auto t = m.optional("max_tokens_per_gpu")) {
    yaml::Map tm(*t, {"hopper", "blackwell", "cdna4"});
    for (const auto& arch : tm.keys())
      g.max_tokens_per_gpu[arch] = static_cast<int>(tm.required(arch).integer(1, 1 << 30));
  }
  if (auto c = m.optional("needs_cuda_graphs")) g.needs_cuda_graphs = c->boolean();
  g.source = m.required("source").str();
  if (auto n = m.optional("note")) g.note = n->str();
  return g;
}

}  // namespace

const char* family_name(ModelFamily f) {
  return f == ModelFamily::v4 ? "deepseek-v4" : "deepseek-v3";
}

std::string strategy_folder(ModelFamily f) {
  return std::string("strategies/") + family_name(f);
}

std::string op_from_sglang_name(const std::string& name) {
  if (name == "YieldOperation" || name == "YieldOperation()" ||
      name == "operations.YieldOperation()" || name == "operations.YieldOperation")
    return kYield;
  std::string rest = name;
  if (rest.rfind("layer.", 0) == 0) rest = rest.substr(6);
  const size_t dot = rest.rfind('.');
  const std::string module = dot == std::string::npos ? "" : rest.substr(0, dot);
  std::string op = dot == std::string::npos ? rest : rest.substr(dot + 1);
  if (op.rfind("op_", 0) != 0) return {};
  op = op.substr(3);
  if (op.empty()) return {};
  if (op == "comm_postprocess_layer") op = "postprocess_layer";
  if (module == "self_attn" || module == "attn") return "attn." + op;
  if (module.empty() || module == "mlp") return op;
  return {};
}

bool SglangInfo::for_phase(const std::string& phase) const {
  return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

const LayerStrategy& Strategy::for_type(LayerType t) const {
  const std::string type = to_string(t);
  auto it = layers.find(type);
  if (it != layers.end()) return it->second;
  it = layers.find("default");
  if (it != layers.end()) return it->second;
  throw InputError(file, layers_line, "layers",
                   "no operations for layer type '" + type + "' and no 'default'");
}

Strategy parse_strategy(const yaml::Value& root) {
  Strategy s;
  s.file = root.file();
  yaml::Map m(root, {"name", "model_family", "description", "source", "two_batch_overlap",
                     "tbo_delta_stages", "deep_gemm_num_sms", "deepep_mode", "side_streams",
                     "layers", "sglang", "vendor_plans"});
  s.name = m.required("name").str();
  const yaml::Value family = m.required("model_family");
  s.family_line = family.line();
  s.family = family.choice({"deepseek-v3", "deepseek-v4"}) == "deepseek-v4" ? ModelFamily::v4
                                                                            : ModelFamily::v3;
  if (auto d = m.optional("description")) s.description = d->str();
  if (auto d = m.optional("source")) s.source = d->str();
  if (auto t = m.optional("two_batch_overlap")) s.two_batch_overlap = t->boolean();
  if (auto d = m.optional("tbo_delta_stages")) {
    s.delta_stages = static_cast<int>(d->integer(0, 16));
    if (!s.two_batch_overlap && s.delta_stages > 0)
      d->fail("tbo_delta_stages needs two_batch_overlap: true");
  }
  if (auto g = m.optional("deep_gemm_num_sms")) {
    if (g->is_null()) {
    } else if (g->is_scalar() && g->raw().Scalar() == "auto") {
      s.deep_gemm_auto = true;
    } else {
      s.deep_gemm_num_sms = static_cast<int>(g->integer(1, 4096));
    }
  }
  if (auto d = m.optional("deepep_mode")) {
    const std::string mode = d->choice({"auto", "normal", "low_latency"});
    if (mode == "normal") s.deepep_mode = DeepepMode::normal;
    if (mode == "low_latency") s.deepep_mode = DeepepMode::low_latency;
  }
  if (auto ss = m.optional("side_streams"))
    for (const auto& item : ss->items()) {
      const std::string name = item.str();
      if (name == "compute" || name == "deepep" ||
          std::find(s.side_streams.begin(), s.side_streams.end(), name) != s.side_streams.end())
        item.fail("duplicate or reserved stream name '" + name + "'");
      s.side_streams.push_back(name);
    }
  auto lv = m.required("layers");
  s.layers_line = lv.line();
  yaml::Map lm(lv, {"default", "moe", "dense", "swa", "csa", "hca"});
  for (const auto& key : lm.keys()) s.layers[key] = parse_layer(lm.required(key), s.notes);
  if (s.layers.empty()) lv.fail("no layer type");
  if (auto g = m.optional("sglang")) s.sglang = parse_sglang(*g);
  if (auto vp = m.optional("vendor_plans")) {
    yaml::Map pm(*vp, {"nvidia", "amd"});
    for (const auto& vendor : pm.keys()) {
      auto v = pm.required(vendor);
      s.vendor_plans[vendor] = {v.str(), v.line()};
    }
  }
  return s;
}

Strategy for_vendor(const Strategy& s, const std::string& vendor) {
  const auto it = s.vendor_plans.find(vendor);
  if (it == s.vendor_plans.end()) return s;
  Strategy plan;
  try {
    plan = load_strategy(it->second.first, s.family);
  } catch (const InputError& e) {
    throw InputError(s.file, it->second.second, "vendor_plans." + vendor, e.message());
  }
  if (!plan.vendor_plans.empty())
    throw InputError(s.file, it->second.second, "vendor_plans." + vendor,
                     "'" + plan.name + "' names vendor plans of its own: one level only");
  plan.plan_of = s.name;
  return plan;
}

Strategy load_strategy(const std::string& name_or_path, ModelFamily family) {
  std::string path;
  try {
    path = resolve_data_file(name_or_path, strategy_folder(family), "strategy");
  } catch (const NameError& e) {
    throw InputError("", 0, "strategy", e.what());
  }
  Strategy s = yaml::parse_file(path, parse_strategy);
  if (s.family != family)
    throw InputError(path, s.family_line, "model_family",
                     "strategy '" + s.name + "' is for another model family");
  return s;
}

std::vector<std::vector<std::string>> stages_of(const LayerStrategy& l) {
  std::vector<std::vector<std::string>> out(1);
  for (const auto& item : l.items) {
    if (item == kYield)
      out.emplace_back();
    else
      out.back().push_back(item);
  }
  if (out.back().empty()) out.pop_back();  // a list ending with a yield
  return out;
}

namespace {

// Inside one op, a kernel that reads what another writes (the model's kernel_deps) must run after
// it: on the same stream later, or after a wait on an event recorded after the producer (or
// after a kernel that itself runs after it). Kernels are launched in the op's kernel order; a
// wait holds every later kernel of its stream.
void check_kernel_order(const Strategy& s, const LayerStrategy& l, const std::string& key,
                        const std::string& op, const LayerBuilder& b, LayerType type) {
  const auto& deps = b.kernel_deps(type, op);
  if (deps.empty()) return;
  const auto names = b.kernel_names(type, op);
  const auto placed = [&](const std::string& k) -> const Placement* {
    for (const auto& p : l.placement)
      if (p.op == op && p.kernel == k) return &p;
    return nullptr;
  };
  const size_t n = names.size();
  std::vector<std::set<size_t>> before(n);               // kernels that finish before kernel i
  std::map<std::string, std::set<size_t>> stream_state;  // what a stream's next kernel follows
  std::map<std::string, std::set<size_t>> event_state;   // what an event's latest record follows
  for (size_t i = 0; i < n; ++i) {
    const Placement* p = placed(names[i]);
    const std::string stream = p ? p->stream : "compute";
    std::set<size_t>& st = stream_state[stream];
    if (p)
      for (const auto& w : p->wait) {
        auto e = event_state.find(w);
        if (e != event_state.end()) st.insert(e->second.begin(), e->second.end());
      }
    before[i] = st;
    st.insert(i);
    if (p)
      for (const auto& r : p->record) event_state[r] = st;
  }
  auto index = [&](const std::string& k) {
    return static_cast<size_t>(std::find(names.begin(), names.end(), k) - names.begin());
  };
  for (const Placement& p : l.placement) {
    if (p.op != op) continue;
    for (const auto& d : p.independent_of)
      if (std::find(names.begin(), names.end(), d) != names.end() &&  // launched on this GPU
          std::find(deps.begin(), deps.end(), std::make_pair(d, p.kernel)) == deps.end())
        throw InputError(s.file, p.line, "layers." + key + ".placement.independent_of",
                         "'" + p.kernel + "' of op '" + op + "' does not read from '" + d +
                             "' in the model; nothing to declare independent");
  }
  for (const auto& [producer, consumer] : deps) {
    const size_t pi = index(producer), ci = index(consumer);
    if (pi >= n || ci >= n || before[ci].count(pi)) continue;
    const Placement* p = placed(consumer);
    if (p && std::find(p->independent_of.begin(), p->independent_of.end(), producer) !=
                 p->independent_of.end())
      continue;
    if (!p) p = placed(producer);
    const std::string where = "layers." + key + ".placement";
    throw InputError(s.file, p ? p->line : l.line, where,
                     "kernel '" + consumer + "' of op '" + op + "' reads what '" + producer +
                         "' writes, but nothing orders it after '" + producer +
                         "' (different streams and no wait on an event recorded after it)");
  }
}

}  // namespace

void check_strategy(const Strategy& s, const LayerBuilder& b) {
  const std::set<LayerType> family_types =
      b.model().family == ModelFamily::v4
          ? std::set<LayerType>{LayerType::swa, LayerType::csa, LayerType::hca}
          : std::set<LayerType>{LayerType::moe, LayerType::dense};
  for (const auto& [key, l] : s.layers)
    if (const auto t = parse_layer_type(key); key != "default" && (!t || !family_types.count(*t)))
      throw InputError(s.file, l.line, "layers." + key, "not a layer type of this model family");
  // Checked in the order of their names, so the first error is the same whatever the layer order.
  std::map<std::string, LayerType> types;
  for (const LayerType t : b.layer_types()) types.emplace(to_string(t), t);
  for (const auto& [name, type] : types) {
    if (type == LayerType::dense && !s.layers.count(name)) continue;  // dense: a fixed list
    const LayerStrategy& l = s.for_type(type);
    const std::string field =
        "layers." + (s.layers.count(name) ? name : std::string("default")) + ".operations";
    const auto vocab = b.canonical_ops(type);
    std::vector<std::string> ops;
    for (size_t i = 0; i < l.items.size(); ++i) {
      const std::string& item = l.items[i];
      const std::string where = field + "[" + std::to_string(i) + "]";
      if (item == kYield) {
        if (!s.two_batch_overlap)
          throw InputError(s.file, l.lines[i], where, "a yield needs two_batch_overlap: true");
        if (i == 0 || l.items[i - 1] == kYield)
          throw InputError(s.file, l.lines[i], where,
                           "empty stage: a yield right after the start or another yield");
        continue;
      }
      if (std::find(vocab.begin(), vocab.end(), item) == vocab.end()) {
        const std::string near = yaml::did_you_mean(item, vocab);
        throw InputError(s.file, l.lines[i], where,
                         "unknown op '" + item + "'" +
                             (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                             "; valid ops: " + yaml::join(vocab));
      }
      ops.push_back(item);
    }
    const std::string problem = b.op_graph(type).check_order(ops);
    if (!problem.empty()) throw InputError(s.file, l.line, field, problem);
    // Placement: known op and kernel, declared stream, each (op, kernel) placed once, waits on
    // events recorded by a kernel that runs before (in the layer's op order, then the op's
    // kernel order); "prev:" names the previous layer's record, "op_start" the op's input.
    const std::string placement_key = s.layers.count(name) ? name : std::string("default");
    auto position = [&](const Placement& p) {
      const auto op = std::find(ops.begin(), ops.end(), p.op);
      const auto names = b.kernel_names(type, p.op);
      const auto k = std::find(names.begin(), names.end(), p.kernel);
      return std::make_pair(op - ops.begin(), k - names.begin());
    };
    std::map<std::string, std::pair<long, long>> first_record;  // event -> earliest recorder
    for (size_t i = 0; i < l.placement.size(); ++i) {
      const Placement& p = l.placement[i];
      const std::string where = "layers." + placement_key + ".placement[" + std::to_string(i) + "]";
      if (std::find(vocab.begin(), vocab.end(), p.op) == vocab.end()) {
        const std::string near = yaml::did_you_mean(p.op, vocab);
        throw InputError(s.file, p.line, where + ".op",
                         "unknown op '" + p.op + "'" +
                             (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                             "; valid ops: " + yaml::join(vocab));
      }
      const auto names = b.kernel_names(type, p.op);
      const bool launched = std::find(names.begin(), names.end(), p.kernel) != names.end();
      if (!launched && p.optional) continue;  // not launched on this GPU: the rule does not apply
      if (!launched)
        throw InputError(s.file, p.line, where + ".kernel",
                         "op '" + p.op + "' has no kernel '" + p.kernel + "' on " + name +
                             " layers; its kernels: " +
                             (names.empty() ? std::string("none") : yaml::join(names)));
      if (p.stream != "compute" &&
          std::find(s.side_streams.begin(), s.side_streams.end(), p.stream) == s.side_streams.end())
        throw InputError(
            s.file, p.line, where + ".stream",
            "unknown stream '" + p.stream + "'; declare it in side_streams (declared: " +
                (s.side_streams.empty() ? std::string("none") : yaml::join(s.side_streams)) + ")");
      for (size_t j = 0; j < i; ++j)
        if (l.placement[j].op == p.op && l.placement[j].kernel == p.kernel)
          throw InputError(s.file, p.line, where,
                           "kernel '" + p.kernel + "' of op '" + p.op +
                               "' placed twice (also at "
                               "placement[" +
                               std::to_string(j) + "])");
      for (const auto& r : p.record) {
        auto [it, inserted] = first_record.try_emplace(r, position(p));
        if (!inserted) it->second = std::min(it->second, position(p));
      }
    }
    for (size_t i = 0; i < l.placement.size(); ++i) {
      const Placement& p = l.placement[i];
      const std::string where = "layers." + placement_key + ".placement[" + std::to_string(i) + "]";
      if (p.optional) {
        const auto names = b.kernel_names(type, p.op);
        if (std::find(names.begin(), names.end(), p.kernel) == names.end()) continue;
      }
      for (const auto& w : p.wait) {
        if (w == "op_start") continue;
        const bool prev = w.rfind("prev:", 0) == 0;
        const std::string name = prev ? w.substr(5) : w;
        auto rec = first_record.find(name);
        if (rec == first_record.end())
          throw InputError(
              s.file, p.line, where + ".wait",
              "wait on event '" + name + "' that no placement records (it could never fire)");
        // In the same layer, a wait before the record would wait forever (a cycle).
        if (!prev && !(rec->second < position(p)))
          throw InputError(s.file, p.line, where + ".wait",
                           "wait on event '" + name + "', which is recorded later in the layer ('" +
                               ops[static_cast<size_t>(rec->second.first)] +
                               "'): the kernel would wait for itself (a cycle); use 'prev:" + name +
                               "' for the previous layer's");
      }
    }
    for (const auto& op : ops) check_kernel_order(s, l, placement_key, op, b, type);
  }
}

}  // namespace ovs
