#include "sim/core/work.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

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

namespace {

// The numbers that add to a kernel's time alone, paired between two Works with tensor lists of the
// same lengths (`b` may be `a`): f(a's, b's).
template <class F>
void time_numbers(Work& a, Work& b, F f) {
  for (size_t d = 0; d < a.tensor_flops.size(); ++d) f(a.tensor_flops[d], b.tensor_flops[d]);
  for (size_t l = 0; l < a.link_bytes.size(); ++l) f(a.link_bytes[l], b.link_bytes[l]);
  f(a.cuda_core_flops, b.cuda_core_flops);
  f(a.hbm_bytes, b.hbm_bytes);
  f(a.l2_bytes, b.l2_bytes);
  f(a.fixed_latency_us, b.fixed_latency_us);
  for (size_t i = 0; i < a.reads.size(); ++i) f(a.reads[i].bytes, b.reads[i].bytes);
  for (size_t i = 0; i < a.writes.size(); ++i) f(a.writes[i].bytes, b.writes[i].bytes);
}

double mean(double a, double b) {
  return 0.5 * (a + b);
}
std::int64_t mean(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(std::llround(0.5 * static_cast<double>(a + b)));
}

}  // namespace

void Work::scale_time(double f) {
  time_numbers(*this, *this, [f](double& x, double&) { x *= f; });
  tile_overhead_us *= f;
  tile_serial_bytes *= f;
}

void Work::average_with(Work& o) {
  // Compute time is FLOPs / efficiency: the mean time over the mean FLOPs.
  const double fx = total_tensor_flops() + cuda_core_flops;
  const double fy = o.total_tensor_flops() + o.cuda_core_flops;
  if (fx > 0 && fy > 0 && compute_efficiency > 0 && o.compute_efficiency > 0)
    compute_efficiency = o.compute_efficiency =
        mean(fx, fy) / mean(fx / compute_efficiency, fy / o.compute_efficiency);
  // Per-tile costs: the mean total over the mean tile count.
  const double tx = double(tiles > 0 ? tiles : ctas), ty = double(o.tiles > 0 ? o.tiles : o.ctas);
  if (const double t = mean(tx, ty); t > 0) {
    tile_overhead_us = o.tile_overhead_us =
        mean(tx * tile_overhead_us, ty * o.tile_overhead_us) / t;
    tile_serial_bytes = o.tile_serial_bytes =
        mean(tx * tile_serial_bytes, ty * o.tile_serial_bytes) / t;
  }
  time_numbers(*this, o, [](double& x, double& y) { x = y = mean(x, y); });
  ctas = o.ctas = mean(ctas, o.ctas);
  tiles = o.tiles = mean(tiles, o.tiles);
  peer_lead_us = o.peer_lead_us = mean(peer_lead_us, o.peer_lead_us);
}

}  // namespace ovs
