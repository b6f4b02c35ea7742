#include "models/hw/hw_profile.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_override.hpp"

namespace ovs {
namespace {

// Reads a number given either bare or as {value: x, source: "..."}.
class SourcedReader {
 public:
  explicit SourcedReader(HwProfile& p) : p_(p) {}

  double read(const yaml::Map& m, const std::string& key, yaml::NumberRange r) {
    return read_value(m.required(key), r);
  }
  double read_opt(const yaml::Map& m, const std::string& key, yaml::NumberRange r, double dflt,
                  bool* present = nullptr) {
    auto v = m.optional(key);
    if (present) *present = v.has_value();
    return v ? read_value(*v, r) : dflt;
  }
  double read_value(const yaml::Value& v, yaml::NumberRange r) {
    SourcedField f;
    f.path = v.path();
    f.line = v.line();
    f.legal = r;
    if (v.is_map()) {
      yaml::Map m(v, {"value", "source", "note", "spread", "range"});
      f.value = m.required("value").number(r);
      f.source = m.required("source").str();
      f.spread = read_spread(m, f.value);
    } else {
      f.value = v.number(r);
    }
    p_.fields.push_back(f);
    return f.value;
  }
  // A list of whole numbers given as {values: [..], source: ".."} or bare.
  std::vector<int> read_int_list(const yaml::Value& v, int lo, int hi) {
    SourcedField f;
    f.path = v.path();
    f.line = v.line();
    std::vector<int> out;
    auto parse_items = [&](const yaml::Value& list) {
      for (const auto& item : list.items()) out.push_back(static_cast<int>(item.integer(lo, hi)));
      if (out.empty()) list.fail("must not be empty");
    };
    if (v.is_map()) {
      yaml::Map m(v, {"values", "source", "note"});
      parse_items(m.required("values"));
      f.source = m.required("source").str();
    } else {
      parse_items(v);
    }
    f.value = out.front();
    f.list = true;
    p_.fields.push_back(f);
    return out;
  }

 private:
  HwProfile& p_;
};

// attention.backends: {default: {decode: NAME, prefill: NAME, source}, NAME:
// {mla_decode_efficiency, prefill_efficiency}, ...}: each backend names what differs from the
// profile's efficiencies.
void read_attention_backends(SourcedReader& num, const yaml::Value& v, AttentionParams& p) {
  // SGLang's --attention-backend names for MLA models (server_args.py), and the default choice.
  yaml::Map m(v, {"default", "fa3", "flashmla", "flashinfer", "triton", "cutlass_mla", "trtllm_mla",
                  "aiter"});
  std::vector<std::string> names;
  for (const auto& name : m.keys()) {
    if (name == "default") continue;
    names.push_back(name);
    yaml::Map b(m.required(name), {"mla_decode_efficiency", "prefill_efficiency"});
    AttentionBackend ab;
    ab.name = name;
    ab.mla_decode_efficiency = num.read_opt(b, "mla_decode_efficiency", yaml::kFraction, 0);
    ab.prefill_efficiency = num.read_opt(b, "prefill_efficiency", yaml::kFraction, 0);
    p.backends.push_back(ab);
  }
  yaml::Map d(m.required("default"), {"decode", "prefill", "source"});
  d.required("source").str();
  for (const char* phase : {"decode", "prefill"}) {
    const yaml::Value pv = d.required(phase);
    const std::string name = pv.str();
    if (std::find(names.begin(), names.end(), name) == names.end())
      pv.fail("'" + name + "' is not one of the backends listed here: " + yaml::join(names));
    (std::string(phase) == "decode" ? p.default_decode_backend : p.default_prefill_backend) = name;
  }
}

void parse_kernel_params(const yaml::Value& v, SourcedReader& num, KernelParams& k, int sm_count) {
  yaml::Map m(v, {"gemm", "attention", "memory", "comm", "framework_op_us"});
  {
    yaml::Map g(m.required("gemm"),
                {"block_m", "block_n", "block_k", "efficiency", "efficiency_m64_ratio",
                 "tile_overhead_us", "k_iteration_us", "epilogue_write_fraction",
                 "fixed_latency_us", "masked_m_spread", "cta_threads", "cta_registers_per_thread",
                 "cta_base_registers", "pipeline_stages", "persistent", "split_k"});
    GemmParams& p = k.gemm;
    p.block_m = num.read_int_list(g.required("block_m"), 16, 512);
    p.block_n = num.read_int_list(g.required("block_n"), 8, 512);
    p.block_k = static_cast<int>(num.read(g, "block_k", {16, 1024}));
    yaml::Map e(g.required("efficiency"), {"bf16", "fp8", "fp4"});
    for (int d = 0; d < kNumDtypes; ++d) {
      const std::string key(kDtypeNames[d]);
      if (e.has(key)) p.efficiency[d] = num.read(e, key, yaml::kFraction);
    }
    p.efficiency_m64_ratio = num.read(g, "efficiency_m64_ratio", yaml::kFraction);
    p.tile_overhead_us = num.read(g, "tile_overhead_us", yaml::kNonNegative);
    p.k_iteration_us = num.read(g, "k_iteration_us", yaml::kNonNegative);
    p.epilogue_write_fraction = num.read(g, "epilogue_write_fraction", {0, 1});
    p.fixed_latency_us = num.read(g, "fixed_latency_us", yaml::kNonNegative);
    p.masked_m_spread = num.read(g, "masked_m_spread", {0, 0.99});
    p.cta_threads = static_cast<int>(num.read_opt(g, "cta_threads", {0, 4096}, 0));
    p.cta_registers_per_thread =
        static_cast<int>(num.read_opt(g, "cta_registers_per_thread", {0, 1024}, 0));
    p.cta_base_registers = static_cast<int>(num.read_opt(g, "cta_base_registers", {0, 1024}, 0));
    p.pipeline_stages = static_cast<int>(num.read_opt(g, "pipeline_stages", {0, 64}, 0));
    const double persistent = num.read_opt(g, "persistent", {0, 1}, 1);
    if (persistent != 0 && persistent != 1)
      g.required("persistent").fail("must be 1 (one CTA per SM) or 0 (one CTA per tile)");
    p.persistent = static_cast<int>(persistent);
    if (auto sk = g.optional("split_k")) {
      p.split_k = num.read_int_list(*sk, 1, 64);
      if (std::find(p.split_k.begin(), p.split_k.end(), 1) == p.split_k.end())
        sk->fail("must include 1 (no split)");
    }
  }
  {
    yaml::Map a(m.required("attention"),
                {"mla_decode_efficiency", "sparse_decode_efficiency", "prefill_efficiency",
                 "sparse_prefill_efficiency", "indexer_efficiency", "fixed_latency_us",
                 "cta_threads", "cta_registers_per_thread", "cta_shared_kib", "backends"});
    AttentionParams& p = k.attention;
    p.mla_decode_efficiency = num.read(a, "mla_decode_efficiency", yaml::kFraction);
    p.sparse_decode_efficiency = num.read(a, "sparse_decode_efficiency", yaml::kFraction);
    p.prefill_efficiency = num.read(a, "prefill_efficiency", yaml::kFraction);
    p.sparse_prefill_efficiency = num.read(a, "sparse_prefill_efficiency", yaml::kFraction);
    p.indexer_efficiency = num.read(a, "indexer_efficiency", yaml::kFraction);
    p.fixed_latency_us = num.read(a, "fixed_latency_us", yaml::kNonNegative);
    p.cta_threads = static_cast<int>(num.read_opt(a, "cta_threads", {0, 4096}, 0));
    p.cta_registers_per_thread =
        static_cast<int>(num.read_opt(a, "cta_registers_per_thread", {0, 1024}, 0));
    p.cta_shared_bytes = num.read_opt(a, "cta_shared_kib", {0, 65536}, 0) * units::kBytesPerKiB;
    if (auto bv = a.optional("backends")) read_attention_backends(num, *bv, p);
  }
  {
    yaml::Map mm(m.required("memory"), {"kernel_min_us", "bytes_per_cta", "ctas_per_sm",
                                        "cta_threads", "cta_registers_per_thread"});
    k.memory.kernel_min_us = num.read(mm, "kernel_min_us", yaml::kNonNegative);
    k.memory.bytes_per_cta = num.read(mm, "bytes_per_cta", yaml::kPositive);
    k.memory.ctas_per_sm = static_cast<int>(num.read(mm, "ctas_per_sm", {1, 64}));
    k.memory.cta_threads = static_cast<int>(num.read_opt(mm, "cta_threads", {0, 4096}, 0));
    k.memory.cta_registers_per_thread =
        static_cast<int>(num.read_opt(mm, "cta_registers_per_thread", {0, 1024}, 0));
  }
  {
    yaml::Map c(
        m.required("comm"),
        {"deepep_normal_sms", "normal_nvlink_efficiency", "normal_rdma_efficiency",
         "ll_nvlink_efficiency", "ll_rdma_efficiency", "ll_latency_us", "ll_latency_per_log2_ep_us",
         "collective_efficiency", "collective_sms", "rank_time_cv_eager", "rank_time_cv_graph"});
    CommParams& p = k.comm;
    p.deepep_normal_sms = static_cast<int>(num.read(c, "deepep_normal_sms", {1, double(sm_count)}));
    p.normal_nvlink_efficiency = num.read(c, "normal_nvlink_efficiency", yaml::kFraction);
    p.normal_rdma_efficiency = num.read(c, "normal_rdma_efficiency", yaml::kFraction);
    p.ll_nvlink_efficiency = num.read(c, "ll_nvlink_efficiency", yaml::kFraction);
    p.ll_rdma_efficiency = num.read(c, "ll_rdma_efficiency", yaml::kFraction);
    p.ll_latency_us = num.read(c, "ll_latency_us", yaml::kNonNegative);
    p.ll_latency_per_log2_ep_us = num.read(c, "ll_latency_per_log2_ep_us", yaml::kNonNegative);
    p.collective_efficiency = num.read(c, "collective_efficiency", yaml::kFraction);
    p.collective_sms = static_cast<int>(num.read(c, "collective_sms", {1, double(sm_count)}));
    p.rank_time_cv_eager = num.read_opt(c, "rank_time_cv_eager", {0, 1}, 0);
    p.rank_time_cv_graph = num.read_opt(c, "rank_time_cv_graph", {0, 1}, 0);
  }
  k.framework_op_us = num.read(m, "framework_op_us", yaml::kNonNegative);
}

// SGLang's reserve for its default --mem-fraction-static (sglang_flags_memory.md B1).
void parse_sglang_reserve(const yaml::Value& v, SourcedReader& num,
                          HwProfile::MemoryParams::SglangReserve& r) {
  yaml::Map m(
      v, {"base_mib", "per_activation_token_mib", "min_activation_tokens", "per_8_gpus_mib",
          "floor_mib", "decode_graph_per_bs_mib", "dp_attention_per_bs_mib", "large_bs_threshold",
          "large_bs_dp_attention_per_bs_mib", "mla_prefill_graph_mib", "deepep_decode_graph_mib"});
  r.base_mib = num.read(m, "base_mib", yaml::kNonNegative);
  r.per_activation_token_mib = num.read(m, "per_activation_token_mib", yaml::kNonNegative);
  r.min_activation_tokens = num.read(m, "min_activation_tokens", yaml::kNonNegative);
  r.per_8_gpus_mib = num.read(m, "per_8_gpus_mib", yaml::kNonNegative);
  r.floor_mib = num.read(m, "floor_mib", yaml::kNonNegative);
  r.decode_graph_per_bs_mib = num.read(m, "decode_graph_per_bs_mib", yaml::kNonNegative);
  r.dp_attention_per_bs_mib = num.read(m, "dp_attention_per_bs_mib", yaml::kNonNegative);
  r.large_bs_threshold = num.read(m, "large_bs_threshold", yaml::kNonNegative);
  r.large_bs_dp_attention_per_bs_mib =
      num.read(m, "large_bs_dp_attention_per_bs_mib", yaml::kNonNegative);
  r.mla_prefill_graph_mib = num.read(m, "mla_prefill_graph_mib", yaml::kNonNegative);
  r.deepep_decode_graph_mib = num.read(m, "deepep_decode_graph_mib", yaml::kNonNegative);
}

}  // namespace

HwProfile parse_hw_profile(const yaml::Value& root) {
  HwProfile p;
  p.file = root.file();
  SourcedReader num(p);
  yaml::Map m(root, {"name", "description", "aliases", "vendor", "arch", "sm_count", "sm",
                     "boost_clock_mhz", "sustained_clock_mhz", "tensor_peak_tflops",
                     "cuda_core_peak_tflops", "hbm", "l2", "links", "nvlink_domain_gpus",
                     "gpus_per_host", "host", "kernels", "memory"});
  p.name = m.required("name").str();
  if (auto d = m.optional("description")) p.description = d->str();
  if (auto a = m.optional("aliases"))
    for (const auto& item : a->items()) p.aliases.push_back(item.str());
  p.vendor = m.required("vendor").choice({"nvidia", "amd"});
  p.arch = m.required("arch").choice({"hopper", "blackwell", "cdna3", "cdna4", "generic"});

  Hardware& hw = p.engine;
  hw.name = p.name;
  hw.sm_count = static_cast<int>(num.read(m, "sm_count", {1, 4096}));
  if (double(hw.sm_count) != p.fields.back().value)
    m.required("sm_count").fail("must be a whole number of SMs");
  if (auto sv = m.optional("sm")) {
    // What one SM (CU) holds at once: CTAs of different kernels share it when they fit.
    yaml::Map sm(*sv, {"max_ctas", "max_threads", "registers", "shared_memory_kib",
                       "issue_capacity", "dispatch_share"});
    hw.sm.max_ctas = static_cast<int>(num.read(sm, "max_ctas", {1, 1024}));
    hw.sm.max_threads = static_cast<int>(num.read(sm, "max_threads", {32, 65536}));
    hw.sm.registers = static_cast<int>(num.read(sm, "registers", {1024, 1 << 24}));
    hw.sm.shared_bytes = num.read(sm, "shared_memory_kib", {0, 65536}) * units::kBytesPerKiB;
    hw.sm.issue_capacity = num.read_opt(sm, "issue_capacity", {0.1, 4}, 1.0);
    hw.sm.dispatch_share = num.read_opt(sm, "dispatch_share", {0, 1}, 0.0);
  }
  p.boost_clock_mhz = num.read(m, "boost_clock_mhz", yaml::kPositive);
  p.sustained_clock_mhz =
      num.read_opt(m, "sustained_clock_mhz", yaml::kPositive, p.boost_clock_mhz);
  if (p.sustained_clock_mhz > p.boost_clock_mhz)
    m.required("sustained_clock_mhz").fail("must not exceed boost_clock_mhz");
  if (m.has("sustained_clock_mhz")) p.fields.back().legal.max = p.boost_clock_mhz;
  const double clock_ratio = p.sustained_clock_mhz / p.boost_clock_mhz;

  {
    auto v = m.required("tensor_peak_tflops");
    yaml::Map t(v, {"bf16", "fp8", "fp4"});
    for (int d = 0; d < kNumDtypes; ++d) {
      const std::string key(kDtypeNames[d]);
      p.tensor_peak_tflops[d] = num.read(t, key, yaml::kNonNegative);
      hw.tensor_flops_per_us_per_sm[d] =
          units::tflops_to_flops_per_us(p.tensor_peak_tflops[d]) * clock_ratio / hw.sm_count;
    }
    if (p.tensor_peak_tflops[0] <= 0) t.required("bf16").fail("must be > 0");
  }
  hw.cuda_core_flops_per_us_per_sm =
      units::tflops_to_flops_per_us(num.read(m, "cuda_core_peak_tflops", yaml::kPositive)) *
      clock_ratio / hw.sm_count;
  {
    yaml::Map h(m.required("hbm"), {"peak_gbps", "achievable_gbps", "saturation_sms", "capacity_gb",
                                    "loaded_latency_slowdown"});
    p.hbm_peak_gbps = num.read(h, "peak_gbps", yaml::kPositive);
    const double ach = num.read(h, "achievable_gbps", yaml::kPositive);
    if (ach > p.hbm_peak_gbps) h.required("achievable_gbps").fail("must not exceed peak_gbps");
    p.fields.back().legal.max = p.hbm_peak_gbps;  // a draw stays below the peak too
    hw.hbm_bytes_per_us = units::gbps_to_bytes_per_us(ach);
    hw.hbm_saturation_sms = num.read(h, "saturation_sms", {1, double(hw.sm_count)});
    hw.hbm_loaded_slowdown = num.read_opt(h, "loaded_latency_slowdown", {0, 100}, 0);
    p.hbm_capacity_gb = num.read_opt(h, "capacity_gb", yaml::kPositive, 0);
  }
  {
    yaml::Map l(m.required("l2"), {"size_mib", "achievable_gbps", "saturation_sms"});
    hw.l2_size_bytes = num.read(l, "size_mib", yaml::kPositive) * units::kBytesPerMiB;
    hw.l2_bytes_per_us =
        units::gbps_to_bytes_per_us(num.read(l, "achievable_gbps", yaml::kPositive));
    hw.l2_saturation_sms = num.read(l, "saturation_sms", {1, double(hw.sm_count)});
  }
  if (auto lv = m.optional("links")) {
    yaml::Map links(*lv, {"nvlink", "rdma"});
    for (int i = 0; i < kNumLinks; ++i) {
      auto one = links.optional(std::string(kLinkNames[i]));
      if (!one) continue;
      yaml::Map lm(*one, {"gbps", "latency_us"});
      hw.links[i].bytes_per_us =
          units::gbps_to_bytes_per_us(num.read(lm, "gbps", yaml::kNonNegative));
      hw.links[i].latency_us = num.read(lm, "latency_us", yaml::kNonNegative);
    }
  }
  if (m.has("nvlink_domain_gpus") || m.has("kernels")) {
    // Required with the cost models: the what-if's default GPUs per node, never a guess in code.
    const double gpus = num.read(m, "nvlink_domain_gpus", {1, 1 << 16});
    p.nvlink_domain_gpus = static_cast<int>(gpus);
    if (double(p.nvlink_domain_gpus) != gpus)
      m.required("nvlink_domain_gpus").fail("must be a whole number of GPUs");
    // GPUs one host (one OS, one SGLang node) carries: 8 on an HGX board, the NVLink domain;
    // 4 in a GB200 NVL72 compute tray, 18 of them in one 72-GPU NVLink domain.
    const double host = num.read(m, "gpus_per_host", {1, 1 << 16});
    p.gpus_per_host = static_cast<int>(host);
    if (double(p.gpus_per_host) != host)
      m.required("gpus_per_host").fail("must be a whole number of GPUs");
    if (p.nvlink_domain_gpus % p.gpus_per_host != 0)
      m.required("gpus_per_host")
          .fail(fmt::format("{} GPUs per host do not tile the {}-GPU NVLink domain "
                            "(nvlink_domain_gpus)",
                            p.gpus_per_host, p.nvlink_domain_gpus));
  }
  {
    yaml::Map h(m.required("host"),
                {"launch_eager_us", "launch_graph_us", "event_us", "graph_kernel_saving_us",
                 "kernel_gap_eager_us", "kernel_gap_graph_us"});
    hw.launch_eager_us = num.read(h, "launch_eager_us", yaml::kNonNegative);
    hw.launch_graph_us = num.read(h, "launch_graph_us", yaml::kNonNegative);
    hw.event_host_us = num.read_opt(h, "event_us", yaml::kNonNegative, 0);
    hw.graph_kernel_saving_us = num.read_opt(h, "graph_kernel_saving_us", yaml::kNonNegative, 0);
    p.kernel_gap_eager_us = num.read_opt(h, "kernel_gap_eager_us", yaml::kNonNegative, 0);
    p.kernel_gap_graph_us = num.read_opt(h, "kernel_gap_graph_us", yaml::kNonNegative, 0);
  }
  if (auto mv = m.optional("memory")) {
    yaml::Map mm(*mv, {"device_mib", "framework_reserve_gb", "fragmentation_fraction",
                       "cuda_graph_pool_gb", "deepep_normal_buffer_gb",
                       "deepep_ll_max_tokens_per_rank", "sglang_reserve", "sglang_requests"});
    auto& mp = p.memory;
    mp.device_mib = num.read_opt(mm, "device_mib", yaml::kPositive, 0);
    mp.framework_reserve_gb = num.read(mm, "framework_reserve_gb", yaml::kNonNegative);
    mp.fragmentation_fraction = num.read(mm, "fragmentation_fraction", {0, 1, false});
    mp.cuda_graph_pool_gb = num.read(mm, "cuda_graph_pool_gb", yaml::kNonNegative);
    mp.deepep_normal_buffer_gb = num.read(mm, "deepep_normal_buffer_gb", yaml::kNonNegative);
    const double tokens = num.read(mm, "deepep_ll_max_tokens_per_rank", {1, 1 << 20});
    mp.deepep_ll_max_tokens_per_rank = static_cast<int>(tokens);
    if (double(mp.deepep_ll_max_tokens_per_rank) != tokens)
      mm.required("deepep_ll_max_tokens_per_rank").fail("must be a whole number of tokens");
    parse_sglang_reserve(mm.required("sglang_reserve"), num, mp.sglang);
    {
      yaml::Map rq(
          mm.required("sglang_requests"),
          {"default_min", "default_max", "default_per_pool_context", "table_extra_tokens"});
      auto& r = mp.sglang_requests;
      r.default_min = num.read(rq, "default_min", {1, 1 << 30});
      r.default_max = num.read(rq, "default_max", {1, 1 << 30});
      r.default_per_pool_context = num.read(rq, "default_per_pool_context", yaml::kNonNegative);
      r.table_extra_tokens = num.read(rq, "table_extra_tokens", yaml::kNonNegative);
      if (r.default_max < r.default_min) rq.required("default_max").fail("must be >= default_min");
    }
    p.has_memory_params = true;
  }
  // Programs with inline hardware need no cost models; named profiles always have them.
  if (auto kv = m.optional("kernels")) {
    parse_kernel_params(*kv, num, p.kernels, hw.sm_count);
    p.has_kernel_params = true;
  }
  return p;
}

std::vector<std::string> HwProfile::guesses() const {
  std::vector<std::string> out;
  for (const auto& f : fields)
    if (f.source.find("guess") != std::string::npos) out.push_back(f.path + ": " + f.source);
  return out;
}

bool HwProfile::matches_gpu(const std::string& gpu_column) const {
  // The column starts with the GPU name, then details: "H800 SXM5 (NVCC 12.8; ...)".
  for (const auto& a : aliases) {
    if (gpu_column.compare(0, a.size(), a) != 0) continue;
    if (gpu_column.size() == a.size() ||
        !std::isalnum(static_cast<unsigned char>(gpu_column[a.size()])))
      return true;
  }
  return false;
}

void require_kernel_params(const HwProfile& p) {
  if (!p.has_kernel_params)
    throw InputError(p.file, 1, "kernels",
                     "the profile has no kernels: section (cost-model parameters)");
}

int gpus_per_node_or_domain(const HwProfile& p, int asked) {
  if (asked > 0) return asked;
  if (p.nvlink_domain_gpus <= 0)
    throw InputError(p.file, 1, "nvlink_domain_gpus",
                     "the profile does not say how many GPUs share NVLink; give --gpus-per-node");
  return p.nvlink_domain_gpus;
}

HwProfile load_hw_profile(const std::string& name_or_path) {
  return load_hw_profile(name_or_path, {});
}

HwProfile load_hw_profile(const std::string& name_or_path,
                          const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::string path;
  try {
    path = resolve_data_file(name_or_path, "hw_profiles", "hardware profile");
  } catch (const NameError& e) {
    throw InputError("", 0, "hardware", e.what());
  }
  const bool shipped = is_shipped_file(path, "hw_profiles");
  if (overrides.empty()) {
    HwProfile p = yaml::parse_file(path, parse_hw_profile);
    if (shipped) require_spreads(p.fields, p.file);
    return p;
  }
  const yaml::Value root = yaml::load_file(path);
  try {
    apply_overrides(root, overrides);
  } catch (const NameError& e) {
    throw InputError("", 0, "hw", e.what());
  }
  HwProfile p = parse_hw_profile(root);
  if (shipped) require_spreads(p.fields, p.file);
  return p;
}

}  // namespace ovs
