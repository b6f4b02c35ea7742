#include "sim/engine/kernel_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sim/engine/engine.hpp"

namespace ovs {

KernelModel make_kernel_model(const Hardware& hw, const KernelSpec& k) {
  KernelModel m;
  const Work& w = k.work;
  if (k.duration_us) {
    m.given = true;
    m.duration_us = *k.duration_us;
    m.request_sms = std::clamp(k.fixed_sms >= 0 ? k.fixed_sms : k.sms, 0, hw.sm_count);
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
  }
  if (w.cuda_core_flops > 0) {
    if (hw.cuda_core_flops_per_us_per_sm <= 0)
      throw SimulationError("kernel '" + k.name + "': CUDA-core FLOPs on hardware '" + hw.name +
                            "' without a CUDA-core peak");
    m.compute_us_one_sm +=
        w.cuda_core_flops / (hw.cuda_core_flops_per_us_per_sm * w.compute_efficiency);
  }
  m.ctas_per_sm = std::max(1, w.ctas_per_sm);
  m.units = static_cast<double>(w.tiles > 0 ? w.tiles : std::max<std::int64_t>(w.ctas, 1));
  if (k.fixed_sms >= 0) {
    m.request_sms = std::min(k.fixed_sms, hw.sm_count);
  } else {
    const std::int64_t want = (w.ctas + m.ctas_per_sm - 1) / m.ctas_per_sm;
    std::int64_t cap = hw.sm_count;
    if (k.sm_cap > 0) cap = std::min<std::int64_t>(cap, k.sm_cap);
    m.request_sms = static_cast<int>(std::clamp<std::int64_t>(want, 0, cap));
  }
  if (m.request_sms == 0 && m.compute_us_one_sm > 0)
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
  m.hbm_bytes = w.hbm_bytes;
  m.l2_bytes = w.l2_bytes;
  for (const auto& wr : w.writes) m.hbm_bytes += wr.bytes;
  return m;
}

std::array<double, kNumShared> shared_capacities(const Hardware& hw) {
  return {hw.hbm_bytes_per_us, hw.l2_bytes_per_us, hw.links[0].bytes_per_us,
          hw.links[1].bytes_per_us};
}

double rate_ceiling(const Hardware& hw, const KernelModel& m, int sms,
                    const std::array<double, kNumShared>& usage) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (m.given) {
    if (m.duration_us <= 0) return kInf;
    const double share = m.request_sms > 0 ? std::min(1.0, double(sms) / m.request_sms) : 1.0;
    return share / m.duration_us;
  }
  double cap = kInf;
  if (m.compute_us_one_sm > 0) {
    if (sms <= 0) return 0;
    const double slots = double(sms) * m.ctas_per_sm;
    const double waves = std::ceil(m.units / slots);
    cap = std::min(cap, m.units / (waves * m.ctas_per_sm * m.compute_us_one_sm));
  }
  // A kernel on few SMs cannot pull the whole bandwidth: it scales up to the saturation count.
  // Kernels that hold no SM (DMA, NIC transfers) are not limited this way.
  auto sm_fraction = [&](int saturation) {
    if (m.request_sms == 0) return 1.0;
    return std::min(1.0, double(sms) / std::max(1, saturation));
  };
  if (usage[kHbm] > 0)
    cap = std::min(cap, hw.hbm_bytes_per_us * sm_fraction(hw.hbm_saturation_sms) / usage[kHbm]);
  if (usage[kL2] > 0)
    cap = std::min(cap, hw.l2_bytes_per_us * sm_fraction(hw.l2_saturation_sms) / usage[kL2]);
  for (int l = 0; l < kNumLinks; ++l)
    if (usage[kNvlink + l] > 0) cap = std::min(cap, hw.links[l].bytes_per_us / usage[kNvlink + l]);
  return cap;
}

}  // namespace ovs

namespace ovs {

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

SoloBreakdown solo_breakdown(const Hardware& hw, const KernelSpec& k) {
  const KernelModel m = make_kernel_model(hw, k);
  SoloBreakdown b;
  b.sms = m.request_sms;
  b.latency_us = m.latency_us;
  if (m.given) {
    b.given_us = m.duration_us;
    return b;
  }
  std::array<double, kNumShared> usage{m.hbm_bytes, m.l2_bytes, m.link_bytes[0], m.link_bytes[1]};
  for (const auto& r : k.work.reads) usage[kHbm] += r.bytes;  // alone: no tensor is resident
  auto time_with = [&](std::array<double, kNumShared> only) {
    const double cap = rate_ceiling(hw, m, b.sms, only);
    return std::isinf(cap) ? 0.0 : 1.0 / cap;
  };
  b.compute_us = m.compute_us_one_sm > 0 ? time_with({0, 0, 0, 0}) : 0;
  KernelModel no_compute = m;
  no_compute.compute_us_one_sm = 0;
  auto bw_time = [&](int r) {
    std::array<double, kNumShared> only{};
    only[r] = usage[r];
    if (only[r] <= 0) return 0.0;
    const double cap = rate_ceiling(hw, no_compute, b.sms, only);
    return 1.0 / cap;
  };
  b.hbm_us = bw_time(kHbm);
  b.l2_us = bw_time(kL2);
  b.link_us = std::max(bw_time(kNvlink), bw_time(kRdma));
  return b;
}

}  // namespace ovs
