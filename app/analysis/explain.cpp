#include "app/analysis/explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/core/intervals.hpp"
#include "sim/core/units.hpp"

namespace ovs {
namespace {

std::map<std::string, double> exposed_by_op(const BuiltProgram& b, const Timeline& tl) {
  std::vector<Interval> compute;
  const auto& ks = tl.kernels();
  for (size_t i = 0; i < ks.size(); ++i)
    if (!b.info[i].comm) compute.push_back({ks[i].start_us, ks[i].end_us});
  const IntervalUnion cover(std::move(compute));
  std::map<std::string, double> out;
  for (size_t i = 0; i < ks.size(); ++i)
    if (b.info[i].comm) out[b.info[i].op] += difference_us({ks[i].start_us, ks[i].end_us}, cover);
  return out;
}

// Integral of the counters over a set of windows.
struct Usage {
  double sms = 0, hbm = 0, nvlink = 0, rdma = 0, length = 0;
};
Usage integrate(const std::vector<CounterSample>& c, const IntervalUnion& windows, double end_us) {
  Usage u;
  for (const Interval& w : windows.intervals()) {
    u.length += w.length_us();
    for (size_t i = 0; i < c.size(); ++i) {
      const Interval sample{c[i].t_us, i + 1 < c.size() ? c[i + 1].t_us : end_us};
      const double us = overlap_us(w, sample);
      if (us <= 0) continue;
      u.sms += c[i].c.sms_busy * us;
      u.hbm += c[i].c.hbm_bytes_per_us * us;
      u.nvlink += c[i].c.link_bytes_per_us[0] * us;
      u.rdma += c[i].c.link_bytes_per_us[1] * us;
    }
  }
  return u;
}

}  // namespace

Explanation explain(const WhatIfRequest& req, RunWatcher* watch) {
  Explanation e;
  e.whatif = run_whatif(req, watch);
  const ModelConfig model = load_model_config(req.model);
  const HwProfile hw = load_hw_profile(req.hw);
  e.guesses = hw.guesses();
  const Strategy base_s = load_request_strategy(req.baseline, model.family, "baseline");
  const Strategy over_s = load_request_strategy(req.strategy, model.family, "strategy");
  WhatIfSession session(model, hw, req.workload);
  const LayerBuilder lb_base(model, hw, session.workload_for(base_s)),
      lb_over(model, hw, session.workload_for(over_s));
  const StrategyRun base = simulate_strategy(lb_base, base_s);
  const StrategyRun over = simulate_strategy(lb_over, over_s);
  e.critical_path = critical_path(over.built, *over.timeline, &e.critical_path_us);
  const auto eb = exposed_by_op(base.built, *base.timeline),
             eo = exposed_by_op(over.built, *over.timeline);
  for (const auto& [op, us] : eb) e.exposed_by_op[op].first = us;
  for (const auto& [op, us] : eo) e.exposed_by_op[op].second = us;
  // Utilization per stage of the MoE layers' lists.
  std::map<int, std::vector<Interval>> windows;
  const auto& ks = over.timeline->kernels();
  for (size_t i = 0; i < ks.size(); ++i)
    if (over.built.info[i].stage >= 0 && over.built.info[i].layer >= model.dense_layers)
      windows[over.built.info[i].stage].push_back({ks[i].start_us, ks[i].end_us});
  const LayerType first_type = lb_over.layer_type(model.layers - 1);
  const auto stages = stages_of(over_s.for_type(first_type));
  for (auto& [stage, w] : windows) {
    const Usage u = integrate(over.timeline->counters(), IntervalUnion(w), over.result.makespan_us);
    StageUse s;
    s.stage = stage;
    if (stage < static_cast<int>(stages.size()))
      for (const auto& op : stages[stage]) s.ops += (s.ops.empty() ? "" : ", ") + op;
    s.window_us = u.length;
    if (u.length > 0) {
      s.sms_busy = u.sms / u.length;
      s.hbm_gbps = units::bytes_per_us_to_gbps(u.hbm / u.length);
      s.nvlink_gbps = units::bytes_per_us_to_gbps(u.nvlink / u.length);
      s.rdma_gbps = units::bytes_per_us_to_gbps(u.rdma / u.length);
    }
    e.stages.push_back(s);
  }
  return e;
}

void write_explanation(std::ostream& out, const Explanation& e) {
  write_whatif_table(out, e.whatif);
  write_memory_breakdown(out, e.whatif);
  out << fmt::format("\nCritical path of '{}' ({:.0f} us), by op:\n", e.whatif.overlapped.strategy,
                     e.critical_path_us);
  for (const auto& p : e.critical_path)
    out << fmt::format("  {:<34} {:>11.1f} us {:>6.1f} %\n", p.what, p.us,
                       e.critical_path_us > 0 ? 100 * p.us / e.critical_path_us : 0.0);
  out << fmt::format(
      "\nCommunication exposed (no compute running), by op:\n  {:<34} {:>12} {:>12}\n", "",
      e.whatif.baseline.strategy, e.whatif.overlapped.strategy);
  for (const auto& [op, v] : e.exposed_by_op)
    out << fmt::format("  {:<34} {:>9.1f} us {:>9.1f} us\n", op, v.first, v.second);
  if (!e.stages.empty()) {
    out << "\nResource use per stage of the layer list (MoE layers, both micro-batches):\n";
    out << fmt::format("  {:>5} {:>11} {:>9} {:>9} {:>9} {:>9}  {}\n", "stage", "running us", "SMs",
                       "HBM GB/s", "NVL GB/s", "RDMA GB/s", "ops");
    for (const auto& s : e.stages)
      out << fmt::format("  {:>5} {:>11.0f} {:>9.1f} {:>9.0f} {:>9.1f} {:>9.1f}  {}\n", s.stage,
                         s.window_us, s.sms_busy, s.hbm_gbps, s.nvlink_gbps, s.rdma_gbps, s.ops);
  }
  if (!e.guesses.empty()) {
    out << fmt::format(
        "\nThese numbers of the hardware profile are still guesses (no measurement informs "
        "them yet):\n");
    for (const auto& g : e.guesses) out << "  " << g << "\n";
  }
}

void write_explanation_json(std::ostream& out, const Explanation& e) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["critical_path_us"] = e.critical_path_us;
  Json cp = Json::array();
  for (const auto& p : e.critical_path) cp.push_back({{"what", p.what}, {"us", p.us}});
  j["critical_path"] = cp;
  Json ex = Json::object();
  for (const auto& [op, v] : e.exposed_by_op)
    ex[op] = {{"baseline_us", v.first}, {"overlapped_us", v.second}};
  j["exposed_comm_by_op"] = ex;
  Json st = Json::array();
  for (const auto& s : e.stages)
    st.push_back({{"stage", s.stage},
                  {"ops", s.ops},
                  {"running_us", s.window_us},
                  {"sms_busy", s.sms_busy},
                  {"hbm_gbps", s.hbm_gbps},
                  {"nvlink_gbps", s.nvlink_gbps},
                  {"rdma_gbps", s.rdma_gbps}});
  j["stages"] = st;
  Json deg = Json::array();
  for (const auto& d : e.whatif.degradation)
    deg.push_back({{"cause", cause_name(d.cause)}, {"us", d.us}});
  j["degradation"] = deg;
  for (const auto* side : {&e.whatif.baseline, &e.whatif.overlapped}) {
    Json terms = Json::array();
    for (const auto& t : side->memory.terms)
      terms.push_back({{"term", t.name}, {"gb", t.bytes / units::kBytesPerGB}, {"how", t.how}});
    j[side == &e.whatif.baseline ? "baseline_memory" : "overlapped_memory"] = {
        {"total_gb", side->memory.total_bytes / units::kBytesPerGB},
        {"capacity_gb", side->memory.capacity_bytes / units::kBytesPerGB},
        {"fits", side->fits()},
        {"fits_limited_by", memory_limit_name(side->memory.limited_by)},
        {"tight", side->memory.tight},
        {"mem_fraction_static", side->memory.fraction},
        {"mem_fraction_static_how", side->memory.fraction_how},
        {"why", side->memory.limit_sentence()},
        {"terms", terms}};
  }
  j["verdict"] = e.whatif.verdict;
  j["profile_guesses"] = e.guesses;
  out << j.dump(2) << "\n";
}

}  // namespace ovs
