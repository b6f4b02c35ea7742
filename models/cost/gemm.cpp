#include "models/cost/gemm.hpp"
#include "sim/core/caches.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/engine/kernel_model.hpp"

namespace ovs {

const char* layout_name(GemmLayout l) {
  switch (l) {
    case GemmLayout::dense:
      return "dense";
    case GemmLayout::contiguous:
      return "contiguous";
    case GemmLayout::masked:
      return "masked";
  }
  return "dense";
}

namespace {

// Expected tiles along M for all groups. Masked layouts hold a per-group count that varies
// around expected_m (DeepGEMM's own test draws it uniformly in [1-s, 1+s] x expected_m); the
// tiles of a group are ceil(m_g / block_m), averaged over that spread.
double m_tiles(const GemmShape& s, int block_m, double spread) {
  if (s.layout != GemmLayout::masked || spread <= 0)
    return double(s.groups) * std::ceil(double(s.m) / block_m);
  constexpr int kPoints = 61;
  double sum = 0;
  for (int i = 0; i < kPoints; ++i) {
    const double m = double(s.m) * (1 - spread + 2 * spread * i / (kPoints - 1));
    sum += std::ceil(std::max(m, 0.0) / block_m);
  }
  return double(s.groups) * sum / kPoints;
}

double scale_bytes(Dtype d, double rows, double k) {
  if (d == Dtype::fp8) return rows * std::ceil(k / 128.0) * 4.0;  // FP32 scale per 1x128 block
  if (d == Dtype::fp4) return rows * std::ceil(k / 32.0) * 1.0;   // UE8M0 scale per 32 values
  return 0;
}

// One CTA of a GEMM with this tile: the profile's threads, registers (given, or base + one FP32
// accumulator per output element per thread), and shared memory (the pipeline's operand stages,
// or all of the SM's when the library sizes its pipeline to fill it).
CtaFootprint gemm_footprint(const HwProfile& hw, const GemmShape& s, int bm, int bn) {
  const GemmParams& g = hw.kernels.gemm;
  CtaFootprint f;
  if (g.cta_threads <= 0) return f;
  f.threads = g.cta_threads;
  f.registers_per_thread =
      g.cta_registers_per_thread > 0
          ? g.cta_registers_per_thread
          : g.cta_base_registers + (bm * bn + g.cta_threads - 1) / g.cta_threads;
  const double operand = dtype_bytes(s.dtype);
  f.shared_bytes = g.pipeline_stages > 0
                       ? double(g.pipeline_stages) * (bm + bn) * g.block_k * operand
                       : hw.engine.sm.shared_bytes;
  return f;
}

// Operand bytes: A (activations with their scales), B (weights), C (output).
struct Operands {
  double a = 0, b = 0, c = 0;
};
Operands operand_bytes(const GemmShape& s) {
  const double eb = dtype_bytes(s.dtype);
  const double rows = double(s.m) * s.groups;
  Operands o;
  o.a = rows * s.k * eb + scale_bytes(s.dtype, rows, s.k);
  o.b = double(s.groups) * (s.n * s.k * (s.b_value_bytes > 0 ? s.b_value_bytes : eb) +
                            scale_bytes(s.dtype, s.n, s.k) / 128.0);
  o.c = rows * s.n * s.out_bytes;
  return o;
}

// Split-K's extra traffic: each of the `split` parts writes its FP32 partial output and the
// reduction reads them all back.
double split_reduce_bytes(const GemmShape& s, int split) {
  if (split <= 1) return 0;
  return 2.0 * split * double(s.m) * s.groups * double(s.n) * 4.0;
}

// The Work of the GEMM with one tile choice on `avail` SMs (named operands left unnamed: the
// tile choice assumes nothing is in L2, as the kernel alone).
struct Candidate {
  GemmTile tile;
  KernelSpec spec;
};
Candidate candidate(const HwProfile& hw, const GemmShape& s, int bm, int bn, int split, int avail,
                    bool capped) {
  const GemmParams& g = hw.kernels.gemm;
  const int d = static_cast<int>(s.dtype);
  Candidate c;
  c.tile.block_m = bm;
  c.tile.block_n = bn;
  c.tile.split_k = split;
  const double tm = m_tiles(s, bm, g.masked_m_spread);
  const double tn = std::ceil(double(s.n) / bn);
  const double out_tiles = std::ceil(tm * tn);
  c.tile.tiles = out_tiles * split;
  Work& w = c.spec.work;
  w.tensor_flops[d] = out_tiles * 2.0 * bm * bn * double(s.k);  // padded tiles
  w.compute_efficiency = g.efficiency[d] * (bm < 128 ? g.efficiency_m64_ratio : 1.0);
  // Block-scaled dtypes (FP8, FP4) promote partial sums with their scales after every block_k
  // step on CUDA cores; BF16 accumulates in the tensor cores throughout.
  const double k_part = std::ceil(double(s.k) / split);
  const double k_steps = s.dtype == Dtype::bf16 ? 0.0 : std::ceil(k_part / g.block_k);
  w.tile_overhead_us = g.tile_overhead_us + g.k_iteration_us * k_steps;
  // A split tile writes FP32 partial sums.
  w.tile_serial_bytes = g.epilogue_write_fraction * bm * bn * (split > 1 ? 4.0 : s.out_bytes);
  w.tiles = static_cast<std::int64_t>(c.tile.tiles);
  // Persistent: one CTA per SM it can use; otherwise one CTA per tile (the cap then bounds the
  // CTAs resident at once).
  w.ctas = g.persistent ? std::min<std::int64_t>(w.tiles, avail) : w.tiles;
  w.ctas_per_sm = 1;
  w.cta = gemm_footprint(hw, s, bm, bn);
  w.fixed_latency_us = g.fixed_latency_us;
  // Every operand once from HBM; re-reads of A by each column of tiles and of B by each row of
  // tiles come from L2.
  const Operands o = operand_bytes(s);
  w.hbm_bytes = o.a + o.b + o.c + split_reduce_bytes(s, split);
  w.l2_bytes = o.a * std::max(0.0, tn - 1) + o.b * std::max(0.0, tm / s.groups - 1);
  if (capped) c.spec.sm_cap = avail;
  c.tile.waves = static_cast<int>(std::ceil(c.tile.tiles / std::min<double>(avail, c.tile.tiles)));
  return c;
}

// Every number the tile choice reads (engine capacities, GEMM parameters), hashed (FNV-1a): the
// cache below is keyed by it, so a profile changed by a fit or a sweep axis gets new entries.
std::uint64_t fingerprint(const HwProfile& hw) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  };
  auto num = [&](double v) { mix(&v, sizeof v); };
  const Hardware& e = hw.engine;
  num(e.sm_count);
  num(e.sm.max_ctas);
  num(e.sm.max_threads);
  num(e.sm.registers);
  num(e.sm.shared_bytes);
  for (double v : e.tensor_flops_per_us_per_sm) num(v);
  num(e.cuda_core_flops_per_us_per_sm);
  num(e.hbm_bytes_per_us);
  num(e.hbm_saturation_sms);
  num(e.l2_bytes_per_us);
  num(e.l2_saturation_sms);
  const GemmParams& g = hw.kernels.gemm;
  for (int v : g.block_m) num(v);
  num(-1);
  for (int v : g.block_n) num(v);
  num(-1);
  for (int v : g.split_k) num(v);
  num(g.block_k);
  for (double v : g.efficiency) num(v);
  num(g.efficiency_m64_ratio);
  num(g.tile_overhead_us);
  num(g.k_iteration_us);
  num(g.epilogue_write_fraction);
  num(g.fixed_latency_us);
  num(g.masked_m_spread);
  num(g.cta_threads);
  num(g.cta_registers_per_thread);
  num(g.cta_base_registers);
  num(g.pipeline_stages);
  num(g.persistent);
  return h;
}

struct TileKey {
  std::uint64_t hw;
  std::int64_t m, n, k;
  int groups, layout, dtype, avail;
  double out_bytes, b_value_bytes;
  bool operator==(const TileKey&) const = default;
};
struct TileKeyHash {
  size_t operator()(const TileKey& t) const {
    std::uint64_t h = t.hw;
    for (std::int64_t v : {t.m, t.n, t.k, std::int64_t(t.groups), std::int64_t(t.layout),
                           std::int64_t(t.dtype), std::int64_t(t.avail)})
      h = (h ^ std::uint64_t(v)) * 1099511628211ULL;
    return static_cast<size_t>(h);
  }
};

// The tile choice per shape, per thread (sweeps run one worker per thread): a forward costs the
// same GEMM shapes in every layer and micro-batch.
const GemmTile* cached_tile(const TileKey& key, const GemmTile* store) {
  if (!caches_enabled()) return nullptr;
  thread_local std::unordered_map<TileKey, GemmTile, TileKeyHash> cache;
  if (store) {
    if (cache.size() > 100000) cache.clear();  // bounded: a long sweep over many profiles
    return &(cache[key] = *store);
  }
  auto it = cache.find(key);
  return it == cache.end() ? nullptr : &it->second;
}

}  // namespace

namespace {
KernelCost price_gemm(const HwProfile& hw, const GemmShape& s, int sms, GemmTile* chosen,
                      const std::string* name);
}  // namespace

KernelCost gemm_cost(const HwProfile& hw, const GemmShape& s, int sms, GemmTile* chosen) {
  return price_gemm(hw, s, sms, chosen, nullptr);
}

KernelCost gemm_cost_named(const HwProfile& hw, const GemmShape& s, const std::string& name) {
  return price_gemm(hw, s, 0, nullptr, &name);
}

namespace {
KernelCost price_gemm(const HwProfile& hw, const GemmShape& s, int sms, GemmTile* chosen,
                      const std::string* name) {
  const GemmParams& g = hw.kernels.gemm;
  const int d = static_cast<int>(s.dtype);
  // Named in errors only (formatted then, not on every call).
  auto what = [&s] { return fmt::format("gemm {}x{}x{}", s.m, s.n, s.k); };
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0)
    throw InputError("", 0, "gemm", what() + ": M, N, K and groups must be positive");
  if (hw.peak_per_sm(s.dtype) <= 0)
    throw InputError("", 0, "dtype",
                     fmt::format("{} has no {} tensor cores", hw.name, dtype_name(s.dtype)));
  if (g.efficiency[d] <= 0)
    throw InputError(hw.file, 0, "kernels.gemm.efficiency." + std::string(dtype_name(s.dtype)),
                     "no GEMM efficiency for this dtype in the profile");
  if (g.block_m.empty() || g.block_n.empty())
    throw InputError(hw.file, 0, "kernels.gemm.block_m", "no tile options");
  const int avail = sms > 0 ? std::min(sms, hw.engine.sm_count) : hw.engine.sm_count;

  // The tile a tuned library would pick: the shortest time alone, as the engine prices it.
  const TileKey key{fingerprint(hw), s.m,          s.n,   s.k,         s.groups,
                    int(s.layout),   int(s.dtype), avail, s.out_bytes, s.b_value_bytes};
  Candidate best;
  double best_us = 0;
  bool have = false;
  if (const GemmTile* t = cached_tile(key, nullptr)) {
    best = candidate(hw, s, t->block_m, t->block_n, t->split_k, avail, sms > 0);
    have = true;
  }
  // Split-K for dense GEMMs only (grouped ones have a tile per group already), and only into
  // parts of at least one K block.
  std::vector<int> splits;
  for (int v : g.split_k)
    if (v == 1 || (s.layout == GemmLayout::dense && double(v) * g.block_k <= double(s.k)))
      splits.push_back(v);
  std::sort(splits.begin(), splits.end());
  for (int bm : have ? std::vector<int>{} : g.block_m) {
    for (int bn : g.block_n) {
      for (int split : splits) {
        Candidate cand = candidate(hw, s, bm, bn, split, avail, sms > 0);
        double t = 0;
        try {
          t = solo_time_us(hw.engine, cand.spec);
        } catch (const SimulationError&) {
          continue;  // this tile's CTA does not fit on an SM
        }
        // Shortest time; ties go to the larger tile (fewer, fuller tiles), then to the smaller
        // split (tried first).
        if (!have || t < best_us * (1 - 1e-9) ||
            (t <= best_us * (1 + 1e-9) && bm * bn > best.tile.block_m * best.tile.block_n)) {
          best = std::move(cand);
          best_us = t;
          have = true;
        }
      }
    }
  }
  if (!have)
    throw InputError(hw.file, 0, "kernels.gemm",
                     what() + ": no tile's CTA fits on one SM of " + hw.name);
  cached_tile(key, &best.tile);
  if (chosen) *chosen = best.tile;

  KernelCost c;
  c.name = name ? *name
                : fmt::format("gemm_{}_{}x{}x{}{}", dtype_name(s.dtype), s.m, s.n, s.k,
                              s.groups > 1 ? fmt::format("x{}g", s.groups) : "");
  c.category = KernelCategory::gemm;
  c.work = std::move(best.spec.work);
  Work& w = c.work;
  // Named operands go through the engine's L2 tracker; the rest is plain HBM traffic.
  const Operands o = operand_bytes(s);
  w.hbm_bytes = split_reduce_bytes(s, best.tile.split_k);
  if (s.a_tensor.empty())
    w.hbm_bytes += o.a;
  else
    w.reads.push_back({s.a_tensor, o.a});
  if (s.b_tensor.empty())
    w.hbm_bytes += o.b;
  else
    w.reads.push_back({s.b_tensor, o.b});
  if (s.c_tensor.empty())
    w.hbm_bytes += o.c;
  else
    w.writes.push_back({s.c_tensor, o.c});
  if (sms > 0) c.sm_cap = avail;
  const int bm = best.tile.block_m, bn = best.tile.block_n;
  const double rows = double(s.m) * s.groups;
  c.useful_flops = 2.0 * rows * double(s.n) * double(s.k);
  c.logical_bytes = double(s.groups) * (double(s.m) * s.k + double(s.n) * s.k + 2.0 * s.m * s.n);
  c.waves = best.tile.waves;
  c.gemm = GemmDims{s.m,      s.n,     s.k,
                    s.groups, s.dtype, s.b_tensor.empty() ? -1 : (s.a_tensor.empty() ? 0 : 1)};
  if (name) return c;  // a layer's kernel: its role names it, and nothing reads the detail
  const std::string split =
      best.tile.split_k > 1 ? fmt::format(" split-K {}", best.tile.split_k) : std::string();
  c.detail = fmt::format("{} {} tile {}x{}{}, {:.0f} tiles, {} waves on {} SMs",
                         layout_name(s.layout), dtype_name(s.dtype), bm, bn, split, best.tile.tiles,
                         best.tile.waves, std::min<double>(avail, best.tile.tiles));
  return c;
}
}  // namespace

}  // namespace ovs
