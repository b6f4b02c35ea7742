// FP4 routed experts: DeepSeek-V4 ships them, and DeepSeek-V3 with NVFP4 MoE
// (models/configs/deepseek-v3-nvfp4.yaml) is a public GB200 configuration. Blackwell runs them on
// its FP4 tensor cores; Hopper (H20) reads half a byte per weight and computes in FP8.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/analysis/whatif.hpp"
#include "helpers.hpp"
#include "models/graph/layer_kernels.hpp"
#include "models/memory/memory_model.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

constexpr int kFp8 = static_cast<int>(Dtype::fp8);
constexpr int kFp4 = static_cast<int>(Dtype::fp4);

// Tensor FLOPs by dtype of the routed experts' kernels in one forward.
std::array<double, kNumDtypes> expert_flops(const std::string& model, const std::string& hw) {
  Workload w = workload(Phase::decode, 64, 2000, 48);
  w.redundant_experts = 32;
  w.gpus_per_node = 0;
  const ModelConfig m = load_model_config(model);
  WhatIfSession session(m, load_hw_profile(hw), w);
  const StrategyRun& run = session.run(load_strategy("no-overlap", m.family));
  std::array<double, kNumDtypes> sum{};
  for (size_t i = 0; i < run.built.program.kernels.size(); ++i)
    if (run.built.info[i].op == "experts")
      for (int d = 0; d < kNumDtypes; ++d)
        sum[d] += run.built.program.kernels[i].work.tensor_flops[d];
  return sum;
}

double baseline_us(const std::string& model, const std::string& hw, const char* phase,
                   const char* tokens, const char* ep, const char* redundant) {
  const CliResult r = cli({"whatif", "--model", model, "--hw", hw, "--phase", phase,
                           "--tokens-per-gpu", tokens, "--context", "2000", "--ep", ep,
                           "--redundant-experts", redundant, "--strategy", "no-overlap", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out)["baseline_us"].get<double>();
}

}  // namespace

TEST_CASE("FP4 experts use FP4 tensor cores where the GPU has them, else FP8 on FP4 weights",
          "[fp4]") {
  double bytes = -1;
  CHECK(layer::compute_dtype(load_hw_profile("gb200"), Dtype::fp4, &bytes) == Dtype::fp4);
  CHECK(bytes == 0);  // the dtype's own half byte
  CHECK(layer::compute_dtype(load_hw_profile("b200"), Dtype::fp4, &bytes) == Dtype::fp4);
  CHECK(layer::compute_dtype(load_hw_profile("h20"), Dtype::fp4, &bytes) == Dtype::fp8);
  CHECK(bytes == 0.5);  // FP4 weights read as half a byte, multiplied in FP8
}

TEST_CASE("DeepSeek-V3 NVFP4: expert GEMMs on FP4 tensor cores on GB200, FP8 on H20", "[fp4]") {
  const auto fp8 = expert_flops("deepseek-v3", "gb200");
  const auto fp4 = expert_flops("deepseek-v3-nvfp4", "gb200");
  // (The FLOPs include each dtype's tile padding, so the two totals differ by the tiles chosen.)
  CHECK(fp8[kFp8] > 0);
  CHECK(fp8[kFp4] == 0);
  CHECK(fp4[kFp4] > 0);
  CHECK(fp4[kFp8] == 0);
  // On H20 (no FP4 tensor cores) the NVFP4 experts multiply in FP8.
  const auto h20 = expert_flops("deepseek-v3-nvfp4", "h20");
  CHECK(h20[kFp4] == 0);
  CHECK(h20[kFp8] > 0);
}

TEST_CASE("DeepSeek-V3 NVFP4 weights: half a byte per expert weight plus one E4M3 per 16",
          "[fp4][memory]") {
  Workload w;
  w.ep = 48;
  w.redundant_experts = 32;
  w.gpus_per_node = 72;
  auto routed = [&](const char* model) {
    for (const auto& t : weight_terms(load_model_config(model), w))
      if (t.name == "weights: routed experts") return t.bytes;
    FAIL("no routed-experts term");
    return 0.0;
  };
  // (256 + 32) / 48 = 6 experts per GPU, 61 - 3 = 58 MoE layers, 3 x 7168 x 2048 weights each.
  const double weights = 6.0 * 58 * 3 * 7168 * 2048;
  CHECK(routed("deepseek-v3-nvfp4") == Approx(weights * (0.5 + 1.0 / 16)));
  CHECK(routed("deepseek-v3") == Approx(weights * (1.0 + 4.0 / 16384)));
}

TEST_CASE("NVFP4 experts make a V3 forward faster on GB200, and no slower on H20",
          "[fp4][behaviour]") {
  // GB200: half the weight bytes and twice the tensor rate. H20: half the weight bytes, but its
  // decode expert GEMMs are compute-bound: each of the 16 local experts' few rows pay for a 64-row
  // tile, 16 x 64 x 4096 x 7168 x 2 = 60 GFLOP of gate/up, ~0.28 ms at 296 x 0.94 x 0.78 = ~217
  // effective FP8 TFLOPS, against ~0.14 ms for their 470 MB of FP8 weights at 3.3 TB/s. Fewer
  // bytes buy nothing there - the reason single-batch overlap was built on H20.
  CHECK(baseline_us("deepseek-v3-nvfp4", "gb200", "decode", "256", "48", "32") <
        baseline_us("deepseek-v3", "gb200", "decode", "256", "48", "32"));
  CHECK(baseline_us("deepseek-v3-nvfp4", "gb200", "prefill", "8192", "48", "32") <
        baseline_us("deepseek-v3", "gb200", "prefill", "8192", "48", "32"));
  CHECK(baseline_us("deepseek-v3-nvfp4", "h20", "decode", "32", "16", "0") <=
        baseline_us("deepseek-v3", "h20", "decode", "32", "16", "0"));
}

TEST_CASE("Blackwell FP4 GEMM efficiency is in the profiles with a source", "[fp4][profiles]") {
  for (const char* name : {"b200", "gb200"}) {
    INFO(name);
    const HwProfile p = load_hw_profile(name);
    CHECK(p.tensor_peak_tflops[kFp4] > 0);
    CHECK(p.kernels.gemm.efficiency[kFp4] > 0);
    bool sourced = false;
    for (const auto& f : p.fields)
      if (f.path == "kernels.gemm.efficiency.fp4") sourced = !f.source.empty();
    CHECK(sourced);
  }
}
