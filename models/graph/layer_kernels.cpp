#include "models/graph/layer_kernels.hpp"

namespace ovs::layer {

OpKernel named(const std::string& name, KernelCost c) {
  c.name = name;
  return OpKernel{name, std::move(c), false};
}

OpKernel gemm(const HwProfile& hw, const std::string& name, std::int64_t m, std::int64_t n,
              std::int64_t k, Dtype d, const std::string& a, const std::string& b,
              const std::string& c, int groups, GemmLayout layout, double b_value_bytes,
              double out_bytes) {
  GemmShape s;
  s.m = std::max<std::int64_t>(m, 1);
  s.n = n;
  s.k = k;
  s.dtype = d;
  s.groups = groups;
  s.layout = layout;
  s.a_tensor = a;
  s.b_tensor = b;
  s.c_tensor = c;
  s.b_value_bytes = b_value_bytes;
  s.out_bytes = out_bytes;
  OpKernel out{name, gemm_cost_named(hw, s, name), false};
  out.deep_gemm = d != Dtype::bf16;
  return out;
}

Dtype compute_dtype(const HwProfile& hw, Dtype stored, double* b_value_bytes) {
  *b_value_bytes = 0;
  if (stored != Dtype::fp4) return stored;
  if (hw.peak_per_sm(Dtype::fp4) > 0 &&
      hw.kernels.gemm.efficiency[static_cast<int>(Dtype::fp4)] > 0)
    return Dtype::fp4;
  *b_value_bytes = 0.5;
  return Dtype::fp8;
}

OpKernel attention(const HwProfile& hw, const std::string& name, AttentionShape base,
                   const MicroBatch& mb, std::int64_t (*keys_of)(const Segment&, const void*),
                   const void* ctx) {
  std::vector<KernelCost> parts;
  for (const auto& seg : mb.segments) {
    AttentionShape s = base;
    s.batch = seg.count;
    s.q_len = seg.q_len;
    s.kv_len = std::max<std::int64_t>(seg.kv_len, 1);
    if (keys_of) s.topk = std::max<std::int64_t>(1, keys_of(seg, ctx));
    parts.push_back(attention_cost(hw, s));
  }
  return named(name, merge_costs(parts, name, hw.engine.sm_count));
}

}  // namespace ovs::layer
