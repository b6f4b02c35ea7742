#include "app/analysis/request.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "sim/core/error.hpp"

namespace ovs {

const char* const kNormalModeUnderCudaGraphs =
    "DeepEP normal mode blocks the host on its counts and cannot be captured in a CUDA graph";

std::string RequestSource::field(const std::string& name) const {
  if (!file.empty()) return name;
  std::string flag = "--" + name;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

void RequestSource::fail(const std::string& name, const std::string& message) const {
  if (file.empty()) throw flag_error(field(name), message);
  const auto line = lines.find(name);
  throw InputError(file, line == lines.end() ? 0 : line->second, field(name), message);
}

namespace {

// A number from its whole text, or nothing.
std::optional<double> number_of(const std::string& s) {
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

void apply_memory_words(const MemoryWords& asked, const RequestSource& from, Workload& w) {
  if (asked.mem_fraction_static != "auto") {
    const auto f = number_of(asked.mem_fraction_static);
    if (!f || !(*f > 0 && *f < 1))
      from.fail("mem_fraction_static",
                "expected auto or a fraction in (0, 1) (the share of GPU memory for weights and "
                "the KV pool), got '" +
                    asked.mem_fraction_static + "'");
    w.mem_fraction_static = *f;
  }
  const std::string& k = asked.kv_cache_dtype;
  if (k == "bf16")
    w.kv_cache_dtype = Dtype::bf16;
  else if (k == "fp8_e4m3")
    w.kv_cache_dtype = Dtype::fp8;
  else if (k != "auto")
    from.fail("kv_cache_dtype",
              "expected auto, bf16 or fp8_e4m3 (SGLang's spelling), got '" + k + "'");
  if (asked.moe_dense_tp_size != "auto") {
    const auto tp = number_of(asked.moe_dense_tp_size);
    if (!tp || (*tp != 1 && *tp != double(w.ep)))
      from.fail("moe_dense_tp_size",
                "expected auto, 1 or the TP size (" + std::to_string(w.ep) +
                    ", the EP size under DP attention): SGLang allows no other, got '" +
                    asked.moe_dense_tp_size + "'");
    // The TP size itself is SGLang's default (unset).
    w.moe_dense_tp_size = *tp == 1 ? 1 : 0;
  }
}

namespace {

// "4095,4096,1": positive whole numbers, comma-separated.
std::vector<std::int64_t> lengths_of(const std::string& text, const std::string& field,
                                     const RequestSource& from) {
  std::vector<std::int64_t> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    const auto v = number_of(item);
    if (!v || *v < 1 || *v != std::floor(*v) || *v > 1e12)
      from.fail(field, "expected positive whole lengths separated by commas, got '" + item +
                           "' in '" + text + "'");
    out.push_back(static_cast<std::int64_t>(*v));
    at = end + 1;
  }
  return out;
}

}  // namespace

Workload resolve_workload(const WorkloadWords& asked, const RequestSource& from) {
  Workload w;
  if (asked.phase != "prefill" && asked.phase != "decode")
    from.fail("phase", "expected prefill or decode, got '" + asked.phase + "'");
  w.phase = asked.phase == "prefill" ? Phase::prefill : Phase::decode;
  w.tokens_per_gpu = asked.tokens_per_gpu;
  w.context = asked.context;
  const bool prefill = w.phase == Phase::prefill;
  if (!asked.prompt_lens.empty()) {
    if (!prefill)
      from.fail("prompt_lens", "prompt lengths are for prefill; decode takes context_lens");
    w.prompt_lens = lengths_of(asked.prompt_lens, "prompt_lens", from);
    w.tokens_per_gpu = 0;
    w.context = 0;
    for (auto x : w.prompt_lens) {
      w.tokens_per_gpu += x;
      w.context = std::max(w.context, x);
    }
  }
  if (!asked.context_lens.empty()) {
    if (prefill)
      from.fail("context_lens", "KV lengths per request are for decode; prefill takes prompt_lens");
    w.context_lens = lengths_of(asked.context_lens, "context_lens", from);
    w.tokens_per_gpu = static_cast<std::int64_t>(w.context_lens.size());
    w.context = *std::max_element(w.context_lens.begin(), w.context_lens.end());
  }
  if (w.tokens_per_gpu < 1)
    from.fail("tokens_per_gpu",
              "give the batch: tokens (prefill) or requests (decode) per GPU, or "
              "--prompt-lens / --context-lens");
  if (w.context < 1) from.fail("context", "give the prompt (prefill) or KV (decode) length");
  if (!(asked.tbo_token_distribution_threshold >= 0 &&
        asked.tbo_token_distribution_threshold <= 0.5))
    from.fail("tbo_token_distribution_threshold",
              "expected a share in [0, 0.5] (SGLang asserts it)");
  w.tbo_token_distribution_threshold = asked.tbo_token_distribution_threshold;
  w.ep = asked.ep;
  w.gpus_per_node = asked.gpus_per_node;
  w.redundant_experts = asked.redundant_experts;
  if (asked.imbalance != "auto") {
    double v = 0;
    try {
      size_t used = 0;
      v = std::stod(asked.imbalance, &used);
      if (used != asked.imbalance.size()) v = 0;
    } catch (const std::exception&) {
      v = 0;
    }
    if (!(v >= 1.0) || !std::isfinite(v))
      from.fail("imbalance",
                "expected auto or a number >= 1 (the hottest rank's load over the mean), got '" +
                    asked.imbalance + "'");
    w.imbalance = v;
  }
  if (asked.attention_backend != "auto") w.attention_backend = asked.attention_backend;
  if (asked.placement == "balanced")
    w.placement = ExpertPlacement::balanced;
  else if (asked.placement != "eplb")
    from.fail("placement", "expected eplb or balanced, got '" + asked.placement + "'");
  w.decode_q_len = asked.decode_q_len;
  if (const auto k = parse_v4_kernels(asked.v4_kernels))
    w.v4_kernels = *k;
  else
    from.fail("v4_kernels",
              "expected fused, rocm-2605 or torch-fallback, got '" + asked.v4_kernels + "'");
  const std::string& g = asked.cuda_graphs;
  if (g == "on" || g == "true")
    w.cuda_graphs = true;
  else if (g == "off" || g == "false")
    w.cuda_graphs = false;
  else if (g != "auto")
    from.fail("cuda_graphs", "expected on, off or auto, got '" + g + "'");
  const std::string& d = asked.deepep_mode;
  if (d == "normal")
    w.deepep_mode = DeepepMode::normal;
  else if (d == "low_latency")
    w.deepep_mode = DeepepMode::low_latency;
  else if (d != "auto")
    from.fail("deepep_mode", "expected normal, low_latency or auto, got '" + d + "'");
  apply_memory_words(asked.memory, from, w);
  return resolve_workload(w, from);
}

Workload resolve_workload(Workload w, const RequestSource& from) {
  if (!settle_cuda_graphs(w)) from.fail("cuda_graphs", kNormalModeUnderCudaGraphs);
  return w;
}

bool allows_normal_mode(const Workload& w) {
  return !w.cuda_graphs.value_or(false);
}

bool settle_cuda_graphs(Workload& w) {
  if (w.mode() != DeepepMode::normal) return true;
  if (!allows_normal_mode(w)) return false;
  w.cuda_graphs = false;
  return true;
}

Workload in_nvlink_domain(Workload w, const HwProfile& hw) {
  if (w.gpus_per_node != 0) return w;
  w.gpus_per_node = gpus_per_node_or_domain(hw, 0);
  return w;
}

Workload for_strategy(Workload w, const Strategy& s) {
  if (!w.deepep_mode && s.deepep_mode) w.deepep_mode = s.deepep_mode;
  if (!settle_cuda_graphs(w))
    throw InputError(s.file, 1, "deepep_mode",
                     std::string(kNormalModeUnderCudaGraphs) + " (--cuda-graphs on)");
  return w;
}

}  // namespace ovs
