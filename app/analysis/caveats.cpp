#include "app/analysis/caveats.hpp"

namespace ovs {

const std::vector<Caveat>& all_caveats() {
  static const std::vector<Caveat> all{
      {"normal-mode-small-batch",
       "DeepEP normal mode at small batches: its bandwidth is fitted to DeepEP's 4096-token "
       "tables, its fixed latency is not measured below that, so decode plans that switch to "
       "normal mode (which `search` may propose) are uncertain."},
      {"dp-attention",
       "DP attention is always on: tensor-parallel attention is not built, and no flag or sweep "
       "field turns DP attention off."},
      {"mi355x-fp8",
       "MI355X FP8 GEMM efficiency and per-tile overhead are fitted to three kernels of seed 2's "
       "timeline, read as serial durations (q_b comes out 34 % fast, wqkv_a within 1 %, the "
       "per-tile overhead at its 10 us bound: q_b's 18 % of peak against wqkv_a's 32 % is more "
       "than one per-tile cost explains); no other MI355X kernel is measured, so MI355X times "
       "away from those shapes are uncertain to about a factor of two."},
  };
  return all;
}

std::vector<Caveat> caveats_for(const Workload& w, const HwProfile& hw) {
  // DeepEP's normal-mode tables are measured at 4096 tokens per rank (BRIEF section 3).
  constexpr long long kDeepepNormalMeasuredTokens = 4096;
  std::vector<Caveat> out;
  for (const auto& c : all_caveats()) {
    if (c.key == "normal-mode-small-batch" && w.mode() == DeepepMode::normal &&
        w.tokens() < kDeepepNormalMeasuredTokens)
      out.push_back(c);
    if (c.key == "mi355x-fp8" && hw.arch == "cdna4") out.push_back(c);
  }
  return out;
}

}  // namespace ovs
