// The shipped h200-sxm profile against overlapsim's own microbenchmarks measured on a real
// NVIDIA H200 (calibrate/data/nvidia-h200-20261204T150532Z and ...T150627Z: two runs of
// `bash calibrate/run-on-gpu.sh`, 2026-12-04, driver 580.159.04, CUDA 13.0; the folders hold
// the CSVs, nvidia-smi -q and the script's own fit and validate reports).
//
// Which rows informed the profile (in-sample) and which did not (held back):
// - In-sample: run 1's hbm, l2 (working set up to half the L2), launch `graph`, `event_record` /
//   `stream_wait_event` and the eager GPU pace (kernel_min): the profile's hbm.achievable_gbps,
//   hbm.saturation_sms, l2.achievable_gbps, host.launch_graph_us, host.event_us,
//   kernels.memory.kernel_min_us and host.graph_kernel_saving_us (a graph node's GPU time
//   against the same kernel queued on a stream, both kernels) were fitted to them
//   (`overlapsim calibrate --bench <run 1> --only ...`).
// - Held back: runs 2 and 3 (the same rows measured again a minute later on the same machine,
//   and half an hour later on another: repeats, not new shapes; run 3 also has three pairs of
//   co-resident kernels that runs 1 and 2 did not measure);
//   every GEMM row of both runs (the profile's GEMM numbers are DeepGEMM's, fitted on H800:
//   3,402 cuBLASLt rows never informed them); every concurrency pair of both runs (no
//   concurrency parameter was fitted); the eager host launch cost (the profile keeps the
//   published 2.5 us; these runs measured 4.0-5.3 us on a virtual machine's host).
//
// Each bound is the accuracy reached on 2026-12-04 plus a margin for the run-to-run spread of
// the two runs, stated where it is checked; a model change that makes a family worse fails.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "helpers.hpp"

using namespace ovs::test;

namespace {

const char* kRuns[] = {"calibrate/data/nvidia-h200-20261204T150532Z",
                       "calibrate/data/nvidia-h200-20261204T150627Z",
                       "calibrate/data/nvidia-h200-20261204T153324Z"};
// Run 3 (15:33 UTC, a fresh device machine) added three pairs whose CTAs share every SM.
const char* kCoResidentRun = "calibrate/data/nvidia-h200-20261204T153324Z";

nlohmann::json validate_run(const std::string& rel) {
  const CliResult r = cli({"validate", source_path(rel), "--hw", "h200-sxm", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

std::map<std::string, nlohmann::json> pairs_of(const nlohmann::json& v) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& p : v.at("concurrency")) out[p.at("pair").get<std::string>()] = p;
  return out;
}

double together_error(const nlohmann::json& p) {
  const double m = p.at("together_us").at("measured").get<double>();
  const double q = p.at("together_us").at("predicted").get<double>();
  return (q - m) / m;
}

}  // namespace

TEST_CASE("H200 measurements: fitted families stay within their fit, in-sample and repeated") {
  // MAPE after the fit on run 1: hbm 15.0 %, l2 11.5 %, launch_graph 0.0 %, launch_event 2.8 %,
  // kernel_min 10.4 %; run 2 (held back) 15.0 / 11.5 / 0.0 / 11.1 / 12.3 %; run 3 15.1 / 11.6 /
  // 0.2 / 121 / 9.8 %. graph_kernel (0.79 us saved per kernel in a graph): 1.0 / 5.2 / 1.2 %.
  // Bounds: those plus 2 points (launch_event: 13 %, kernel_min: 14 %, graph_kernel: 7.5 %).
  // Event calls are host time: run 3's machine made them in 0.17-0.18 us against 0.36-0.41 us
  // (runs 1 and 2), so the host's speed, not the GPU's, sets them; they are checked on the
  // machine the profile was fitted on only.
  const std::map<std::string, double> bound = {{"hbm", 0.17},          {"l2", 0.135},
                                               {"launch_graph", 0.02}, {"launch_event", 0.13},
                                               {"kernel_min", 0.14},   {"graph_kernel", 0.075}};
  for (const char* run : kRuns) {
    const auto v = validate_run(run);
    CHECK(v.at("gpu").get<std::string>() == "NVIDIA H200");
    for (const auto& [family, max_mape] : bound) {
      if (family == "launch_event" && std::string(run) == kCoResidentRun) continue;
      INFO(run << " " << family);
      const auto& f = v.at("families").at(family);
      CHECK(f.at("rows").get<int>() >= 1);
      CHECK(f.at("mape").get<double>() <= max_mape);
    }
    // The HBM curve: 45 rows of read/write/copy on 1..132 SMs, the shape the engine uses for
    // every memory-bound kernel; fitted, it is unbiased within 5 % (-3.0 % / -3.1 %).
    CHECK(std::abs(v.at("families").at("hbm").at("bias").get<double>()) <= 0.05);
  }
}

TEST_CASE("H200 measurements: GEMMs the profile was not fitted to (held back)") {
  // 3,402 cuBLASLt rows (BF16 and per-tensor FP8, every linear layer of V3 and V4, M = 32..8192,
  // 7 SM targets) predicted with DeepGEMM's H800 numbers: MAPE 22.2 / 22.0 / 22.0 %, bias
  // -2.9 / -2.3 / -2.5 % on the three runs. Bound: MAPE 25 %, |bias| 8 %.
  for (const char* run : kRuns) {
    INFO(run);
    const auto v = validate_run(run);
    const auto& g = v.at("families").at("gemm");
    CHECK(g.at("rows").get<int>() == 3402);
    CHECK(g.at("mape").get<double>() <= 0.25);
    CHECK(std::abs(g.at("bias").get<double>()) <= 0.08);
  }
}

TEST_CASE("H200 measurements: two kernels on two streams, predicted by the engine (held back)") {
  for (const char* run : kRuns) {
    INFO(run);
    const auto pairs = pairs_of(validate_run(run));
    REQUIRE(pairs.size() == (std::string(run) == kCoResidentRun ? 10u : 7u));
    // Together time from the common start until both end, engine against measured. On
    // 2026-12-04 the worst pair was gemm+gemm (+23 %: the profile's BF16 GEMM alone is 645 us
    // against 520 us measured); the others within -5 % .. +15 %. Bound: 26 %.
    for (const auto& [name, p] : pairs) {
      INFO(name);
      CHECK(std::abs(together_error(p)) <= 0.26);
    }
    // Which pairs overlap at all, measured and predicted alike. Overlap efficiency is
    // (serial - together) / (serial - max(alone)): 1 = perfect overlap, 0 = serial.
    // - Two GEMMs, two full-grid copies, a GEMM then a copy: each takes every SM (and the
    //   copies the whole HBM); measured -0.02, 0.00 and 0.06, predicted 0.
    // - The 20-CTA persistent reader launched first, then the GEMM on what is left: measured
    //   0.57 (fixed20+gemm) and 0.60 (with the GEMM's SM target), predicted 0.85 and 1.0.
    for (const char* serial : {"gemm+gemm", "copy+copy", "gemm+copy"}) {
      INFO(serial);
      const auto& e = pairs.at(serial).at("overlap_efficiency");
      CHECK(e.at("measured").get<double>() < 0.15);
      CHECK(e.at("predicted").get<double>() < 0.15);
    }
    for (const char* overlapped : {"fixed20+gemm", "fixed20+gemm_smtarget"}) {
      INFO(overlapped);
      const auto& e = pairs.at(overlapped).at("overlap_efficiency");
      CHECK(e.at("measured").get<double>() > 0.4);
      CHECK(e.at("predicted").get<double>() > 0.4);
      // How much they overlap is over-predicted: measured, the reader ends 1.3x later beside
      // the GEMM than alone (620 us against 479 us) and the GEMM later still.
      CHECK(e.at("predicted").get<double>() - e.at("measured").get<double>() <= 0.45);
    }
  }
}

TEST_CASE("H200 measurements: co-resident CTAs share the SM as seed 2's rows say (held back)") {
  // Run 3's pairs whose CTAs share every SM (calibrate/bench/concurrency.cpp): an FP32 FMA kernel
  // (one CTA of 512 threads per SM) and a 1 GiB read (one CTA of 1024 threads per SM). The FMA
  // kernel's efficiency comes from its own time alone; what is tested is the sharing.
  const auto pairs = pairs_of(validate_run(kCoResidentRun));
  auto eff = [&](const char* pair, const char* which) {
    return pairs.at(pair).at("overlap_efficiency").at(which).get<double>();
  };
  // Two compute-bound kernels on the same SMs: no gain (measured 0.06: 591 + 592 us alone,
  // 1148 us together; predicted 0.15 with sm.issue_capacity 1).
  CHECK(eff("fma+fma", "measured") < 0.2);
  CHECK(eff("fma+fma", "predicted") < 0.2);
  // Two memory-bound kernels on different data: no gain (measured 0.07, predicted 0).
  CHECK(eff("half_read+half_read", "measured") < 0.2);
  CHECK(eff("half_read+half_read", "predicted") < 0.2);
  // Compute-bound beside memory-bound on the same SMs: a gain (measured 0.67: 674 us together
  // against 591 + 250 us alone). Predicted 1.0, too much: the FMA warps keep the SM's issue
  // busy and the read ran at about a third of its pace alone while they were resident, which
  // the engine's issue resource (FLOPs only) does not see.
  CHECK(eff("fma+half_read", "measured") > 0.5);
  CHECK(eff("fma+half_read", "predicted") > 0.5);
  CHECK(eff("fma+half_read", "predicted") - eff("fma+half_read", "measured") <= 0.4);
}
