#pragma once
// Small helpers the layer builders share: named GEMM kernels and attention over segments.
#include <string>
#include <vector>

#include "models/cost/attention.hpp"
#include "models/cost/gemm.hpp"
#include "models/graph/layer_builder.hpp"

namespace ovs::layer {

// A GEMM with named activation input, weight and output (for the engine's L2 tracker).
OpKernel gemm(const HwProfile& hw, const std::string& name, std::int64_t m, std::int64_t n,
              std::int64_t k, Dtype d, const std::string& a, const std::string& b,
              const std::string& c, int groups = 1, GemmLayout layout = GemmLayout::dense,
              double b_value_bytes = 0, double out_bytes = 2);

// Compute dtype for weights stored as `stored`: FP4 where the GPU has FP4 tensor cores, else FP8
// MMA on FP4 weights (half a byte per value).
Dtype compute_dtype(const HwProfile& hw, Dtype stored, double* b_value_bytes);

// Attention over every segment of a micro-batch, as one varlen kernel.
OpKernel attention(const HwProfile& hw, const std::string& name, AttentionShape base,
                   const MicroBatch& mb, std::int64_t (*keys_of)(const Segment&, const void*),
                   const void* ctx);

OpKernel named(const std::string& name, KernelCost c);

}  // namespace ovs::layer
