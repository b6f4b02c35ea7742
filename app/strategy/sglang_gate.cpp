#include "app/strategy/sglang_gate.hpp"

#include <fmt/format.h>

#include "sim/io/yaml_reader.hpp"

namespace ovs {

const char* phase_name(Phase p) {
  return p == Phase::prefill ? "prefill" : "decode";
}

std::string sglang_limit(const Strategy& s, const Workload& w, const HwProfile& hw) {
  const SglangInfo& g = s.sglang;
  if (g.needs_cuda_graphs && !w.graphs())
    return fmt::format("SGLang runs '{}' only under CUDA graphs ({})", s.name, g.source);
  if (g.max_tokens_per_gpu.empty()) return {};
  auto it = g.max_tokens_per_gpu.find(hw.arch);
  if (it == g.max_tokens_per_gpu.end()) {
    std::vector<std::string> archs;
    for (const auto& [a, n] : g.max_tokens_per_gpu) archs.push_back(a);
    return fmt::format("SGLang runs '{}' only on {} GPUs, not {} ({})", s.name, yaml::join(archs),
                       hw.arch, g.source);
  }
  if (w.tokens() > it->second)
    return fmt::format("SGLang runs '{}' only with <= {} tokens per GPU on {} (this point: {}; {})",
                       s.name, it->second, hw.arch, w.tokens(), g.source);
  return {};
}

std::string sglang_gate(const Strategy& s, const Workload& w, const HwProfile& hw) {
  const SglangInfo& g = s.sglang;
  if (!g.given) return {};
  if (!g.runs_in_sglang())
    return fmt::format("SGLang does not run '{}' ({}{}{})", s.name, g.status,
                       g.source.empty() ? "" : ": ", g.source);
  const char* phase = phase_name(w.phase);
  if (!g.for_phase(phase))
    return fmt::format("SGLang runs '{}' for {} batches only, not {}", s.name, yaml::join(g.phases),
                       phase);
  return sglang_limit(s, w, hw);
}

}  // namespace ovs
