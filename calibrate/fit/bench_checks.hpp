#pragma once
// What the microbenchmarks say about the engine beyond the fitted parameters: predictions of
// the (fitted) profile through the engine, compared with measurements that were not fitted.
// Nothing here changes the profile.
//   l2 beyond     l2.csv sweep rows above half the L2: resident while the working set fits in
//                 L2, then DRAM bandwidth (the engine's L2 model)
//   l2 reuse      l2.csv reuse pairs: a working set read twice in a row, the second read served
//                 from L2 by the engine's L2 tracker while it fits
//   launch pace   launch.csv eager_unqueued and graph rows: 256 launches through the engine's
//                 host thread (launch cost) and stream (kernel_min_us per kernel)
//   concurrency   concurrency.csv pairs: each workload alone and both on two streams through
//                 ovs::Engine (SM hand-out, max-min bandwidth sharing); no interference
//                 coefficient is fitted: the residuals say how far the sharing model is off
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/fit/bench_csv.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

struct CheckRow {
  int line = 0;
  std::string label;
  double measured_us = 0;
  double predicted_us = 0;
  double error() const { return (predicted_us - measured_us) / measured_us; }
};

struct PairCheck {
  int line = 0;
  std::string pair;
  // measured, predicted
  double alone_a[2]{}, alone_b[2]{}, together[2]{}, a_done[2]{}, b_done[2]{};
  // (alone_a + alone_b - together) / min(alone_a, alone_b): 1 the shorter one fully hidden,
  // 0 serial, negative slower than serial
  double overlap_efficiency(int i) const;
};

struct BenchChecks {
  std::vector<std::pair<std::string, std::vector<CheckRow>>> tables;
  std::vector<PairCheck> pairs;
  std::vector<std::string> notes;  // skipped workloads, the concurrency verdict
};

BenchChecks bench_checks(const HwProfile& hw, const BenchData& d);
void print_bench_checks(std::ostream& out, const BenchChecks& c);

}  // namespace ovs
