#pragma once
// Kernel families: a small rule table that groups kernel names by what they do. The first rule
// whose substring occurs in the name wins (case-sensitive), so the order matters:
//
//   deepep       "deep_ep", "deepep", "dpsk::ep::", "internode", "intranode"   (communication)
//   nccl         "nccl"                                                         (communication)
//   attention    "flash", "fmha"
//   cast         "cast", "transpose", "quant"   (FP8 (de)quantisation and layout copies; before
//                                                gemm, which owns the namespaces they live in)
//   gemm         "gemm", "Gemm", "GEMM", "sm90_xmma", "cublas", "cutlass"
//   norm         "norm"                         (layer_norm, rms_norm; not "Normal")
//   elementwise  "elementwise", "vectorized", "unrolled"
//   other        everything else
#include <string>
#include <string_view>
#include <vector>

namespace ovs::trace {

std::string_view kernel_family(std::string_view kernel_name);

// Whether a family is communication (its kernels move data between GPUs).
bool is_communication_family(std::string_view family);

// Every family name, in rule order ("other" last).
const std::vector<std::string_view>& kernel_family_names();

}  // namespace ovs::trace
