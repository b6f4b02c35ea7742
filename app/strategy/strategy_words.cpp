#include "app/strategy/strategy_words.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sim/io/yaml_reader.hpp"

namespace ovs {
namespace {

using Json = nlohmann::ordered_json;

std::string deepep_words(const Strategy& s) {
  if (!s.deepep_mode) return "the workload's (--deepep-mode)";
  return *s.deepep_mode == DeepepMode::normal ? "normal" : "low_latency";
}

std::string sm_split_words(const Strategy& s) {
  if (s.deep_gemm_auto)
    return "compute kernels take every SM the communication kernels leave (deep_gemm_num_sms: "
           "auto)";
  if (s.deep_gemm_num_sms > 0)
    return fmt::format(
        "compute kernels capped at {} SMs (deep_gemm_num_sms), the rest left to "
        "communication",
        s.deep_gemm_num_sms);
  return "none: compute kernels may take every SM";
}

std::string status_words(const SglangInfo& g) {
  if (g.status == "shipped") return "shipped";
  if (g.status == "unsure") return "shipped as far as we know (unsure)";
  if (g.status == "proposal") return "a proposal: SGLang does not run it";
  return "not in SGLang: SGLang does not run it";
}

// "only under CUDA graphs; at most 64 tokens per GPU on hopper, 128 on blackwell"; empty: none.
std::string limit_words(const SglangInfo& g) {
  std::vector<std::string> parts;
  if (g.needs_cuda_graphs) parts.push_back("only under CUDA graphs");
  std::string tokens;
  for (const auto& [arch, n] : g.max_tokens_per_gpu)
    tokens += tokens.empty() ? fmt::format("at most {} tokens per GPU on {}", n, arch)
                             : fmt::format(", {} on {}", n, arch);
  if (!tokens.empty()) parts.push_back(tokens + " GPUs");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// The op before each yield ("" for a yield that opens the list).
std::vector<std::string> yields_after(const LayerStrategy& l) {
  std::vector<std::string> out;
  std::string last;
  for (const auto& item : l.items) {
    if (item == kYield)
      out.push_back(last);
    else
      last = item;
  }
  return out;
}

bool ends_with_yield(const LayerStrategy& l) {
  return !l.items.empty() && l.items.back() == kYield;
}

std::string joined(const std::vector<std::string>& v, const std::string& none = "none") {
  return v.empty() ? none : yaml::join(v);
}

// "side0   waits qkv_a_ready; records kv_done; at most 20 SMs; only where launched"
std::string placement_words(const Placement& p) {
  std::vector<std::string> parts;
  if (!p.wait.empty()) parts.push_back("waits " + yaml::join(p.wait));
  if (!p.record.empty()) parts.push_back("records " + yaml::join(p.record));
  if (p.sm_cap > 0) parts.push_back(fmt::format("at most {} SMs", p.sm_cap));
  if (!p.independent_of.empty())
    parts.push_back("need not wait for " + yaml::join(p.independent_of));
  if (p.optional) parts.push_back("skipped on GPUs that do not launch it");
  std::string out = parts.empty() ? p.stream : fmt::format("{:<8}", p.stream);
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : " ") + parts[i];
  return out;
}

// "  stage 1: a, b, c" broken before 100 columns, continued under the first op.
std::string wrapped(const std::string& lead, const std::vector<std::string>& ops) {
  constexpr size_t kWidth = 100;
  std::string out = lead, line_start_pad(lead.size(), ' ');
  size_t col = lead.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string word = ops[i] + (i + 1 < ops.size() ? "," : "");
    if (i > 0 && col + 1 + word.size() > kWidth) {
      out += "\n" + line_start_pad;
      col = line_start_pad.size();
    } else if (i > 0) {
      out += " ";
      ++col;
    }
    out += word;
    col += word.size();
  }
  return out + "\n";
}

Json layer_json(const std::string& type, const LayerStrategy& l) {
  Json placement = Json::array();
  for (const auto& p : l.placement)
    placement.push_back({{"op", p.op},
                         {"kernel", p.kernel},
                         {"stream", p.stream},
                         {"wait", p.wait},
                         {"record", p.record},
                         {"sm_cap", p.sm_cap > 0 ? Json(p.sm_cap) : Json(nullptr)},
                         {"optional", p.optional},
                         {"independent_of", p.independent_of}});
  return {{"layer_type", type},
          {"operations", l.items},
          {"yields_after", yields_after(l)},
          {"ends_with_yield", ends_with_yield(l)},
          {"stages", stages_of(l)},
          {"placement", placement}};
}

}  // namespace

std::vector<std::string> header_comment(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line) && !line.empty() && line[0] == '#';) {
    line.erase(0, 1);
    if (!line.empty() && line[0] == ' ') line.erase(0, 1);
    out.push_back(line);
  }
  return out;
}

Json strategy_json(const Strategy& s, const std::vector<std::string>& about) {
  Json layers = Json::array();
  for (const auto& [type, l] : s.layers) layers.push_back(layer_json(type, l));
  std::vector<std::string> streams{"compute"};
  streams.insert(streams.end(), s.side_streams.begin(), s.side_streams.end());
  Json sglang = nullptr;
  if (s.sglang.given) {
    const SglangInfo& g = s.sglang;
    sglang = {{"status", g.status},
              {"runs_in_sglang", g.runs_in_sglang()},
              {"phases", g.phases},
              {"flags", g.flags},
              {"env", g.env},
              {"max_tokens_per_gpu", g.max_tokens_per_gpu},
              {"needs_cuda_graphs", g.needs_cuda_graphs},
              {"source", g.source},
              {"note", g.note.empty() ? Json(nullptr) : Json(g.note)}};
  }
  Json vendor = Json::object();
  for (const auto& [v, plan] : s.vendor_plans) vendor[v] = plan.first;
  Json sms = nullptr;
  if (s.deep_gemm_auto) sms = "auto";
  if (s.deep_gemm_num_sms > 0) sms = s.deep_gemm_num_sms;
  return {{"name", s.name},
          {"family", family_name(s.family)},
          {"file", s.file},
          {"description", s.description},
          {"source", s.source.empty() ? Json(nullptr) : Json(s.source)},
          {"about", about},
          {"two_batch_overlap", s.two_batch_overlap},
          {"tbo_delta_stages", s.delta_stages},
          {"deep_gemm_num_sms", sms},
          {"deepep_mode", s.deepep_mode ? Json(deepep_words(s)) : Json(nullptr)},
          {"streams", streams},
          {"layers", layers},
          {"sglang", sglang},
          {"vendor_plans", vendor},
          {"notes", s.notes}};
}

std::string strategy_text(const Strategy& s, const std::vector<std::string>& about) {
  std::string o = fmt::format("strategy '{}' for {} ({})\n", s.name, family_name(s.family), s.file);
  if (!s.description.empty()) o += "  " + s.description + "\n";
  if (!about.empty()) {
    o += "\nWhat it does (the file's own words):\n";
    for (const auto& line : about) o += "  " + line + "\n";
  }
  o += "\nSGLang:\n";
  if (!s.sglang.given) {
    o += "  not said (no sglang: block): whatif, sweep and plan do not judge it\n";
  } else {
    const SglangInfo& g = s.sglang;
    o += fmt::format("  status   {}\n", status_words(g));
    o += fmt::format("  phases   {} batches\n", joined(g.phases));
    o += fmt::format("  flags    {}\n", joined(g.flags));
    o += fmt::format("  env      {}\n", joined(g.env));
    o += fmt::format("  limits   {}\n", limit_words(g).empty() ? "none" : limit_words(g));
    o += fmt::format("  source   {}\n", g.source);
    if (!g.note.empty()) o += fmt::format("  note     {}\n", g.note);
  }
  for (const auto& [vendor, plan] : s.vendor_plans)
    o += fmt::format("  on {} GPUs SGLang runs '{}' instead (describe strategy {})\n", vendor,
                     plan.first, plan.first);
  if (!s.source.empty()) o += fmt::format("  plan from {}\n", s.source);

  o += "\nHow it runs:\n";
  o += s.two_batch_overlap
           ? fmt::format(
                 "  batch    split into two micro-batches (two-batch overlap), the second "
                 "{} stage(s) behind the first (tbo_delta_stages)\n",
                 s.delta_stages)
           : "  batch    one batch, not split\n";
  o += fmt::format("  SM split {}\n", sm_split_words(s));
  o += fmt::format("  DeepEP   {}\n", deepep_words(s));
  std::vector<std::string> streams{"compute"};
  streams.insert(streams.end(), s.side_streams.begin(), s.side_streams.end());
  o += fmt::format("  streams  {} (and deepep for the communication kernels)\n",
                   yaml::join(streams));

  for (const auto& [type, l] : s.layers) {
    const auto stages = stages_of(l);
    const auto yields = yields_after(l);
    o += fmt::format("\nLayer type '{}': {} op(s), {} yield(s)\n", type,
                     l.items.size() - yields.size(), yields.size());
    for (size_t i = 0; i < stages.size(); ++i)
      o += wrapped(stages.size() > 1 ? fmt::format("  stage {}: ", i + 1) : "  ", stages[i]);
    if (!yields.empty()) {
      std::vector<std::string> where;
      for (const auto& y : yields) where.push_back(y.empty() ? "(start)" : y);
      o += "  yields after " + yaml::join(where) + "\n";
    }
    if (!yields.empty() && !ends_with_yield(l))
      o += "  (no yield at the end: the last stage runs with the next layer's first)\n";
    if (l.placement.empty()) {
      o += "  every kernel on compute, in op order\n";
      continue;
    }
    o += "  placement (kernels not listed: compute, in op order):\n";
    for (const auto& p : l.placement)
      o += fmt::format("    {:<36} {}\n", p.op + " / " + p.kernel, placement_words(p));
  }
  for (const auto& n : s.notes) o += "note: " + n + "\n";
  return o;
}

}  // namespace ovs
