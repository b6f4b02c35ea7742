#include "models/cost/gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

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

struct Plan {
  GemmTile tile;
  double time_us = 0;
  double tile_flop_us = 0;
  double overhead_us = 0;
  double hbm_bytes = 0;
  double l2_bytes = 0;
};

Plan plan(const HwProfile& hw, const GemmShape& s, int bm, int bn, int sms) {
  const GemmParams& g = hw.kernels.gemm;
  const Hardware& e = hw.engine;
  const int d = static_cast<int>(s.dtype);
  Plan p;
  p.tile.block_m = bm;
  p.tile.block_n = bn;
  const double tm = m_tiles(s, bm, g.masked_m_spread);
  const double tn = std::ceil(double(s.n) / bn);
  p.tile.tiles = std::ceil(tm * tn);
  const double used = std::min<double>(sms, p.tile.tiles);
  p.tile.waves = static_cast<int>(std::ceil(p.tile.tiles / used));
  const double eff = g.efficiency[d] * (bm < 128 ? g.efficiency_m64_ratio : 1.0);
  p.tile_flop_us = 2.0 * bm * bn * double(s.k) / (hw.peak_per_sm(s.dtype) * eff);
  // The share of a tile's output write the main loop does not hide, at one SM's share of HBM.
  const double per_sm_hbm = e.hbm_bytes_per_us / e.hbm_saturation_sms;
  // Block-scaled dtypes (FP8, FP4) promote partial sums with their scales after every block_k
  // step on CUDA cores; BF16 accumulates in the tensor cores throughout.
  const double k_steps = s.dtype == Dtype::bf16 ? 0.0 : std::ceil(double(s.k) / g.block_k);
  p.overhead_us = g.tile_overhead_us + g.k_iteration_us * k_steps +
                  g.epilogue_write_fraction * bm * bn * s.out_bytes / per_sm_hbm;
  // Bytes: every operand once from HBM; re-reads of A by each column of tiles and of B by each
  // row of tiles come from L2.
  const double eb = dtype_bytes(s.dtype);
  const double rows =
      s.layout == GemmLayout::masked ? double(s.m) * s.groups : double(s.m) * s.groups;
  const double a = rows * s.k * eb + scale_bytes(s.dtype, rows, s.k);
  const double b = double(s.groups) * (s.n * s.k * (s.b_value_bytes > 0 ? s.b_value_bytes : eb) +
                                       scale_bytes(s.dtype, s.n, s.k) / 128.0);
  const double c = rows * s.n * s.out_bytes;
  p.hbm_bytes = a + b + c;
  p.l2_bytes = a * std::max(0.0, tn - 1) + b * std::max(0.0, tm / s.groups - 1);
  const double comp = p.tile.waves * (p.tile_flop_us + p.overhead_us);
  const double hbm =
      p.hbm_bytes / (e.hbm_bytes_per_us * std::min(1.0, used / e.hbm_saturation_sms));
  const double l2 = p.l2_bytes / (e.l2_bytes_per_us * std::min(1.0, used / e.l2_saturation_sms));
  p.time_us = g.fixed_latency_us + std::max({comp, hbm, l2});
  return p;
}

}  // namespace

KernelCost gemm_cost(const HwProfile& hw, const GemmShape& s, int sms, GemmTile* chosen) {
  const GemmParams& g = hw.kernels.gemm;
  const int d = static_cast<int>(s.dtype);
  const std::string what = fmt::format("gemm {}x{}x{}", s.m, s.n, s.k);
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0)
    throw InputError("", 0, "gemm", what + ": M, N, K and groups must be positive");
  if (hw.peak_per_sm(s.dtype) <= 0)
    throw InputError("", 0, "dtype",
                     fmt::format("{} has no {} tensor cores", hw.name, dtype_name(s.dtype)));
  if (g.efficiency[d] <= 0)
    throw InputError(hw.file, 0, "kernels.gemm.efficiency." + std::string(dtype_name(s.dtype)),
                     "no GEMM efficiency for this dtype in the profile");
  if (g.block_m.empty() || g.block_n.empty())
    throw InputError(hw.file, 0, "kernels.gemm.block_m", "no tile options");
  const int avail = sms > 0 ? std::min(sms, hw.engine.sm_count) : hw.engine.sm_count;

  Plan best;
  bool have = false;
  for (int bm : g.block_m) {
    for (int bn : g.block_n) {
      const Plan p = plan(hw, s, bm, bn, avail);
      // Shortest time; ties go to the larger tile (fewer, fuller tiles).
      if (!have || p.time_us < best.time_us * (1 - 1e-9) ||
          (p.time_us <= best.time_us * (1 + 1e-9) &&
           bm * bn > best.tile.block_m * best.tile.block_n)) {
        best = p;
        have = true;
      }
    }
  }
  if (chosen) *chosen = best.tile;

  KernelCost c;
  c.name = fmt::format("gemm_{}_{}x{}x{}{}", dtype_name(s.dtype), s.m, s.n, s.k,
                       s.groups > 1 ? fmt::format("x{}g", s.groups) : "");
  c.category = "gemm";
  Work& w = c.work;
  const int bm = best.tile.block_m, bn = best.tile.block_n;
  w.tensor_flops[d] = best.tile.tiles * 2.0 * bm * bn * double(s.k);  // padded tiles
  const double eff = g.efficiency[d] * (bm < 128 ? g.efficiency_m64_ratio : 1.0);
  w.compute_efficiency = eff * best.tile_flop_us / (best.tile_flop_us + best.overhead_us);
  w.tiles = static_cast<std::int64_t>(best.tile.tiles);
  w.ctas = std::min<std::int64_t>(w.tiles, avail);  // persistent: one CTA per SM it can use
  w.ctas_per_sm = 1;
  w.fixed_latency_us = g.fixed_latency_us;
  w.l2_bytes = best.l2_bytes;
  // Named operands go through the engine's L2 tracker; the rest is plain HBM traffic.
  const double eb = dtype_bytes(s.dtype);
  const double rows = double(s.m) * s.groups;
  const double a = rows * s.k * eb + scale_bytes(s.dtype, rows, s.k);
  const double b = double(s.groups) * (s.n * s.k * (s.b_value_bytes > 0 ? s.b_value_bytes : eb) +
                                       scale_bytes(s.dtype, s.n, s.k) / 128.0);
  const double out = rows * s.n * s.out_bytes;
  w.hbm_bytes = 0;
  if (s.a_tensor.empty())
    w.hbm_bytes += a;
  else
    w.reads.push_back({s.a_tensor, a});
  if (s.b_tensor.empty())
    w.hbm_bytes += b;
  else
    w.reads.push_back({s.b_tensor, b});
  if (s.c_tensor.empty())
    w.hbm_bytes += out;
  else
    w.writes.push_back({s.c_tensor, out});
  if (sms > 0) c.sm_cap = avail;
  c.useful_flops = 2.0 * rows * double(s.n) * double(s.k);
  c.logical_bytes = double(s.groups) * (double(s.m) * s.k + double(s.n) * s.k + 2.0 * s.m * s.n);
  c.waves = best.tile.waves;
  c.detail = fmt::format("{} {} tile {}x{}, {:.0f} tiles, {} waves on {} SMs",
                         layout_name(s.layout), dtype_name(s.dtype), bm, bn, best.tile.tiles,
                         best.tile.waves, std::min<double>(avail, best.tile.tiles));
  return c;
}

}  // namespace ovs
