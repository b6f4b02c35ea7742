#include "models/cost/kernel_cost.hpp"

#include <algorithm>

namespace ovs {

std::string to_string(KernelCategory c) {
  return std::string(category_name(c));
}

std::string_view category_name(KernelCategory c) {
  switch (c) {
    case KernelCategory::gemm:
      return "gemm";
    case KernelCategory::attention:
      return "attention";
    case KernelCategory::memory:
      return "memory";
    case KernelCategory::comm:
      return "comm";
  }
  return "memory";
}

KernelSpec KernelCost::spec(int stream) const {
  KernelSpec k;
  assign_to(k, stream);
  return k;
}

void KernelCost::assign_to(KernelSpec& k, int stream) const {
  // Every field, so that nothing of the kernel the storage held before is left.
  // (Three strings, a Work, an optional duration and seven ints with three ints' padding on LP64.)
  static_assert(sizeof(KernelSpec) == 3 * sizeof(std::string) + sizeof(Work) +
                                          sizeof(std::optional<double>) + 10 * sizeof(int),
                "KernelSpec has a new field: set it here");
  k.name = name;
  k.stream = stream;
  k.work = work;
  k.duration_us.reset();
  k.sms = 0;
  k.sm_cap = sm_cap;
  k.fixed_sms = fixed_sms;
  k.spin_on_event = -1;
  k.work_class = -1;
  k.op.clear();
  k.micro_batch = -1;
  k.category = category_name(category);
}

KernelCost merge_costs(const std::vector<KernelCost>& parts, const std::string& name,
                       int sm_count) {
  KernelCost out = parts.front();
  out.name = name;
  for (size_t i = 1; i < parts.size(); ++i) {
    const KernelCost& p = parts[i];
    Work& w = out.work;
    // Efficiencies differ little between parts of one kernel; weigh them by FLOPs.
    const double f0 = w.total_tensor_flops(), f1 = p.work.total_tensor_flops();
    if (f0 + f1 > 0)
      w.compute_efficiency =
          (w.compute_efficiency * f0 + p.work.compute_efficiency * f1) / (f0 + f1);
    for (int d = 0; d < kNumDtypes; ++d) w.tensor_flops[d] += p.work.tensor_flops[d];
    w.cuda_core_flops += p.work.cuda_core_flops;
    w.hbm_bytes += p.work.hbm_bytes;
    w.l2_bytes += p.work.l2_bytes;
    for (int l = 0; l < kNumLinks; ++l) w.link_bytes[l] += p.work.link_bytes[l];
    w.tiles = std::max<std::int64_t>(w.tiles, 0) + std::max<std::int64_t>(p.work.tiles, 0);
    w.ctas = std::min<std::int64_t>(w.ctas + p.work.ctas,
                                    std::max(sm_count, 1) * std::int64_t(w.ctas_per_sm));
    w.fixed_latency_us = std::max(w.fixed_latency_us, p.work.fixed_latency_us);
    w.reads.insert(w.reads.end(), p.work.reads.begin(), p.work.reads.end());
    w.writes.insert(w.writes.end(), p.work.writes.begin(), p.work.writes.end());
    out.useful_flops += p.useful_flops;
    out.logical_bytes += p.logical_bytes;
  }
  return out;
}

double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::bf16:
      return 2.0;
    case Dtype::fp8:
      return 1.0;
    case Dtype::fp4:
      return 0.5;
  }
  return 2.0;
}

}  // namespace ovs
