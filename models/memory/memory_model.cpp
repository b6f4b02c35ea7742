// The terms put together and the fit check (memory_model.hpp says what each limit means).
#include "models/memory/memory_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/memory/sglang_server.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace ovs {
namespace {

constexpr double kGB = units::kBytesPerGB;

// The verdict from the sums: which limit binds, by how much, and whether it is tight.
void judge(MemoryUse& u) {
  const double stat = u.static_bytes();
  const double budget = u.transient_budget_bytes();
  const double need = u.transient_bytes + u.fragmentation_bytes;
  const double weights = stat > 0 ? (stat - u.weights_bytes) / stat : -1.0;
  const double kv = u.pool_bytes > 0 ? (u.pool_bytes - u.kv_bytes) / u.pool_bytes : -1.0;
  const double transient = budget > 0 ? (budget - need) / budget : -1.0;
  u.fits_ = weights > 0 && kv >= 0 && transient >= 0;
  if (!(weights > 0)) {
    u.limited_by = MemoryLimit::weights;
    u.margin = weights;
  } else if (kv < 0) {
    u.limited_by = MemoryLimit::kv_pool;
    u.margin = kv;
  } else if (transient < 0) {
    u.limited_by = MemoryLimit::transient;
    u.margin = transient;
  } else {
    // Fits: the nearest of the limits a larger batch meets (the KV pool, the transients); the
    // weights only when they themselves leave the pool within the tight margin.
    u.limited_by = MemoryLimit::kv_pool;
    u.margin = kv;
    if (transient < u.margin) u.limited_by = MemoryLimit::transient, u.margin = transient;
    if (weights < kTightMargin && weights < u.margin)
      u.limited_by = MemoryLimit::weights, u.margin = weights;
  }
  u.tight = u.fits_ && u.margin < kTightMargin;
}

}  // namespace

const char* memory_limit_name(MemoryLimit l) {
  switch (l) {
    case MemoryLimit::weights:
      return "weights";
    case MemoryLimit::kv_pool:
      return "kv_pool";
    case MemoryLimit::transient:
      return "transient";
  }
  return "?";
}

double device_capacity_bytes(const HwProfile& hw) {
  return hw.memory.device_mib > 0 ? hw.memory.device_mib * units::kBytesPerMiB
                                  : hw.hbm_capacity_gb * kGB;
}

double MemoryUse::bytes_of(const std::string& name_prefix) const {
  double b = 0;
  for (const auto& t : terms)
    if (t.name.rfind(name_prefix, 0) == 0) b += t.bytes;
  return b;
}

std::string MemoryUse::limit_sentence() const {
  const std::string share =
      margin < 0 ? std::string("exceed") : fmt::format("take {:.0f} % of", 100 * (1 - margin));
  // SGLang's own heuristic can reserve more than the GPU has: the instance's whole chunked-prefill
  // size counts as activation tokens before it is divided over the DP ranks (B1).
  if (fraction <= 0)
    return fmt::format(
        "SGLang's default --mem-fraction-static comes out at {:.3f} here (its heuristic reserves "
        "activation memory for the instance's whole chunked-prefill size; sglang_flags_memory.md "
        "B1), so SGLang would not start: pass --mem-fraction-static (above {:.3f}, the "
        "weights' {:.1f} GB over the GPU's {:.1f} GB, to leave a KV pool) or a smaller "
        "--chunked-prefill-size",
        fraction, weights_bytes / capacity_bytes, weights_bytes / kGB, capacity_bytes / kGB);
  switch (limited_by) {
    case MemoryLimit::weights:
      return fmt::format(
          "the weights ({:.1f} GB) {} the static share --mem-fraction-static x memory = {:.3f} x "
          "{:.1f} GB = {:.1f} GB{}",
          weights_bytes / kGB, share, fraction, capacity_bytes / kGB, static_bytes() / kGB,
          margin > 0 ? "" : ", leaving no KV pool");
    case MemoryLimit::kv_pool:
      return fmt::format(
          "the batch's KV cache ({:.2f} GB) {} the KV pool ({:.1f} GB = {:.3f} x {:.1f} GB - "
          "{:.1f} GB of weights)",
          kv_bytes / kGB,
          margin < 0 ? std::string("exceeds")
                     : fmt::format("fills {:.0f} % of", 100 * (1 - margin)),
          pool_bytes / kGB, fraction, capacity_bytes / kGB, weights_bytes / kGB);
    case MemoryLimit::transient:
      return fmt::format(
          "the peak transients ({:.1f} GB with {:.1f} GB of allocator fragmentation) {} the "
          "{:.1f} GB outside the static share ((1 - {:.3f}) x {:.1f} GB - {:.1f} GB of fixed "
          "overheads)",
          (transient_bytes + fragmentation_bytes) / kGB, fragmentation_bytes / kGB, share,
          transient_budget_bytes() / kGB, fraction, capacity_bytes / kGB, overhead_bytes / kGB);
  }
  return {};
}

MemoryUse memory_per_gpu(const ModelConfig& m, const HwProfile& hw, const Workload& w, bool split) {
  if (hw.hbm_capacity_gb <= 0)
    throw InputError(hw.file, 1, "hbm.capacity_gb",
                     "missing: the memory fit check needs the GPU's HBM capacity");
  if (!hw.has_memory_params)
    throw InputError(hw.file, 1, "memory",
                     "missing section: the memory fit check needs framework_reserve_gb, "
                     "fragmentation_fraction, cuda_graph_pool_gb, deepep_normal_buffer_gb, "
                     "deepep_ll_max_tokens_per_rank, sglang_reserve and sglang_requests");
  MemoryUse u;
  u.capacity_bytes = device_capacity_bytes(hw);
  const std::string capacity_how =
      hw.memory.device_mib > 0 ? fmt::format("memory.device_mib {:g} MiB", hw.memory.device_mib)
                               : fmt::format("hbm.capacity_gb {:g} GB", hw.hbm_capacity_gb);
  if (w.mem_fraction_static) {
    u.fraction = *w.mem_fraction_static;
    u.fraction_how = fmt::format("--mem-fraction-static {:g} (given)", u.fraction);
  } else {
    const DefaultFraction d = sglang_default_fraction(
        hw.memory.sglang, u.capacity_bytes / units::kBytesPerMiB, sglang_server_of(w));
    u.fraction = d.fraction;
    u.fraction_how = d.how;
  }
  u.terms = weight_terms(m, w);
  for (const auto& t : u.terms) u.weights_bytes += t.bytes;
  u.pool_bytes = u.static_bytes() - u.weights_bytes;
  u.terms.push_back(
      {"KV pool", std::max(0.0, u.pool_bytes),
       fmt::format("--mem-fraction-static x memory - weights = {:.3f} x {:.3f} GB ({}) - {:.3f} "
                   "GB (sglang_flags_memory.md B2: available = post - pre x (1 - f)); f: {}",
                   u.fraction, u.capacity_bytes / kGB, capacity_how, u.weights_bytes / kGB,
                   u.fraction_how),
       MemoryKind::kv_pool});
  MemoryTerm kv = kv_cache_term(m, w);
  u.kv_bytes = kv.bytes;
  u.terms.push_back(std::move(kv));
  MemoryTerm act = activation_term(m, hw, w, split);
  u.transient_bytes = act.bytes;
  u.terms.push_back(std::move(act));
  u.fragmentation_bytes = hw.memory.fragmentation_fraction * u.transient_bytes;
  u.terms.push_back({"allocator fragmentation", u.fragmentation_bytes,
                     fmt::format("{:g} x the peak transients (memory.fragmentation_fraction of {})",
                                 hw.memory.fragmentation_fraction, hw.name),
                     MemoryKind::transient});
  for (auto& t : buffer_terms(m, hw, w, split)) u.terms.push_back(std::move(t));
  // The pool's size in tokens, at this batch's bytes per cached token.
  double cached = 0;
  for (const auto& s : whole_batch(w).segments) cached += double(s.count) * double(s.kv_len);
  const double per_token = cached > 0 ? u.kv_bytes / cached : 0;
  u.terms.push_back(
      req_to_token_term(m, hw, w, per_token > 0 ? std::max(0.0, u.pool_bytes) / per_token : 0));
  for (const auto& t : u.terms)
    if (t.kind == MemoryKind::overhead) u.overhead_bytes += t.bytes;
  u.total_bytes = u.weights_bytes + std::max(0.0, u.pool_bytes) + u.overhead_bytes +
                  u.transient_bytes + u.fragmentation_bytes;
  judge(u);
  return u;
}

}  // namespace ovs
