#pragma once
// One MoE layer of a simulated run by kernel category, as SGLang's large-scale EP report draws
// its profiles (../shared/data/sglang_h100_layer_breakdown.md): the DeepEP kernels' own time
// (core) and their wait for the other ranks (barrier), grouped expert GEMMs (MoE), the other
// GEMMs, the attention kernel, every other kernel, the gaps between kernels (launch overhead),
// and the time each stream sits idle inside the layer (bubble). Milliseconds per MoE layer, the
// mean over the steady-state MoE layers of the run (the layers program_stats averages).
#include <map>
#include <string>

#include "app/analysis/whatif.hpp"

namespace ovs {

// The categories, in the report's words.
inline constexpr const char* kBreakdownCategories[] = {"Overall",
                                                       "Dispatch Core",
                                                       "Dispatch Barrier",
                                                       "Combine Core",
                                                       "Combine Barrier",
                                                       "MoE",
                                                       "GEMM",
                                                       "Attention Core",
                                                       "Other Kernels",
                                                       "Launch Overhead",
                                                       "Comp Stream Bubble",
                                                       "Comm Stream Bubble"};

struct LayerBreakdown {
  // ms per MoE layer by category; "Dispatch" and "Combine" are core + barrier (the report's
  // decode chart names them so).
  std::map<std::string, double> in_run_ms;
  // The same kernels each alone (their solo time, no gaps or bubbles): what unit tests time.
  std::map<std::string, double> alone_ms;
  int layers = 0;  // MoE layers averaged
};

// The category of one kernel of a built program (by its op, kernel name and cost model).
std::string breakdown_category(const KernelInfo& info, const KernelSpec& spec);

LayerBreakdown layer_breakdown(const StrategyRun& run, const HwProfile& hw, int first_moe_layer,
                               int layers);

}  // namespace ovs
