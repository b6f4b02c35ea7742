#include "models/memory/memory_model.hpp"

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace ovs {

double MemoryUse::bytes_of(const std::string& name_prefix) const {
  double b = 0;
  for (const auto& t : terms)
    if (t.name.rfind(name_prefix, 0) == 0) b += t.bytes;
  return b;
}

MemoryUse memory_per_gpu(const ModelConfig& m, const HwProfile& hw, const Workload& w, bool split) {
  if (hw.hbm_capacity_gb <= 0)
    throw InputError(hw.file, 1, "hbm.capacity_gb",
                     "missing: the memory fit check needs the GPU's HBM capacity");
  if (!hw.has_memory_params)
    throw InputError(hw.file, 1, "memory",
                     "missing section: the memory fit check needs framework_reserve_gb, "
                     "cuda_graph_pool_gb, deepep_normal_buffer_gb and "
                     "deepep_ll_max_tokens_per_rank");
  MemoryUse u;
  u.terms = weight_terms(m, w);
  u.terms.push_back(kv_cache_term(m, w));
  u.terms.push_back(activation_term(m, hw, w, split));
  for (auto& t : buffer_terms(m, hw, w, split)) u.terms.push_back(std::move(t));
  for (const auto& t : u.terms) u.total_bytes += t.bytes;
  u.capacity_bytes = hw.hbm_capacity_gb * units::kBytesPerGB;
  return u;
}

}  // namespace ovs
