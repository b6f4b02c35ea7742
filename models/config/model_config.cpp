#include "models/config/model_config.hpp"

#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_override.hpp"

namespace ovs {
namespace {

// Every number of a model config is at most 2^30: no real model is larger, and the cost models
// multiply these by tokens and layers.
constexpr long long kMaxField = 1LL << 30;

// The config being read: its numbers with their sources and spreads go to `fields`.
thread_local ModelConfig::Fields* g_fields = nullptr;

void record(const yaml::Value& v, double value, const yaml::NumberRange& legal,
            const yaml::Map* sourced) {
  if (!g_fields) return;
  SourcedField f;
  f.path = v.path();
  f.line = v.line();
  f.value = value;
  f.legal = legal;
  if (sourced) {
    f.source = sourced->required("source").str();
    f.spread = read_spread(*sourced, value);
  }
  g_fields->push_back(std::move(f));
}

int whole(const yaml::Map& m, const std::string& key, long long lo = 0) {
  auto v = m.required(key);
  const yaml::NumberRange legal{double(lo), double(kMaxField), false};
  if (v.is_map()) {
    yaml::Map s(v, {"value", "source", "note", "spread", "range"});
    s.required("source").str();
    const int value = static_cast<int>(s.required("value").integer(lo, kMaxField));
    // A count or a size of the architecture: a draw must stay a whole number, and none is
    // uncertain.
    if (!read_spread(s, value).exact())
      (s.has("spread") ? s.required("spread") : s.required("range"))
          .fail("a whole number of the architecture is exact: spread: 0");
    record(v, value, legal, &s);
    return value;
  }
  const int value = static_cast<int>(v.integer(lo, kMaxField));
  record(v, value, legal, nullptr);
  return value;
}

double real(const yaml::Map& m, const std::string& key,
            yaml::NumberRange range = {0, double(kMaxField), true}) {
  auto v = m.required(key);
  if (v.is_map()) {
    yaml::Map s(v, {"value", "source", "note", "spread", "range"});
    s.required("source").str();
    const double value = s.required("value").number(range);
    record(v, value, range, &s);
    return value;
  }
  const double value = v.number(range);
  record(v, value, range, nullptr);
  return value;
}

// Points g_fields at a config's list while it is parsed.
class RecordFields {
 public:
  explicit RecordFields(ModelConfig& c) : saved_(g_fields) { g_fields = &c.fields; }
  ~RecordFields() { g_fields = saved_; }
  RecordFields(const RecordFields&) = delete;
  RecordFields& operator=(const RecordFields&) = delete;

 private:
  ModelConfig::Fields* saved_;
};

// What SGLang's KV pool stores (sglang_flags_memory.md A.2 --kv-cache-dtype, B2, B3).
void parse_kv_cache(const yaml::Value& v, bool v4, ModelConfig& c) {
  yaml::Map k(v,
              v4 ? std::vector<std::string>{"auto_dtype", "fp8_scale_bytes", "context_len",
                                            "max_running_requests"}
                 : std::vector<std::string>{"auto_dtype", "context_len", "max_running_requests"});
  c.kv_auto_dtype =
      k.required("auto_dtype").choice({"bf16", "fp8_e4m3"}) == "bf16" ? Dtype::bf16 : Dtype::fp8;
  if (v4) c.kv_fp8_scale_bytes = whole(k, "fp8_scale_bytes");
  c.kv_context_len = whole(k, "context_len", 1);
  if (k.has("max_running_requests"))
    c.kv_default_max_running_requests = whole(k, "max_running_requests", 1);
}

}  // namespace

ModelConfig parse_model_config(const yaml::Value& root) {
  ModelConfig c;
  c.file = root.file();
  const RecordFields recording(c);
  yaml::Map m(root,
              {"name", "family", "hidden", "layers", "dense_layers", "dense_inter", "vocab",
               "attention", "mhc", "moe", "weights", "mtp", "kv_cache", "description", "aliases"});
  c.name = m.required("name").str();
  c.family = m.required("family").choice({"v3", "v4"}) == "v4" ? ModelFamily::v4 : ModelFamily::v3;
  c.hidden = whole(m, "hidden", 1);
  c.layers = whole(m, "layers", 1);
  c.dense_layers = whole(m, "dense_layers");
  c.dense_inter = whole(m, "dense_inter");
  c.vocab = whole(m, "vocab", 1);
  if (c.dense_layers > c.layers) m.required("dense_layers").fail("more dense layers than layers");
  if (c.dense_layers > 0 && c.dense_inter <= 0)
    m.required("dense_inter").fail("dense layers need dense_inter > 0");
  const bool v4 = c.family == ModelFamily::v4;
  {
    auto av = m.required("attention");
    yaml::Map a(av, v4 ? std::vector<std::string>{"heads", "head_dim", "rope_dim", "q_lora_rank",
                                                  "o_groups", "o_lora_rank", "sliding_window",
                                                  "index_heads", "index_head_dim", "index_topk",
                                                  "kv_bytes_per_token", "compress_ratios"}
                       : std::vector<std::string>{"heads", "q_lora_rank", "kv_lora_rank",
                                                  "qk_nope_head_dim", "qk_rope_head_dim",
                                                  "v_head_dim", "kv_bytes_per_token"});
    c.heads = whole(a, "heads", 1);
    c.q_lora_rank = whole(a, "q_lora_rank", 1);
    c.kv_bytes_per_token = real(a, "kv_bytes_per_token");
    if (v4) {
      c.head_dim = whole(a, "head_dim", 1);
      c.rope_dim = whole(a, "rope_dim", 1);
      c.o_groups = whole(a, "o_groups", 1);
      c.o_lora_rank = whole(a, "o_lora_rank", 1);
      c.sliding_window = whole(a, "sliding_window", 1);
      c.index_heads = whole(a, "index_heads", 1);
      c.index_head_dim = whole(a, "index_head_dim", 1);
      c.index_topk = whole(a, "index_topk", 1);
      if (c.heads % c.o_groups != 0) a.required("o_groups").fail("must divide the heads");
      auto rv = a.required("compress_ratios");
      yaml::Map r(rv, {"values", "source"});
      r.required("source").str();
      for (const auto& item : r.required("values").items()) {
        const int ratio = static_cast<int>(item.integer(0, 1 << 20));
        if (ratio != 0 && ratio != 4 && ratio != 128)
          item.fail("compress ratio must be 0 (window only), 4 (CSA) or 128 (HCA)");
        c.compress_ratios.push_back(ratio);
      }
      if (int(c.compress_ratios.size()) != c.layers)
        rv.fail("expected one compress ratio per layer (" + std::to_string(c.layers) + "), got " +
                std::to_string(c.compress_ratios.size()));
    } else {
      c.kv_lora_rank = whole(a, "kv_lora_rank", 1);
      c.qk_nope_head_dim = whole(a, "qk_nope_head_dim", 1);
      c.qk_rope_head_dim = whole(a, "qk_rope_head_dim", 1);
      c.v_head_dim = whole(a, "v_head_dim", 1);
    }
  }
  if (v4) {
    yaml::Map h(m.required("mhc"), {"hc_mult", "sinkhorn_iters"});
    c.hc_mult = whole(h, "hc_mult", 1);
    c.sinkhorn_iters = whole(h, "sinkhorn_iters");
  } else if (m.has("mhc")) {
    m.required("mhc").fail("mHC is a V4 feature");
  }
  {
    yaml::Map e(m.required("moe"),
                {"routed_experts", "topk", "shared_experts", "inter", "groups", "topk_groups",
                 "hash_layers", "expert_dtype", "expert_load_cv", "sequence_expert_cv"});
    c.routed_experts = whole(e, "routed_experts", 1);
    c.topk = whole(e, "topk", 1);
    c.shared_experts = whole(e, "shared_experts");
    c.moe_inter = whole(e, "inter", 1);
    c.expert_groups = whole(e, "groups", 1);
    c.topk_groups = whole(e, "topk_groups", 1);
    c.hash_layers = whole(e, "hash_layers");
    c.expert_dtype = *parse_dtype(e.required("expert_dtype").choice({"bf16", "fp8", "fp4"}));
    // Optional: a config without it spreads the ranks' loads by the batch's sampling only.
    if (e.has("expert_load_cv")) c.expert_load_cv = real(e, "expert_load_cv", {0, 10, false});
    if (e.has("sequence_expert_cv"))
      c.sequence_expert_cv = real(e, "sequence_expert_cv", {0, 100, false});
    if (c.topk > c.routed_experts) e.required("topk").fail("more experts per token than experts");
    if (c.routed_experts % c.expert_groups != 0 || c.topk_groups > c.expert_groups)
      e.required("groups").fail("groups must divide the experts and be >= topk_groups");
  }
  {
    yaml::Map wt(m.required("weights"),
                 {"dtype", "scale_block", "scale_bytes", "expert_scale_block", "expert_scale_bytes",
                  "embedding_dtype"});
    c.weight_dtype = *parse_dtype(wt.required("dtype").choice({"bf16", "fp8", "fp4"}));
    c.weight_scale_block = whole(wt, "scale_block", 1);
    c.weight_scale_bytes = whole(wt, "scale_bytes");
    c.expert_scale_block = whole(wt, "expert_scale_block", 1);
    c.expert_scale_bytes = whole(wt, "expert_scale_bytes");
    c.embedding_dtype = *parse_dtype(wt.required("embedding_dtype").choice({"bf16", "fp8", "fp4"}));
  }
  parse_kv_cache(m.required("kv_cache"), v4, c);
  if (m.has("mtp")) {
    yaml::Map mtp(m.required("mtp"), {"acceptance_rate"});
    c.mtp_acceptance_rate = real(mtp, "acceptance_rate", yaml::kFraction);
  }
  return c;
}

ModelConfig load_model_config(const std::string& name_or_path) {
  return load_model_config(name_or_path, {});
}

ModelConfig load_model_config(const std::string& name_or_path,
                              const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::string path;
  try {
    path = resolve_data_file(name_or_path, "models/configs", "model");
  } catch (const NameError& e) {
    throw InputError("", 0, "model", e.what());
  }
  const bool shipped = is_shipped_file(path, "models/configs");
  if (overrides.empty()) {
    ModelConfig c = yaml::parse_file(path, parse_model_config);
    if (shipped) require_spreads(c.fields, c.file);
    return c;
  }
  const yaml::Value root = yaml::load_file(path);
  try {
    apply_overrides(root, overrides);
  } catch (const NameError& e) {
    throw InputError("", 0, "model", e.what());
  }
  ModelConfig c = parse_model_config(root);
  if (shipped) require_spreads(c.fields, c.file);
  return c;
}

}  // namespace ovs
