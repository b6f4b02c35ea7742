#include "app/analysis/even_halves.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ovs {
namespace {

double mean(double a, double b) {
  return 0.5 * (a + b);
}
std::int64_t mean(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(std::llround(0.5 * static_cast<double>(a + b)));
}

double all_flops(const Work& w) {
  return w.total_tensor_flops() + w.cuda_core_flops;
}

// Both kernels' numbers become their mean, so that each takes the mean of their times alone: FLOPs
// and bytes, CTAs and tiles, fixed latency, the per-tile overhead (over the mean tiles) and the
// efficiency (over the mean FLOPs). False when the two cannot be paired (a given duration beside
// a modelled one, different tensor lists).
bool even_out(KernelSpec& a, KernelSpec& b) {
  if (a.duration_us.has_value() != b.duration_us.has_value()) return false;
  if (a.duration_us) {
    const double d = mean(*a.duration_us, *b.duration_us);
    a.duration_us = b.duration_us = d;
    return true;
  }
  Work& x = a.work;
  Work& y = b.work;
  if (x.reads.size() != y.reads.size() || x.writes.size() != y.writes.size()) return false;
  // Compute time is FLOPs / efficiency: the mean time over the mean FLOPs.
  const double fx = all_flops(x), fy = all_flops(y);
  if (fx > 0 && fy > 0 && x.compute_efficiency > 0 && y.compute_efficiency > 0)
    x.compute_efficiency = y.compute_efficiency =
        mean(fx, fy) / mean(fx / x.compute_efficiency, fy / y.compute_efficiency);
  // Per-tile costs: the mean total over the mean tile count.
  const double tx = double(x.tiles > 0 ? x.tiles : x.ctas),
               ty = double(y.tiles > 0 ? y.tiles : y.ctas);
  const double t = mean(tx, ty);
  if (t > 0) {
    x.tile_overhead_us = y.tile_overhead_us =
        mean(tx * x.tile_overhead_us, ty * y.tile_overhead_us) / t;
    x.tile_serial_bytes = y.tile_serial_bytes =
        mean(tx * x.tile_serial_bytes, ty * y.tile_serial_bytes) / t;
  }
  x.peer_lead_us = y.peer_lead_us = mean(x.peer_lead_us, y.peer_lead_us);
  for (size_t d = 0; d < x.tensor_flops.size(); ++d)
    x.tensor_flops[d] = y.tensor_flops[d] = mean(x.tensor_flops[d], y.tensor_flops[d]);
  for (size_t l = 0; l < x.link_bytes.size(); ++l)
    x.link_bytes[l] = y.link_bytes[l] = mean(x.link_bytes[l], y.link_bytes[l]);
  x.cuda_core_flops = y.cuda_core_flops = mean(x.cuda_core_flops, y.cuda_core_flops);
  x.hbm_bytes = y.hbm_bytes = mean(x.hbm_bytes, y.hbm_bytes);
  x.l2_bytes = y.l2_bytes = mean(x.l2_bytes, y.l2_bytes);
  x.ctas = y.ctas = mean(x.ctas, y.ctas);
  x.tiles = y.tiles = mean(x.tiles, y.tiles);
  x.fixed_latency_us = y.fixed_latency_us = mean(x.fixed_latency_us, y.fixed_latency_us);
  for (auto [u, v] : {std::pair{&x.reads, &y.reads}, std::pair{&x.writes, &y.writes}})
    for (size_t i = 0; i < u->size(); ++i)
      (*u)[i].bytes = (*v)[i].bytes = mean((*u)[i].bytes, (*v)[i].bytes);
  return true;
}

}  // namespace

void EvenHalves::adjust(BuiltProgram& b) {
  unpaired = 0;
  // (layer, op, kernel, occurrence) -> micro-batch A's kernel.
  using Key = std::tuple<int, std::string, std::string, int>;
  std::map<Key, int> a_kernels;
  std::map<std::tuple<int, std::string, std::string, int>, int> seen;  // occurrences so far
  auto key_of = [&](size_t k) {
    const KernelInfo& i = b.info[k];
    const int n = seen[{i.layer, i.op, i.kernel, i.micro_batch}]++;
    return Key{i.layer, i.op, i.kernel, n};
  };
  std::vector<std::pair<size_t, Key>> b_kernels;
  for (size_t k = 0; k < b.info.size(); ++k) {
    b.program.kernels[k].work_class = -1;  // kernels of one class may now differ
    if (b.info[k].layer < 0) continue;     // the whole batch's (embedding, LM head)
    if (b.info[k].micro_batch == 0) a_kernels.emplace(key_of(k), static_cast<int>(k));
    if (b.info[k].micro_batch == 1) b_kernels.emplace_back(k, key_of(k));
  }
  size_t paired = 0;
  for (const auto& [k, key] : b_kernels) {
    const auto it = a_kernels.find(key);
    if (it != a_kernels.end() &&
        even_out(b.program.kernels[static_cast<size_t>(it->second)], b.program.kernels[k]))
      ++paired;
  }
  unpaired = static_cast<int>(a_kernels.size() + b_kernels.size() - 2 * paired);
  b.program.shape = ShapeToken();  // the numbers changed outside the builder
}

bool same_halves(const MicroBatch& a, const MicroBatch& b) {
  if (a.tokens != b.tokens || a.sequences != b.sequences) return false;
  auto sorted = [](std::vector<Segment> v) {
    std::sort(v.begin(), v.end(), [](const Segment& x, const Segment& y) {
      return std::tie(x.q_len, x.kv_len, x.count) < std::tie(y.q_len, y.kv_len, y.count);
    });
    return v;
  };
  const auto x = sorted(a.segments), y = sorted(b.segments);
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const Segment& s, const Segment& t) {
    return s.q_len == t.q_len && s.kv_len == t.kv_len && s.count == t.count;
  });
}

}  // namespace ovs
