#include "app/search/search_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace ovs {

int Candidate::stages() const {
  int n = 1;
  for (size_t i = 0; i + 1 < yield_after.size(); ++i) n += yield_after[i] ? 1 : 0;
  return n;
}

std::string Candidate::describe() const {
  std::string s;
  for (size_t i = 0; i < ops.size(); ++i) {
    s += ops[i];
    if (i + 1 < ops.size()) s += yield_after[i] ? " | " : ", ";
  }
  if (!yield_after.empty() && yield_after.back()) s += " |";
  return s;
}

LayerStrategy Candidate::layer() const {
  LayerStrategy l;
  for (size_t i = 0; i < ops.size(); ++i) {
    l.items.push_back(ops[i]);
    l.lines.push_back(0);
    if (tbo && yield_after[i]) {
      l.items.push_back(kYield);
      l.lines.push_back(0);
    }
  }
  return l;
}

std::vector<std::vector<std::string>> op_orders(const std::vector<std::string>& canonical,
                                                const OpGraph& g) {
  std::vector<std::vector<std::string>> out;
  auto base = canonical;
  const auto sh = std::find(base.begin(), base.end(), "shared_experts");
  if (sh == base.end()) return {canonical};
  base.erase(sh);
  std::set<std::vector<std::string>> seen;
  for (size_t pos = 0; pos <= base.size(); ++pos) {
    auto order = base;
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(pos), "shared_experts");
    // Where SGLang's strategies put the shared experts: before the dispatch, between its halves
    // (decode), between the combine's halves (prefill), or after the combine.
    const auto at = [&](const char* op) {
      return std::find(order.begin(), order.end(), op) - order.begin();
    };
    const auto s = at("shared_experts");
    if (s != at("dispatch_a") - 1 && s != at("dispatch_b") - 1 && s != at("combine_b") - 1 &&
        s != at("output") - 1)
      continue;
    if (!g.check_order(order).empty()) continue;
    if (seen.insert(order).second) out.push_back(order);
  }
  return out;
}

std::vector<int> yield_gaps(const std::vector<std::string>& ops) {
  auto comm = [](const std::string& op) {
    return op == "dispatch_a" || op == "dispatch_b" || op == "combine_a" || op == "combine_b";
  };
  auto attn = [](const std::string& op) {
    return op == "attn.prepare" || op == "attn.core" || op == "attn";
  };
  std::vector<int> gaps;
  for (size_t i = 0; i + 1 < ops.size(); ++i)
    if (comm(ops[i]) || comm(ops[i + 1]) || attn(ops[i])) gaps.push_back(static_cast<int>(i));
  gaps.push_back(static_cast<int>(ops.size()) - 1);  // the end of the layer
  return gaps;
}

Strategy to_strategy(const std::string& name, ModelFamily family,
                     const std::vector<std::pair<LayerType, Candidate>>& per_type,
                     const SpaceOptions& opts) {
  Strategy s;
  s.name = name;
  s.family = family;
  s.file = name + ".yaml";
  const Candidate& first = per_type.front().second;
  s.two_batch_overlap = first.tbo;
  s.delta_stages = first.tbo ? first.delta : 0;
  s.deep_gemm_auto = first.deep_gemm_auto;
  s.deepep_mode = first.mode;
  bool side = false;
  for (const auto& [type, c] : per_type) {
    LayerStrategy l = c.layer();
    if (c.side_streams) {
      side = true;
      auto plan = opts.side_plans.find(type);
      if (plan != opts.side_plans.end())
        for (const auto& p : plan->second)
          if (std::find(c.ops.begin(), c.ops.end(), p.op) != c.ops.end()) l.placement.push_back(p);
    }
    s.layers[to_string(type)] = l;
  }
  if (side) s.side_streams = opts.side_streams;
  return s;
}

std::string strategy_yaml(const Strategy& s, const std::string& comment) {
  std::string y;
  for (size_t start = 0; start < comment.size();) {
    const size_t nl = comment.find('\n', start);
    y += "# " + comment.substr(start, nl == std::string::npos ? std::string::npos : nl - start) +
         "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  y += fmt::format("name: {}\nmodel_family: {}\n", s.name,
                   s.family == ModelFamily::v4 ? "deepseek-v4" : "deepseek-v3");
  y += fmt::format("two_batch_overlap: {}\n", s.two_batch_overlap ? "true" : "false");
  if (s.two_batch_overlap) y += fmt::format("tbo_delta_stages: {}\n", s.delta_stages);
  if (s.deep_gemm_auto) y += "deep_gemm_num_sms: auto\n";
  if (s.deepep_mode)
    y += fmt::format("deepep_mode: {}\n",
                     *s.deepep_mode == DeepepMode::normal ? "normal" : "low_latency");
  if (!s.side_streams.empty()) {
    y += "side_streams: [";
    for (size_t i = 0; i < s.side_streams.size(); ++i) y += (i ? ", " : "") + s.side_streams[i];
    y += "]\n";
  }
  y += "layers:\n";
  for (const auto& [type, l] : s.layers) {
    y += "  " + type + ":\n    operations: [";
    for (size_t i = 0; i < l.items.size(); ++i) y += (i ? ", " : "") + l.items[i];
    y += "]\n";
    if (!l.placement.empty()) {
      y += "    placement:\n";
      for (const auto& p : l.placement) {
        y += fmt::format("      - {{op: {}, kernel: {}, stream: {}", p.op, p.kernel, p.stream);
        auto list = [](const std::vector<std::string>& v) {
          std::string t = "[";
          for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + v[i];
          return t + "]";
        };
        if (!p.wait.empty()) y += ", wait: " + list(p.wait);
        if (!p.record.empty()) y += ", record: " + list(p.record);
        if (p.sm_cap > 0) y += fmt::format(", sm_cap: {}", p.sm_cap);
        if (p.optional) y += ", optional: true";
        if (!p.independent_of.empty()) y += ", independent_of: " + list(p.independent_of);
        y += "}\n";
      }
    }
  }
  return y;
}

}  // namespace ovs
