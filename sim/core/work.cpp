#include "sim/core/work.hpp"

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

}  // namespace ovs
