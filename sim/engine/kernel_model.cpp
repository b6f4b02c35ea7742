#include "sim/engine/kernel_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ovs {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr CtaShare kWholeSm = {1.0, 1.0, 1.0, 1.0};

// The fraction of each SM capacity one CTA takes.
CtaShare cta_share(const Hardware& hw, const KernelSpec& k) {
  const Work& w = k.work;
  if (w.cta.given() && hw.sm.given()) {
    const SmCapacity& c = hw.sm;
    CtaShare s{1.0 / c.max_ctas, double(w.cta.threads) / c.max_threads,
               double(w.cta.threads) * w.cta.registers_per_thread / c.registers, 0.0};
    if (w.cta.shared_bytes > 0) {
      if (c.shared_bytes <= 0)
        throw SimulationError("kernel '" + k.name + "' uses shared memory on hardware '" + hw.name +
                              "' that gives no shared memory per SM");
      s[3] = w.cta.shared_bytes / c.shared_bytes;
    }
    static const char* kWhat[] = {"CTA slots", "threads", "registers", "shared memory"};
    for (int d = 0; d < 4; ++d)
      if (s[d] > 1.0 + 1e-9)
        throw SimulationError("kernel '" + k.name + "': one CTA needs more " + kWhat[d] +
                              " than an SM of '" + hw.name + "' has");
    return s;
  }
  if (k.fixed_sms >= 0) return kWholeSm;  // communication kernels own their SMs
  const double f = 1.0 / std::max(1, w.ctas_per_sm);
  return {f, f, f, f};
}

}  // namespace

KernelModel make_kernel_model(const Hardware& hw, const KernelSpec& k, LaunchMode mode) {
  KernelModel m;
  const Work& w = k.work;
  if (k.duration_us) {
    m.given = true;
    m.duration_us = *k.duration_us;
    m.request_sms = std::clamp(k.fixed_sms >= 0 ? k.fixed_sms : k.sms, 0, hw.sm_count);
    m.grid = m.max_resident = m.request_sms;
    m.share = kWholeSm;
    return m;
  }
  for (int d = 0; d < kNumDtypes; ++d) {
    if (w.tensor_flops[d] <= 0) continue;
    const double peak = hw.tensor_flops_per_us_per_sm[d];
    if (peak <= 0)
      throw SimulationError("kernel '" + k.name + "': " + std::string(kDtypeNames[d]) +
                            " tensor FLOPs on hardware '" + hw.name + "' that has no " +
                            std::string(kDtypeNames[d]) + " peak");
    m.compute_us_one_sm += w.tensor_flops[d] / (peak * w.compute_efficiency);
    m.pipe_us += w.tensor_flops[d] / peak;
  }
  if (w.cuda_core_flops > 0) {
    if (hw.cuda_core_flops_per_us_per_sm <= 0)
      throw SimulationError("kernel '" + k.name + "': CUDA-core FLOPs on hardware '" + hw.name +
                            "' without a CUDA-core peak");
    m.compute_us_one_sm +=
        w.cuda_core_flops / (hw.cuda_core_flops_per_us_per_sm * w.compute_efficiency);
    m.pipe_us += w.cuda_core_flops / hw.cuda_core_flops_per_us_per_sm;
  }
  // Per-tile work outside the main loop: on a CTA running at 1/ctas_per_sm of an SM, each tile
  // adds its overhead and its serial epilogue bytes at one SM's share of HBM.
  if (m.compute_us_one_sm > 0 && (w.tile_overhead_us > 0 || w.tile_serial_bytes > 0)) {
    const double units =
        static_cast<double>(w.tiles > 0 ? w.tiles : std::max<std::int64_t>(w.ctas, 1));
    const double per_sm_hbm = hw.hbm_bytes_per_us / std::max(1.0, hw.hbm_saturation_sms);
    const double per_tile_us =
        w.tile_overhead_us + (per_sm_hbm > 0 ? w.tile_serial_bytes / per_sm_hbm : 0.0);
    m.compute_us_one_sm +=
        units * per_tile_us / (k.fixed_sms >= 0 ? 1 : std::max(1, w.ctas_per_sm));
  }
  m.share = cta_share(hw, k);
  m.ctas_per_sm = k.fixed_sms >= 0 ? 1 : std::max(1, w.ctas_per_sm);
  m.occupancy = std::min(m.ctas_per_sm, std::max(1, ctas_that_fit(CtaShare{}, m.share)));
  m.units = static_cast<double>(w.tiles > 0 ? w.tiles : std::max<std::int64_t>(w.ctas, 1));
  constexpr std::int64_t kMaxGrid = 1 << 30;
  if (k.fixed_sms >= 0)
    m.grid = std::min(k.fixed_sms, hw.sm_count);
  else
    m.grid = static_cast<int>(std::clamp<std::int64_t>(w.ctas, 0, kMaxGrid));
  m.max_resident = m.grid;
  if (k.sm_cap > 0 && k.fixed_sms < 0)
    m.max_resident =
        static_cast<int>(std::min<std::int64_t>(m.grid, std::int64_t(k.sm_cap) * m.occupancy));
  if (m.grid == 0 && m.compute_us_one_sm > 0)
    throw SimulationError("kernel '" + k.name + "' has FLOPs but holds no SM");
  m.latency_us = w.fixed_latency_us;
  for (int l = 0; l < kNumLinks; ++l) {
    if (w.link_bytes[l] > 0 && hw.links[l].bytes_per_us <= 0)
      throw SimulationError("kernel '" + k.name + "' sends bytes over " +
                            std::string(kLinkNames[l]) + ", which hardware '" + hw.name +
                            "' does not have");
    m.link_bytes[l] = w.link_bytes[l];
    if (w.link_bytes[l] > 0)
      m.latency_us = std::max(m.latency_us, w.fixed_latency_us + hw.links[l].latency_us);
  }
  if (mode == LaunchMode::graph)
    m.latency_us = std::max(0.0, m.latency_us - hw.graph_kernel_saving_us);
  m.hbm_bytes = w.hbm_bytes;
  m.l2_bytes = w.l2_bytes;
  for (const auto& wr : w.writes) m.hbm_bytes += wr.bytes;
  return m;
}

int solo_resident_ctas(const Hardware& hw, const KernelModel& m) {
  if (m.grid <= 0) return 0;
  const std::int64_t room = std::int64_t(hw.sm_count) * m.occupancy;
  return static_cast<int>(std::min<std::int64_t>(m.max_resident, room));
}

std::array<double, kNumShared> shared_capacities(const Hardware& hw) {
  return {hw.hbm_bytes_per_us, hw.l2_bytes_per_us, hw.links[0].bytes_per_us,
          hw.links[1].bytes_per_us};
}

double rate_ceiling(const Hardware& hw, const KernelModel& m, int resident,
                    const std::array<double, kNumShared>& usage) {
  return std::min(sm_rate_ceiling(hw, m, resident, usage), link_rate_ceiling(hw, m, usage));
}

double link_rate_ceiling(const Hardware& hw, const KernelModel& m,
                         const std::array<double, kNumShared>& usage) {
  double cap = kInf;
  if (m.given) return cap;
  for (int l = 0; l < kNumLinks; ++l)
    if (usage[kNvlink + l] > 0) cap = std::min(cap, hw.links[l].bytes_per_us / usage[kNvlink + l]);
  return cap;
}

double sm_rate_ceiling(const Hardware& hw, const KernelModel& m, int resident,
                       const std::array<double, kNumShared>& usage) {
  if (m.given) {
    if (m.duration_us <= 0) return kInf;
    const double share = m.request_sms > 0 ? std::min(1.0, double(resident) / m.request_sms) : 1.0;
    return share / m.duration_us;
  }
  double cap = kInf;
  if (m.compute_us_one_sm > 0) {
    if (resident <= 0) return 0;
    // Each resident CTA runs at 1/ctas_per_sm of an SM; the last wave may leave CTAs idle.
    const double waves = std::ceil(m.units / resident);
    cap = std::min(cap, m.units / (waves * m.ctas_per_sm * m.compute_us_one_sm));
  }
  // CTAs worth few SMs cannot pull the whole bandwidth: it scales up to the saturation count.
  // Kernels that hold no SM (DMA, NIC transfers) are not limited this way.
  const double sm_equiv = double(resident) / m.ctas_per_sm;
  auto sm_fraction = [&](double saturation) {
    if (m.grid == 0) return 1.0;
    return std::min(1.0, sm_equiv / std::max(1.0, saturation));
  };
  if (usage[kHbm] > 0)
    cap = std::min(cap, hw.hbm_bytes_per_us * sm_fraction(hw.hbm_saturation_sms) / usage[kHbm]);
  if (usage[kL2] > 0)
    cap = std::min(cap, hw.l2_bytes_per_us * sm_fraction(hw.l2_saturation_sms) / usage[kL2]);
  return cap;
}

double SoloBreakdown::total_us() const {
  return latency_us + std::max({compute_us, hbm_us, l2_us, link_us, given_us});
}

const char* SoloBreakdown::bound() const {
  const double top = std::max({compute_us, hbm_us, l2_us, link_us, given_us});
  if (given_us > 0 && given_us >= top) return "given";
  if (latency_us >= top) return "latency";
  if (compute_us >= top) return "compute";
  if (hbm_us >= top) return "hbm";
  if (l2_us >= top) return "l2";
  return "link";
}

SoloBreakdown solo_breakdown(const Hardware& hw, const KernelSpec& k, LaunchMode mode) {
  const KernelModel m = make_kernel_model(hw, k, mode);
  SoloBreakdown b;
  b.ctas = solo_resident_ctas(hw, m);
  b.sms = std::min(b.ctas, hw.sm_count);  // a grid is spread one CTA per SM first
  b.waves = b.ctas > 0 ? static_cast<int>(std::ceil(m.units / b.ctas)) : 0;
  b.latency_us = m.latency_us;
  if (m.given) {
    b.given_us = m.duration_us;
    return b;
  }
  std::array<double, kNumShared> usage{m.hbm_bytes, m.l2_bytes, m.link_bytes[0], m.link_bytes[1]};
  for (const auto& r : k.work.reads) usage[kHbm] += r.bytes;  // alone: no tensor is resident
  auto time_with = [&](const KernelModel& model, const std::array<double, kNumShared>& only) {
    const double cap = rate_ceiling(hw, model, b.ctas, only);
    return std::isinf(cap) ? 0.0 : 1.0 / cap;
  };
  b.compute_us = m.compute_us_one_sm > 0 ? time_with(m, {0, 0, 0, 0}) : 0;
  KernelModel no_compute = m;
  no_compute.compute_us_one_sm = 0;
  auto bw_time = [&](int r) {
    std::array<double, kNumShared> only{};
    only[r] = usage[r];
    return only[r] > 0 ? time_with(no_compute, only) : 0.0;
  };
  b.hbm_us = bw_time(kHbm);
  b.l2_us = bw_time(kL2);
  b.link_us = std::max(bw_time(kNvlink), bw_time(kRdma));
  return b;
}

double solo_time_us(const Hardware& hw, const KernelSpec& k, LaunchMode mode) {
  return solo_breakdown(hw, k, mode).total_us();
}

}  // namespace ovs
