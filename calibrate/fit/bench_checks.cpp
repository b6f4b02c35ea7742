#include "calibrate/fit/bench_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>

#include "calibrate/fit/bench_pairs.hpp"
#include "calibrate/fit/bench_rows.hpp"
#include "models/cost/gemm.hpp"
#include "models/cost/memory_kernels.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {

double PairCheck::overlap_efficiency(int i) const {
  return (alone_a[i] + alone_b[i] - together[i]) / std::min(alone_a[i], alone_b[i]);
}

namespace {

constexpr int kLaunchItems = 256;  // launch.csv: launches per repetition

void concurrency(const HwProfile& hw, const BenchData& d, BenchChecks& out) {
  const int sms = bench_sm_count(d, hw);
  for (const auto& row : d.concurrency) {
    const auto a = concurrency_workload(hw, row.a, sms, row.a_cta, row.alone_a_us),
               b = concurrency_workload(hw, row.b, sms, row.b_cta, row.alone_b_us);
    if (!a || !b) {
      out.notes.push_back(fmt::format("concurrency.csv:{}: pair {}: workload '{}' not modelled",
                                      row.line, row.pair, a ? row.b : row.a));
      continue;
    }
    PairCheck c;
    c.line = row.line;
    c.pair = row.pair;
    c.alone_a[0] = row.alone_a_us;
    c.alone_b[0] = row.alone_b_us;
    c.together[0] = row.together_us;
    c.a_done[0] = row.a_done_us;
    c.b_done[0] = row.b_done_us;
    c.alone_a[1] = run_streams(hw, {*a}, true).done_us[0];
    c.alone_b[1] = run_streams(hw, {*b}, true).done_us[0];
    const StreamRun both = run_streams(hw, {*a, *b}, true);
    c.a_done[1] = both.done_us[0];
    c.b_done[1] = both.done_us[1];
    c.together[1] = std::max(both.done_us[0], both.done_us[1]);
    out.pairs.push_back(c);
  }
  if (out.pairs.empty()) return;
  double bias = 0, eff_measured = 0, eff_predicted = 0;
  int over = 0, under = 0;
  for (const auto& p : out.pairs) {
    const double e = (p.together[1] - p.together[0]) / p.together[0];
    bias += e / out.pairs.size();
    over += e > 0.05;
    under += e < -0.05;
    eff_measured += p.overlap_efficiency(0) / out.pairs.size();
    eff_predicted += p.overlap_efficiency(1) / out.pairs.size();
  }
  const int n = static_cast<int>(out.pairs.size());
  std::string verdict;
  if (std::fabs(bias) > 0.10 && std::max(over, under) * 3 >= 2 * n) {
    verdict = fmt::format(
        "the engine systematically {} together times, by {:+.1f}% on average ({} of {} pairs "
        "off by more than 5% that way); overlap efficiency predicted {:.2f} against {:.2f} "
        "measured: its sharing model {} the interference of these pairs. No interference "
        "coefficient is fitted: the engine's physics would need a principled term for it",
        bias > 0 ? "over-predicts" : "under-predicts", 100 * bias, std::max(over, under), n,
        eff_predicted, eff_measured, bias > 0 ? "overstates" : "misses");
  } else {
    verdict = fmt::format(
        "together times within {:+.1f}% on average (no systematic bias over {} pairs); overlap "
        "efficiency predicted {:.2f} against {:.2f} measured",
        100 * bias, n, eff_predicted, eff_measured);
  }
  out.notes.push_back("concurrency: " + verdict);
}

void l2_reuse(const HwProfile& hw, const BenchData& d, std::vector<CheckRow>& rows) {
  const int sms = bench_sm_count(d, hw);
  std::map<double, std::pair<const L2BenchRow*, const L2BenchRow*>> pairs;
  for (const auto& r : d.l2) {
    if (r.test == "reuse_first") pairs[r.working_set_bytes].first = &r;
    if (r.test == "reuse_second") pairs[r.working_set_bytes].second = &r;
  }
  for (const auto& [ws, pr] : pairs) {
    if (!pr.first || !pr.second) continue;
    MemoryKernelShape s;
    s.name = "reuse";
    s.read_bytes = ws;
    s.read_tensor = "working_set";
    s.ctas = pr.first->ctas;
    KernelCost c = memory_kernel(hw, s);
    c.work.ctas_per_sm =
        std::max(1, static_cast<int>(std::llround(double(pr.first->ctas) / std::max(1, sms))));
    const StreamRun r = run_streams(hw, {{c, c}}, true);
    const double l2 = bench_l2_bytes(d, hw);
    rows.push_back({pr.first->line,
                    fmt::format("first read {:.1f} MiB ({:.2f} x L2)", ws / 1048576.0, ws / l2),
                    pr.first->time_us, r.kernel_durations[0][0]});
    rows.push_back({pr.second->line,
                    fmt::format("second read {:.1f} MiB ({:.2f} x L2)", ws / 1048576.0, ws / l2),
                    pr.second->time_us, r.kernel_durations[0][1]});
  }
}

void launch_pace(const HwProfile& hw, const BenchData& d, std::vector<CheckRow>& rows) {
  for (const auto& r : d.launch) {
    const bool unqueued = r.mode == "eager_unqueued", graph = r.mode == "graph";
    if ((!unqueued && !graph) || !r.gpu_us_per_item) continue;
    const std::vector<KernelCost> ks(kLaunchItems, launch_kernel_cost(hw, r.kernel));
    const StreamRun run =
        run_streams(hw, {ks}, false, graph ? LaunchMode::graph : LaunchMode::eager);
    rows.push_back({r.line, fmt::format("{} {} GPU us per kernel", r.mode, r.kernel),
                    *r.gpu_us_per_item, run.done_us[0] / kLaunchItems});
  }
}

}  // namespace

BenchChecks bench_checks(const HwProfile& hw, const BenchData& d) {
  BenchChecks out;
  std::vector<CheckRow> beyond;
  for (const auto& m : l2_measurements(d, hw))
    if (m.family == "l2_beyond")
      beyond.push_back({m.line, m.label, m.measured_us, m.predict_us(hw)});
  if (!beyond.empty()) out.tables.emplace_back("l2 beyond half the L2 (engine L2 model)", beyond);
  std::vector<CheckRow> reuse;
  l2_reuse(hw, d, reuse);
  if (!reuse.empty()) out.tables.emplace_back("l2 reuse (engine L2 tracker)", reuse);
  std::vector<CheckRow> pace;
  launch_pace(hw, d, pace);
  if (!pace.empty()) out.tables.emplace_back("launch pace (engine host thread)", pace);
  concurrency(hw, d, out);
  return out;
}

void print_bench_checks(std::ostream& out, const BenchChecks& c) {
  if (c.tables.empty() && c.pairs.empty() && c.notes.empty()) return;
  out << "checks (the fitted profile through the engine; nothing fitted):\n";
  for (const auto& [name, rows] : c.tables) {
    double mape = 0, bias = 0;
    for (const auto& r : rows) {
      mape += std::fabs(r.error()) / rows.size();
      bias += r.error() / rows.size();
    }
    out << fmt::format("  {}: {} row(s), MAPE {:.1f}%, bias {:+.1f}%\n", name, rows.size(),
                       100 * mape, 100 * bias);
    for (const auto& r : rows)
      out << fmt::format(
          "    line {:>4} {:<40} measured {:>10.2f} us  predicted {:>10.2f} us  "
          "{:+6.1f}%\n",
          r.line, r.label, r.measured_us, r.predicted_us, 100 * r.error());
  }
  if (!c.pairs.empty()) {
    out << "  concurrency (measured / predicted, us):\n";
    out << fmt::format("    {:<28} {:>19} {:>19} {:>19} {:>8} {:>11}\n", "pair", "alone a",
                       "alone b", "together", "error", "overlap eff");
    for (const auto& p : c.pairs)
      out << fmt::format(
          "    {:<28} {:>9.1f}/{:<9.1f} {:>9.1f}/{:<9.1f} {:>9.1f}/{:<9.1f} {:>+7.1f}% "
          "{:>5.2f}/{:<5.2f}\n",
          p.pair, p.alone_a[0], p.alone_a[1], p.alone_b[0], p.alone_b[1], p.together[0],
          p.together[1], 100 * (p.together[1] - p.together[0]) / p.together[0],
          p.overlap_efficiency(0), p.overlap_efficiency(1));
  }
  for (const auto& n : c.notes) out << "  " << n << "\n";
}

}  // namespace ovs
