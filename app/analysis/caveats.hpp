#pragma once
// The README's "What is not modelled yet", item by item, so that a result that depends on one
// (a search pick, a plan's best point) carries it. tests/test_search_report.cpp checks that each
// text is in the README, word for word.
#include <string>
#include <vector>

#include "models/graph/workload.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct Caveat {
  std::string key;   // normal-mode-small-batch, mi355x-fp8, dp-attention
  std::string text;  // as the README says it
};

// Every caveat, in README order.
const std::vector<Caveat>& all_caveats();

// The caveats a run with this resolved workload on this GPU depends on: DeepEP normal mode below
// DeepEP's measured 4096 tokens, an MI355X FP8 GEMM.
std::vector<Caveat> caveats_for(const Workload& w, const HwProfile& hw);

}  // namespace ovs
