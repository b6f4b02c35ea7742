#pragma once
// What a cost model returns: one kernel's Work plus the labels the reports need. The engine
// turns the Work into time, alone (overlapsim kernel) or beside others (run, whatif).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/work.hpp"
#include "sim/engine/program.hpp"

namespace ovs {

// Which cost model priced a kernel; the engine and traces carry it as a label (to_string).
enum class KernelCategory { gemm, attention, memory, comm };
std::string to_string(KernelCategory c);
std::string_view category_name(KernelCategory c);

// The shape a GEMM kernel was priced for (the layer benchmark runs a GEMM of it; `groups` 0 for
// kernels that are not GEMMs).
struct GemmDims {
  std::int64_t m = 0;  // rows per group (masked: expected rows per group)
  std::int64_t n = 0;
  std::int64_t k = 0;
  int groups = 0;
  Dtype dtype = Dtype::bf16;
  int weight_read = -1;  // the weights' index in the Work's reads (-1: not a named tensor)
};

struct KernelCost {
  std::string name;
  KernelCategory category = KernelCategory::memory;
  Work work;
  int fixed_sms = -1;        // communication kernels: SMs held for the whole kernel
  int sm_cap = 0;            // compute kernels: at most this many SMs (0 = none)
  double useful_flops = 0;   // FLOPs of the math itself (no tile padding)
  double logical_bytes = 0;  // bytes as the library's own benchmark counts them
  int waves = 0;             // GEMM-like kernels: waves on the SMs the model planned for
  std::string detail;        // tile choice, routing... for the kernel command's table
  GemmDims gemm;             // GEMMs: the shape priced

  KernelSpec spec(int stream = 0) const;
  // Sets every field of `k` as spec(stream) would, reusing the storage of its strings and tensor
  // lists (a program built again in place).
  void assign_to(KernelSpec& k, int stream) const;
};

// One kernel doing the work of several (a varlen attention kernel over sequences of different
// lengths): FLOPs, bytes and tiles add up; the grid and the latency are the largest.
KernelCost merge_costs(const std::vector<KernelCost>& parts, const std::string& name, int sm_count);

// Bytes of one element of a dtype (FP4: half a byte).
double dtype_bytes(Dtype d);

}  // namespace ovs
