#include "app/analysis/request.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "app/analysis/length_spec.hpp"
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

LengthSpec spec_of(const std::string& text, bool list_allowed, const char* field,
                   const RequestSource& from) {
  return parse_length_spec(text, list_allowed,
                           [&](const std::string& message) { from.fail(field, message); });
}

// A batch's per-request lengths from the words: --prompt-lens / --context-lens (a list, a file
// in order, or a distribution), --isl / --osl (a length, a distribution or a file to draw from).
void resolve_lengths(const WorkloadWords& asked, const RequestSource& from, Workload& w) {
  const bool prefill = w.phase == Phase::prefill;
  const char* list_field = prefill ? "prompt_lens" : "context_lens";
  const std::string& list_text = prefill ? asked.prompt_lens : asked.context_lens;
  const std::string& wrong_list = prefill ? asked.context_lens : asked.prompt_lens;
  if (!wrong_list.empty())
    from.fail(prefill ? "context_lens" : "prompt_lens",
              prefill ? "KV lengths per request are for decode; prefill takes prompt_lens"
                      : "prompt lengths are for prefill; decode takes context_lens");
  if (!asked.osl.empty() && prefill)
    from.fail("osl", "output lengths are for decode: a prefill batch is its prompts (--isl)");
  if (!asked.osl.empty() && asked.isl.empty())
    from.fail("osl", "give the input lengths too (--isl): a context is input plus output so far");
  if (!list_text.empty() && !asked.isl.empty())
    from.fail("isl", std::string("give the lengths once: --isl or --") +
                         (prefill ? "prompt-lens" : "context-lens"));
  std::vector<std::int64_t> lens;
  auto need_batch = [&](const char* field) {
    if (w.tokens_per_gpu < 1)
      from.fail(field, prefill ? "a distribution fills --tokens-per-gpu tokens: give it"
                               : "a distribution draws --tokens-per-gpu requests: give it");
  };
  if (!list_text.empty()) {
    const LengthSpec s = spec_of(list_text, true, list_field, from);
    if (s.kind == LengthSpec::Kind::list || s.kind == LengthSpec::Kind::file) {
      lens = s.values;
    } else {
      need_batch(list_field);
      lens = prefill ? fill_tokens(s, w.tokens_per_gpu, asked.seed)
                     : draw_lengths(s, w.tokens_per_gpu, asked.seed);
    }
  } else if (!asked.isl.empty()) {
    const LengthSpec isl = spec_of(asked.isl, false, "isl", from);
    need_batch("isl");
    if (prefill) {
      lens = fill_tokens(isl, w.tokens_per_gpu, asked.seed);
    } else {
      std::optional<LengthSpec> osl;
      if (!asked.osl.empty()) osl = spec_of(asked.osl, false, "osl", from);
      lens = contexts_over_life(isl, osl ? &*osl : nullptr, w.tokens_per_gpu, asked.seed);
    }
  }
  if (lens.empty()) return;
  if (prefill) {
    w.prompt_lens = lens;
    w.tokens_per_gpu = 0;
    w.context = 0;
    for (auto x : lens) {
      w.tokens_per_gpu += x;
      w.context = std::max(w.context, x);
    }
  } else {
    w.context_lens = lens;
    w.tokens_per_gpu = static_cast<std::int64_t>(lens.size());
    w.context = *std::max_element(lens.begin(), lens.end());
  }
}

}  // namespace

Workload resolve_workload(const WorkloadWords& asked, const RequestSource& from) {
  Workload w;
  if (asked.phase != "prefill" && asked.phase != "decode")
    from.fail("phase", "expected prefill or decode, got '" + asked.phase + "'");
  w.phase = asked.phase == "prefill" ? Phase::prefill : Phase::decode;
  w.tokens_per_gpu = asked.tokens_per_gpu;
  w.context = asked.context;
  resolve_lengths(asked, from, w);
  if (w.tokens_per_gpu < 1)
    from.fail("tokens_per_gpu",
              "give the batch: tokens (prefill) or requests (decode) per GPU, or "
              "--prompt-lens / --context-lens");
  if (w.context < 1)
    from.fail("context",
              "give the prompt (prefill) or KV (decode) length, or --isl (a length or a "
              "distribution)");
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
