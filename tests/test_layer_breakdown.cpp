// validate on layer breakdowns: SGLang's large-scale EP report (lmsys.org, 2025-05-05), one
// DeepSeek-V3 MoE layer on H100 by kernel category, in the project's copy with its settings
// (calibrate/published/sglang_h100_layer_breakdown.csv). The bounds are stated per row group;
// a prediction outside its bound fails.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>

#include "app/analysis/breakdown_validation.hpp"
#include "helpers.hpp"
#include "sim/core/error.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

const BreakdownValidation& shipped() {
  static const BreakdownValidation v =
      validate_breakdown(source_path("calibrate/published/sglang_h100_layer_breakdown.csv"));
  return v;
}

const BreakdownRow& row(const std::string& series_prefix, const std::string& category) {
  for (const auto& r : shipped().rows)
    if (r.series.rfind(series_prefix, 0) == 0 && r.category == category) return r;
  FAIL("no row " << series_prefix << " / " << category);
  throw;
}

}  // namespace

TEST_CASE("layer breakdown: decode as SGLang runs it on 72 H100s, within 10 % per layer",
          "[validate][breakdown]") {
  // Held back (use: check): the whole layer of the default decode run (256 requests, context
  // 2000, EP72 with 32 redundant experts, TBO, CUDA graphs) and of the run with MTP's attention
  // (128 requests x 2 query tokens, 4000 KV).
  for (const char* series : {"decode, SGLang default", "decode, attention slowed"}) {
    const BreakdownRow& r = row(series, "Overall");
    INFO(series << ": measured " << r.measured_ms << " ms, predicted " << r.predicted_ms);
    CHECK(std::abs(r.error) <= 0.10);
  }
  // In-sample (use: fit): the DeepEP kernels of the default run, core and waits together.
  for (const char* category : {"Dispatch", "Combine"}) {
    const BreakdownRow& r = row("decode, SGLang default", category);
    INFO(category << ": measured " << r.measured_ms << " ms, predicted " << r.predicted_ms);
    CHECK(r.use == "fit");
    CHECK(std::abs(r.error) <= 0.20);
  }
}

TEST_CASE("layer breakdown: prefill on 32 H100s, overall within 10 % for both placements",
          "[validate][breakdown]") {
  // The two-batch-overlap prefill layer (16384 tokens per GPU of 4096-token prompts, EP32). With
  // the earliest rank's dispatch kept off the SMs by the attention it starts while it waits
  // (Work::peer_lead_us) and the hottest rank's load from the routing locality of the batch's
  // 128 prompts (moe.sequence_expert_cv), both layers are within the 10 % (README,
  // Validation: -2.3 % and -6.5 % on 2026-12-07).
  for (const char* series : {"prefill, SGLang default", "prefill, simulated perfect"}) {
    const BreakdownRow& r = row(series, "Overall");
    INFO(series << ": measured " << r.measured_ms << " ms, predicted " << r.predicted_ms);
    CHECK(std::abs(r.error) <= 0.10);
  }
  // The default placement's combine, its kernel and its wait together, within 20 %: the wait for
  // the hottest rank's experts is inside it.
  {
    const BreakdownRow& core = row("prefill, SGLang default", "Combine Core");
    const BreakdownRow& wait = row("prefill, SGLang default", "Combine Barrier");
    const double measured = core.measured_ms + wait.measured_ms;
    const double predicted = core.predicted_ms + wait.predicted_ms;
    INFO("default combine core + barrier: measured " << measured << " ms, predicted " << predicted);
    CHECK(std::abs(predicted / measured - 1) <= 0.20);
  }
  // The compute stream waits for the hottest rank under the default placement (the report: 11.3
  // ms idle per layer against 1.3 with a perfect placement): within the 2 ms.
  for (const char* series : {"prefill, SGLang default", "prefill, simulated perfect"}) {
    const BreakdownRow& r = row(series, "Comp Stream Bubble");
    INFO(series << " compute-stream bubble: " << r.measured_ms << " / " << r.predicted_ms);
    CHECK(std::abs(r.predicted_ms - r.measured_ms) <= 2.0);
  }
  // With the perfect placement each DeepEP exchange, its kernel and its wait together (the
  // issue's bound for communication categories), within 20 %.
  for (const char* op : {"Dispatch", "Combine"}) {
    const BreakdownRow& core = row("prefill, simulated perfect", std::string(op) + " Core");
    const BreakdownRow& wait = row("prefill, simulated perfect", std::string(op) + " Barrier");
    const double measured = core.measured_ms + wait.measured_ms;
    const double predicted = core.predicted_ms + wait.predicted_ms;
    INFO(op << " core + barrier: measured " << measured << " ms, predicted " << predicted);
    CHECK(std::abs(predicted / measured - 1) <= 0.20);
  }
  // A loaded DRAM does not slow a wire: the perfect placement's combine, bound by the RDMA link,
  // runs inside the layer 15.003 / 14.290 = 1.05x its unit test in the report; the model's
  // within 1.25x (it had 1.37x when the loaded latency lowered the link's rate too).
  {
    const double in_run = row("prefill, simulated perfect", "Combine Core").predicted_ms;
    const double alone = row("prefill unit tests", "Combine Core").predicted_ms;
    INFO("combine in the layer " << in_run << " ms, alone " << alone << " ms");
    CHECK(in_run / alone < 1.25);
    CHECK(in_run / alone >= 1.0);
  }
  // The perfect placement's layer is faster than the default's, in the model as measured.
  CHECK(row("prefill, simulated perfect", "Overall").predicted_ms <
        row("prefill, SGLang default", "Overall").predicted_ms);
  // The ranks' waits are there: each barrier row within a factor of two of the report's.
  for (const char* series : {"prefill, SGLang default", "prefill, simulated perfect"})
    for (const char* category : {"Dispatch Barrier", "Combine Barrier"}) {
      const BreakdownRow& r = row(series, category);
      INFO(series << " " << category << ": " << r.measured_ms << " / " << r.predicted_ms);
      CHECK(r.predicted_ms > 0.5 * r.measured_ms);
      CHECK(r.predicted_ms < 2.0 * r.measured_ms);
    }
}

TEST_CASE("layer breakdown: the unit-test rows are the kernels alone", "[validate][breakdown]") {
  // DeepEP's and DeepGEMM's unit tests time the kernels alone: the model's solo times of the
  // same kernels, within 20 % (DeepEP's two rows are in-sample: they fix H100's
  // normal_rdma_efficiency; DeepGEMM's grouped GEMM is held back, 8 % faster than the SGLang
  // team's unit test).
  for (const char* category : {"Dispatch Core", "Combine Core", "MoE"}) {
    const BreakdownRow& r = row("prefill unit tests", category);
    INFO(category << ": measured " << r.measured_ms << " predicted " << r.predicted_ms);
    CHECK(r.run == "alone");
    CHECK(std::abs(r.error) <= 0.20);
  }
}

TEST_CASE("layer breakdown: bad rows name file, line and column",
          "[validate][breakdown][bad-input]") {
  const auto path = scratch_path("breakdown", "bad.csv");
  const std::string header =
      "source,series,model,hw,phase,tokens_per_gpu,context,ep,redundant_experts,placement,"
      "strategy,attention_backend,run,category,measured_ms,use\n";
  const std::string good =
      "s,x,deepseek-v3,h100-sxm,decode,64,2000,8,0,eplb,tbo-decode,auto,in_run,Overall,1,check\n";
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(header + good);
  CHECK(validate_breakdown(path.string()).rows.size() == 1);
  write(header +
        "s,x,deepseek-v3,h100-sxm,decode,64,2000,8,0,eplb,tbo-decode,auto,in_run,"
        "Kernels,1,check\n");
  CHECK_THROWS_WITH(validate_breakdown(path.string()),
                    Catch::Contains(":2") && Catch::Contains("category"));
  write(header +
        "s,x,deepseek-v3,h100-sxm,decode,64,2000,8,0,eplb,tbo-decode,auto,in_run,"
        "Overall,1,maybe\n");
  CHECK_THROWS_WITH(validate_breakdown(path.string()), Catch::Contains("use"));
  write("source,series\ns,x\n");
  CHECK_THROWS_WITH(validate_breakdown(path.string()), Catch::Contains("missing column"));
  // Through the command: exit 2 and one line.
  write(header +
        "s,x,deepseek-v3,h100-sxm,decode,64,2000,8,0,eplb,tbo-decode,auto,in_run,"
        "Overall,-1,check\n");
  const CliResult r = cli({"validate", path.string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("measured_ms") != std::string::npos);
}
