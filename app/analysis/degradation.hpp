#pragma once
// What splitting a batch costs, by cause: the names the verdict, the JSON and the sweep CSV's
// degradation_<cause>_us columns use, defined once.
#include <array>
#include <string_view>

namespace ovs {

enum class DegradationCause {
  weight_rereads,              // a GEMM bound by HBM or L2: the split reads its weights twice
  tile_and_wave_waste,         // a compute-bound GEMM: half the rows, the same tiles and waves
  sms_given_to_communication,  // a kernel held to fewer SMs than the GPU has (an SM cap)
  small_memory_bound_kernels,  // other kernels bound by memory
  attention_efficiency,        // attention kernels
  communication_latency,       // communication kernels
  fixed_kernel_latency,        // kernels bound by their fixed latency
  host_bound_gpu_idle,         // the GPU waiting on the host (launches, framework overhead)
  // Two micro-batches of unequal work (SGLang's split of mixed lengths): the overlap the same
  // halves evened out would hide and these do not (app/analysis/even_halves.hpp).
  micro_batch_imbalance,
};

// Every cause, in the sweep CSV's column order.
inline constexpr std::array<DegradationCause, 9> kDegradationCauses{
    DegradationCause::weight_rereads,
    DegradationCause::tile_and_wave_waste,
    DegradationCause::sms_given_to_communication,
    DegradationCause::small_memory_bound_kernels,
    DegradationCause::attention_efficiency,
    DegradationCause::communication_latency,
    DegradationCause::fixed_kernel_latency,
    DegradationCause::host_bound_gpu_idle,
    DegradationCause::micro_batch_imbalance};

// "weight re-reads", "tile and wave waste", ...: as the reports print it.
constexpr std::string_view cause_name(DegradationCause c) {
  switch (c) {
    case DegradationCause::weight_rereads:
      return "weight re-reads";
    case DegradationCause::tile_and_wave_waste:
      return "tile and wave waste";
    case DegradationCause::sms_given_to_communication:
      return "SMs given to communication";
    case DegradationCause::small_memory_bound_kernels:
      return "small memory-bound kernels";
    case DegradationCause::attention_efficiency:
      return "attention efficiency";
    case DegradationCause::communication_latency:
      return "communication latency";
    case DegradationCause::fixed_kernel_latency:
      return "fixed kernel latency";
    case DegradationCause::host_bound_gpu_idle:
      return "host-bound GPU idle";
    case DegradationCause::micro_batch_imbalance:
      return "micro-batch imbalance";
  }
  return "";
}

}  // namespace ovs
