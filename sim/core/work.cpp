#include "sim/core/work.hpp"

#include <cstddef>

namespace ovs {

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (int i = 0; i < kNumDtypes; ++i)
    if (kDtypeNames[i] == name) return static_cast<Dtype>(i);
  return std::nullopt;
}

std::string_view dtype_name(Dtype d) {
  return kDtypeNames[static_cast<int>(d)];
}

std::optional<Link> parse_link(std::string_view name) {
  for (int i = 0; i < kNumLinks; ++i)
    if (kLinkNames[i] == name) return static_cast<Link>(i);
  return std::nullopt;
}

double Work::total_tensor_flops() const {
  double s = 0;
  for (double f : tensor_flops) s += f;
  return s;
}

bool Work::empty() const {
  if (total_tensor_flops() > 0 || cuda_core_flops > 0 || hbm_bytes > 0 || l2_bytes > 0)
    return false;
  for (double b : link_bytes)
    if (b > 0) return false;
  return reads.empty() && writes.empty() && fixed_latency_us <= 0;
}

void Work::assign_numbers(const Work& o) {
  // Every field before the tensor lists is a number; a field added anywhere changes these.
  static_assert(offsetof(Work, reads) == 144 && sizeof(Work) == 192,
                "Work has a new field: copy it in assign_numbers");
  tensor_flops = o.tensor_flops;
  cuda_core_flops = o.cuda_core_flops;
  hbm_bytes = o.hbm_bytes;
  l2_bytes = o.l2_bytes;
  link_bytes = o.link_bytes;
  ctas = o.ctas;
  ctas_per_sm = o.ctas_per_sm;
  cta = o.cta;
  tiles = o.tiles;
  compute_efficiency = o.compute_efficiency;
  fixed_latency_us = o.fixed_latency_us;
  tile_overhead_us = o.tile_overhead_us;
  tile_serial_bytes = o.tile_serial_bytes;
  peer_lead_us = o.peer_lead_us;
  for (size_t i = 0; i < reads.size(); ++i) reads[i].bytes = o.reads[i].bytes;
  for (size_t i = 0; i < writes.size(); ++i) writes[i].bytes = o.writes[i].bytes;
}

}  // namespace ovs
