#pragma once
// Whether SGLang runs a strategy at a point, as its own code gates it - the one check that
// whatif, search, sweep and plan share. Outside the gate a result is a proposal: what the
// strategy would do, not what SGLang does (e.g. V4's multi-stream plan in a prefill, which
// SGLang takes only while a decode graph is captured, <= 64 tokens, 128 on Blackwell:
// ../shared/data/sglang_v4_platforms.md section 1).
#include <string>

#include "app/strategy/strategy.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

// The limits of the point itself (CUDA graphs, tokens per GPU, GPU arch); empty when SGLang can
// run the strategy here. The planner leaves such points out.
std::string sglang_limit(const Strategy& s, const Workload& w, const HwProfile& hw);

// Every reason SGLang would not run the strategy at this point, in one sentence: not shipped
// (a proposal, or not in SGLang), another phase, or the limits above; empty when it does. A
// strategy without an sglang: block (a user's own) is not judged.
std::string sglang_gate(const Strategy& s, const Workload& w, const HwProfile& hw);

// How whatif and search introduce a reason sglang_gate gives.
inline constexpr const char* kOutsideSglangWarning =
    "warning: a proposal, not SGLang's behaviour: ";

// "prefill" | "decode"
const char* phase_name(Phase p);

}  // namespace ovs
