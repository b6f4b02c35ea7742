#include "calibrate/import/trace_whatif.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "app/analysis/whatif_json.hpp"
#include "calibrate/import/kernel_families.hpp"
#include "calibrate/import/trace_analysis.hpp"
#include "models/config/model_config.hpp"
#include "sim/core/error.hpp"

namespace ovs::trace {
namespace {

constexpr int kMaxPasses = 8;
constexpr double kConverged = 1e-3;    // |resimulated / measured - 1| of every group
constexpr double kScaleLimit = 50;     // a group's Work is scaled by at most this (or 1/this)
constexpr double kMaxResidual = 0.05;  // a group farther from its measured time: refused
// The anchored baseline forward against the trace's span per forward, beyond which the trace is
// refused (a no-overlap forward's kernels run one after another: little idle between them).
constexpr double kMaxSpanError = 0.25;
// Matching by name needs the names the trace holds to cover this share of the model's forward.
constexpr double kMinNamedShare = 0.8;

[[noreturn]] void refuse(const std::string& file, const std::string& why) {
  throw InputError(file, 0, "--whatif", why);
}

// The kernels of one GPU of the trace, its streams renumbered.
struct DeviceTrace {
  KinetoTrace trace;
  long long device = 0;
  int devices = 0;
};

DeviceTrace on_device(const KinetoTrace& in, long long want) {
  std::vector<long long> devices;
  for (const KernelEvent& k : in.kernels) {
    const long long d = in.streams[static_cast<size_t>(k.stream)].device;
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  }
  DeviceTrace out;
  out.devices = static_cast<int>(devices.size());
  out.device = want >= 0 ? want : devices.front();
  if (std::find(devices.begin(), devices.end(), out.device) == devices.end())
    throw flag_error("--device", fmt::format("the trace has no GPU {} (it has {})", want,
                                             fmt::join(devices, ", ")));
  KinetoTrace& t = out.trace;
  t = in;  // names, launches, device properties; the kernels and streams follow
  t.kernels.clear();
  t.streams.clear();
  std::vector<int> stream_map(in.streams.size(), -1);
  for (const KernelEvent& k : in.kernels) {
    const StreamKey& s = in.streams[static_cast<size_t>(k.stream)];
    if (s.device != out.device) continue;
    int& to = stream_map[static_cast<size_t>(k.stream)];
    if (to < 0) {
      to = static_cast<int>(t.streams.size());
      t.streams.push_back(s);
    }
    KernelEvent e = k;
    e.stream = to;
    t.kernels.push_back(e);
  }
  return out;
}

// Each kernel's time in a run, as the engine ran it.
class KernelTimes : public RunWatcher, public Observer {
 public:
  std::vector<double> us;
  Observer* watch(const Program& p, const std::string&) override {
    start_.assign(p.kernels.size(), 0.0);
    us.assign(p.kernels.size(), 0.0);
    return this;
  }
  void on_kernel_start(double t, int k, int, const KernelTraffic&) override {
    start_[static_cast<size_t>(k)] = t;
  }
  void on_kernel_end(double t, int k) override {
    us[static_cast<size_t>(k)] += t - start_[static_cast<size_t>(k)];
  }
  bool wants_counters() const override { return false; }
  bool wants_host() const override { return false; }

 private:
  std::vector<double> start_;
};

// Our kernel categories (models/cost/kernel_cost.hpp) for a trace's kernel family.
std::string category_of_family(std::string_view family) {
  if (is_communication_family(family)) return "comm";
  if (family == "gemm" || family == "attention") return std::string(family);
  return "memory";
}

bool same_numbers(const Work& a, const Work& b) {
  auto bytes = [](const std::vector<TensorAccess>& v) {
    double s = 0;
    for (const auto& t : v) s += t.bytes;
    return s;
  };
  return a.tensor_flops == b.tensor_flops && a.cuda_core_flops == b.cuda_core_flops &&
         a.hbm_bytes == b.hbm_bytes && a.l2_bytes == b.l2_bytes && a.link_bytes == b.link_bytes &&
         a.ctas == b.ctas && a.tiles == b.tiles && a.fixed_latency_us == b.fixed_latency_us &&
         bytes(a.reads) == bytes(b.reads) && bytes(a.writes) == bytes(b.writes);
}

// Every time the kernel's Work stands for, times f (its given duration, if it has one).
void scale_kernel(KernelSpec& k, double f) {
  if (k.duration_us)
    *k.duration_us *= f;
  else
    k.work.scale_time(f);
}

using KernelKey = std::pair<int, int>;  // layer, kernel_name_id(op, kernel)

KernelKey key_of(const KernelInfo& info) {
  return {info.layer, kernel_name_id(info.op, info.kernel)};
}

std::string group_name(const KernelInfo& info) {
  const std::string where = info.layer >= 0 ? fmt::format("L{}", info.layer) : "outside layers";
  return fmt::format("{} {}/{}", where, info.op, info.kernel);
}

// Scales each kernel of a built program by its group's scale and sorts the strategy's kernels by
// where their time comes from.
class Anchor : public ProgramAdjuster {
 public:
  bool by_name = true;
  std::map<KernelKey, int> group_of_key;             // by name
  std::map<std::string, int> group_of_category;      // by family
  std::map<KernelKey, std::vector<Work>> base_work;  // the baseline's kernels, unscaled
  std::vector<double> scale;                         // by group
  int kept = 0, rescaled = 0, model_only = 0;        // of the last program adjusted

  int group(const KernelInfo& info, const KernelSpec& k) const {
    if (by_name) {
      const auto it = group_of_key.find(key_of(info));
      return it == group_of_key.end() ? -1 : it->second;
    }
    if (k.data_in_flight()) return -1;
    const auto it = group_of_category.find(k.category);
    return it == group_of_category.end() ? -1 : it->second;
  }

  void adjust(BuiltProgram& b) override {
    kept = rescaled = model_only = 0;
    for (size_t i = 0; i < b.program.kernels.size(); ++i) {
      KernelSpec& k = b.program.kernels[i];
      const KernelInfo& info = b.info[i];
      k.work_class = -1;                 // kernels of one class may now differ
      if (k.data_in_flight()) continue;  // data in flight: the link's time, as modelled
      const int g = group(info, k);
      if (g < 0) {
        ++model_only;
        continue;
      }
      const auto base = base_work.find(key_of(info));
      const bool same = base != base_work.end() &&
                        std::any_of(base->second.begin(), base->second.end(),
                                    [&k](const Work& w) { return same_numbers(w, k.work); });
      ++(same ? kept : rescaled);
      scale_kernel(k, scale[static_cast<size_t>(g)]);
    }
    b.program.shape = ShapeToken();  // the numbers changed outside the builder
  }
};

// Share of the communication stream's busy time during which the compute stream runs a kernel.
double comm_beside_compute(const TraceStats& s) {
  if (s.communication < 0 || s.compute < 0) return 0;
  const double busy = s.streams[static_cast<size_t>(s.communication)].busy_us;
  if (busy <= 0) return 0;
  for (const PairOverlap& p : s.pairs)
    if ((p.a == s.compute && p.b == s.communication) ||
        (p.b == s.compute && p.a == s.communication))
      return p.overlap_us / busy;
  return 0;
}

}  // namespace

TraceWhatIfResult trace_whatif(const KinetoTrace& full, const TraceWhatIfRequest& r) {
  TraceWhatIfResult out;
  DeviceTrace dt = on_device(full, r.device);
  out.device = dt.device;
  out.devices = dt.devices;
  const TraceAnalysis a = analyze_trace(std::move(dt.trace));
  const KinetoTrace& t = a.trace;
  out.trace_kernels = static_cast<long long>(t.kernels.size());
  out.measured_span_us = a.stats.span_us;
  out.comm_beside_compute = comm_beside_compute(a.stats);
  if (out.comm_beside_compute > r.max_overlap)
    refuse(t.file,
           fmt::format("GPU {} already runs communication beside compute ({:.0f} % of the "
                       "communication stream's busy time, over the {:.0f} % allowed): --whatif "
                       "re-plans a no-overlap forward, whose kernels ran one after another",
                       out.device, 100 * out.comm_beside_compute, 100 * r.max_overlap));

  ModelConfig model = load_model_config(r.point.model);
  HwProfile hw = load_hw_profile(r.point.hw);
  require_kernel_params(hw);
  const ModelFamily family = model.family;
  const Strategy base_s =
      for_vendor(load_request_strategy(r.point.baseline, family, "baseline"), hw.vendor);
  const Strategy over_s =
      for_vendor(load_request_strategy(r.point.strategy, family, "strategy"), hw.vendor);
  WhatIfSession session(std::move(model), std::move(hw), r.point.workload);

  // The baseline as the model runs it, each kernel's time recorded.
  KernelTimes times;
  const StrategyRun& base = session.run(base_s, &times);
  const std::vector<double> model_us = times.us;
  const Program& bp = base.built.program;

  Anchor anchor;
  for (size_t k = 0; k < bp.kernels.size(); ++k)
    anchor.base_work[key_of(base.built.info[k])].push_back(bp.kernels[k].work);

  // Matching: by name and order when every name the baseline launches occurs as often in the
  // trace; else by family.
  std::map<std::string, std::vector<int>> trace_by_name;
  for (const int i : a.stats.start_order)
    trace_by_name[t.names[static_cast<size_t>(t.kernels[static_cast<size_t>(i)].name)]].push_back(
        i);
  // The baseline's kernels by name: their own ("q_b"), or qualified by layer and op as
  // `whatif --export-layers` names them ("A.L3.attn.prepare/q_b"), whichever the trace uses more.
  auto names_of = [&](bool qualified) {
    std::map<std::string, std::vector<int>> by;
    for (size_t k = 0; k < bp.kernels.size(); ++k) {
      if (bp.kernels[k].data_in_flight()) continue;
      const KernelInfo& i = base.built.info[k];
      by[qualified && i.layer >= 0 ? fmt::format("A.L{}.{}/{}", i.layer, i.op, i.kernel)
                                   : bp.kernels[k].name]
          .push_back(static_cast<int>(k));
    }
    return by;
  };
  auto hits = [&](const std::map<std::string, std::vector<int>>& by) {
    size_t n = 0;
    for (const auto& [name, ks] : trace_by_name) n += by.count(name) ? ks.size() : 0;
    return n;
  };
  std::map<std::string, std::vector<int>> base_by_name = names_of(false);
  if (auto qualified = names_of(true); hits(qualified) > hits(base_by_name))
    base_by_name = std::move(qualified);
  // By name: every name the baseline launches --forwards times as often in the trace, or not at
  // all (a trace of some layers: the rest keep the model's time) - the names it has holding most
  // of the model's forward.
  double named_us = 0, all_us = 0;  // the model's time of the names the trace holds, of all
  for (const auto& [name, ks] : base_by_name)
    for (const int k : ks) {
      all_us += model_us[static_cast<size_t>(k)];
      if (trace_by_name.count(name)) named_us += model_us[static_cast<size_t>(k)];
    }
  // Whether every name the trace holds occurs `times` times as often as in one forward.
  auto every_name = [&](size_t times) {
    return std::all_of(base_by_name.begin(), base_by_name.end(), [&](const auto& e) {
      const auto it = trace_by_name.find(e.first);
      return it == trace_by_name.end() || it->second.size() == times * e.second.size();
    });
  };
  anchor.by_name =
      every_name(static_cast<size_t>(r.forwards)) && named_us >= kMinNamedShare * all_us;
  // Every name k times as often as in one forward: the trace holds k forwards.
  if (!anchor.by_name && !base_by_name.empty()) {
    const auto first = trace_by_name.find(base_by_name.begin()->first);
    const size_t k = first == trace_by_name.end()
                         ? 0
                         : first->second.size() / base_by_name.begin()->second.size();
    if (k > 1 && every_name(k) && named_us >= kMinNamedShare * all_us)
      refuse(t.file, fmt::format("every kernel name of the model's forward occurs {} times: the "
                                 "trace holds {} forwards; give --forwards {}",
                                 k, k, k));
  }
  out.matching = anchor.by_name ? "name" : "family";
  std::vector<AnchorGroup>& groups = out.groups;
  auto group_for = [&](const std::string& name, const std::string& kernel, auto& index,
                       const auto& key) {
    const auto [it, fresh] = index.try_emplace(key, static_cast<int>(groups.size()));
    if (fresh) groups.push_back(AnchorGroup{name, kernel});
    return it->second;
  };
  // Per baseline kernel, its group (-1: not anchored).
  std::vector<int> group_of(bp.kernels.size(), -1);
  if (anchor.by_name) {
    int absent = 0;
    for (const auto& [name, ks] : base_by_name) {
      const auto found = trace_by_name.find(name);
      if (found == trace_by_name.end()) {
        absent += static_cast<int>(ks.size());
        continue;
      }
      // The j-th of a name in the trace is the (j mod n)-th in the forward: forwards repeat.
      const std::vector<int>& ts = found->second;
      for (size_t j = 0; j < ts.size(); ++j) {
        const size_t k = static_cast<size_t>(ks[j % ks.size()]);
        const KernelInfo& info = base.built.info[k];
        const int g = group_for(group_name(info), info.op + "/" + info.kernel, anchor.group_of_key,
                                key_of(info));
        group_of[k] = g;
        groups[static_cast<size_t>(g)].measured_us +=
            t.kernels[static_cast<size_t>(ts[j])].dur_us / r.forwards;
        ++out.matched_kernels;
      }
    }
    if (absent > 0)
      out.notes.push_back(fmt::format(
          "{} of the model's kernels ({:.1f} % of its forward) have names the trace does not "
          "hold (layers or kernels outside it): they keep the model's time",
          absent, 100 * (1 - named_us / all_us)));
    const long long unmatched = out.trace_kernels - out.matched_kernels;
    if (unmatched > 0)
      out.notes.push_back(fmt::format(
          "{} trace kernels have names the model does not launch; left out", unmatched));
  } else {
    for (const KernelEvent& e : t.kernels) {
      const std::string cat =
          category_of_family(kernel_family(t.names[static_cast<size_t>(e.name)]));
      const int g = group_for(cat, cat, anchor.group_of_category, cat);
      groups[static_cast<size_t>(g)].measured_us += e.dur_us / r.forwards;
      ++out.matched_kernels;
    }
    for (size_t k = 0; k < bp.kernels.size(); ++k) {
      if (bp.kernels[k].data_in_flight()) continue;
      const auto it = anchor.group_of_category.find(bp.kernels[k].category);
      if (it != anchor.group_of_category.end()) group_of[k] = it->second;
    }
    out.notes.push_back(
        "the trace's kernel names are not the model's: each family (GEMM, attention, "
        "communication, memory kernels) is anchored as a whole, over " +
        std::to_string(r.forwards) + " forward(s) (--forwards)");
    // A family that holds a real share of the model's forward must be in the trace.
    std::map<std::string, double> model_by_category;
    double model_total = 0;
    for (size_t k = 0; k < bp.kernels.size(); ++k)
      if (!bp.kernels[k].data_in_flight()) {
        model_by_category[bp.kernels[k].category] += model_us[k];
        model_total += model_us[k];
      }
    for (const auto& [category, us] : model_by_category)
      if (us > 0.05 * model_total && !anchor.group_of_category.count(category))
        refuse(t.file, fmt::format("the trace has no {} kernels, which take {:.0f} % of the "
                                   "model's forward at this point: it is not this point's "
                                   "forward, or its kernel names are not recognised",
                                   category, 100 * us / model_total));
  }
  for (size_t k = 0; k < bp.kernels.size(); ++k) {
    if (group_of[k] < 0) continue;
    AnchorGroup& g = groups[static_cast<size_t>(group_of[k])];
    g.model_us += model_us[k];
    ++g.kernels;
  }
  anchor.scale.assign(groups.size(), 1.0);
  auto clamp_scale = [](double s) { return std::clamp(s, 1 / kScaleLimit, kScaleLimit); };
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].measured_us > 0 && groups[g].model_us > 0)
      anchor.scale[g] = clamp_scale(groups[g].measured_us / groups[g].model_us);

  // The fixed point: the anchored baseline gives every group its measured time.
  session.set_adjuster(&anchor);
  double anchored_forward_us = 0;
  for (out.passes = 1; out.passes <= kMaxPasses; ++out.passes) {
    anchored_forward_us = session.run(base_s, &times).stats.total_us;
    for (auto& g : groups) g.resimulated_us = 0;
    for (size_t k = 0; k < group_of.size(); ++k)
      if (group_of[k] >= 0) groups[static_cast<size_t>(group_of[k])].resimulated_us += times.us[k];
    out.max_residual = 0;
    for (const auto& g : groups)
      if (g.measured_us > 0 && g.resimulated_us > 0)
        out.max_residual =
            std::max(out.max_residual, std::fabs(g.resimulated_us / g.measured_us - 1));
    if (out.max_residual <= kConverged || out.passes == kMaxPasses) break;
    for (size_t g = 0; g < groups.size(); ++g)
      if (groups[g].measured_us > 0 && groups[g].resimulated_us > 0)
        anchor.scale[g] =
            clamp_scale(anchor.scale[g] * groups[g].measured_us / groups[g].resimulated_us);
  }
  for (size_t g = 0; g < groups.size(); ++g) groups[g].scale = anchor.scale[g];
  // What anchoring cannot reach is not this point's no-overlap forward: refuse it rather than
  // answer from it.
  for (const auto& g : groups) {
    const bool clamped = g.scale <= 1 / kScaleLimit || g.scale >= kScaleLimit;
    if (g.measured_us > 0 &&
        (clamped || std::fabs(g.resimulated_us / g.measured_us - 1) > kMaxResidual))
      refuse(t.file,
             fmt::format("the model's baseline cannot reproduce the trace: '{}' measures {:.1f} us "
                         "per forward, the model {:.1f} us, and after {} pass(es) scaling its work "
                         "by {:.3g} gives {:.1f} us; is the trace a no-overlap forward of this "
                         "point (--phase, --tokens-per-gpu, --context, --ep, --forwards)?",
                         g.name, g.measured_us, g.model_us, out.passes, g.scale, g.resimulated_us));
  }
  const double span_per_forward = out.measured_span_us / r.forwards;
  if (std::fabs(anchored_forward_us / span_per_forward - 1) > kMaxSpanError)
    refuse(t.file,
           fmt::format("its kernels, anchored, give a {:.3f} ms no-overlap forward, but the trace "
                       "spans {:.3f} ms per forward ({} forward(s)): it overlaps already (one "
                       "stream), holds another strategy, batch or model, or long idle gaps; cut "
                       "it to whole no-overlap forwards and give --forwards",
                       anchored_forward_us / 1000, span_per_forward / 1000, r.forwards));
  for (const auto& g : groups)
    if (g.model_us > 0 && g.measured_us <= 0)
      out.notes.push_back("'" + g.name + "': the trace has no time for it; the model's kept");

  out.anchored = session.compare(base_s, over_s, r.watch);
  out.kept = anchor.kept;
  out.rescaled = anchor.rescaled;
  out.model_only = anchor.model_only;
  session.set_adjuster(nullptr);
  out.model = session.compare(base_s, over_s, nullptr);
  std::sort(groups.begin(), groups.end(), [](const AnchorGroup& x, const AnchorGroup& y) {
    return x.measured_us != y.measured_us ? x.measured_us > y.measured_us : x.name < y.name;
  });
  return out;
}

void write_trace_whatif_table(std::ostream& out, const TraceWhatIfResult& r) {
  constexpr double ms = 1e-3;
  const WhatIfResult& w = r.anchored;
  out << fmt::format(
      "trace      GPU {} (of {}): {} kernels, {:.3f} ms from the first kernel's start to the "
      "last's end; communication beside compute {:.1f} % of its time\n",
      r.device, r.devices, r.trace_kernels, r.measured_span_us * ms, 100 * r.comm_beside_compute);
  out << fmt::format(
      "matching   by {}: {} of {} trace kernels matched to the model's '{}' forward\n", r.matching,
      r.matched_kernels, r.trace_kernels, w.baseline.strategy);
  out << fmt::format(
      "anchoring  {} pass(es): the baseline re-simulated gives each of {} groups its measured "
      "time within {:.2f} %\n",
      r.passes, r.groups.size(), 100 * r.max_residual);
  out << fmt::format(
      "kernels    of '{}': {} kept (measured time), {} rescaled (shape changed: the model's time "
      "for it x measured/model of the whole), {} model only\n",
      w.overlapped.strategy, r.kept, r.rescaled, r.model_only);
  for (const auto& n : r.notes) out << "note       " << n << "\n";
  out << "\nfrom the measured kernels:\n";
  write_whatif_table(out, w);
  out << fmt::format(
      "\nthe model alone (no trace): '{}' {:.3f} ms, '{}' {:.3f} ms, speedup {:.3f}; with the "
      "trace: {:.3f} ms, {:.3f} ms, speedup {:.3f}\n",
      r.model.baseline.strategy, r.model.baseline.total_us * ms, r.model.overlapped.strategy,
      r.model.overlapped.total_us * ms, r.model.speedup, w.baseline.total_us * ms,
      w.overlapped.total_us * ms, w.speedup);
  // The groups of one op/kernel in every layer together (JSON has each layer's).
  struct Row {
    std::string name;
    int kernels = 0;
    double measured_us = 0, model_us = 0;
  };
  std::vector<Row> rows;
  for (const AnchorGroup& g : r.groups) {
    auto it =
        std::find_if(rows.begin(), rows.end(), [&](const Row& x) { return x.name == g.kernel; });
    if (it == rows.end()) it = rows.insert(rows.end(), Row{g.kernel});
    it->kernels += g.kernels;
    it->measured_us += g.measured_us;
    it->model_us += g.model_us;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& x, const Row& y) { return x.measured_us > y.measured_us; });
  if (!rows.empty())
    out << "\nmeasured kernels against the model (per forward, every layer together):\n"
        << fmt::format("  {:<36} {:>8} {:>12} {:>12} {:>9}\n", "kernel", "kernels", "measured_ms",
                       "model_ms", "ratio");
  for (size_t i = 0; i < std::min<size_t>(rows.size(), 8); ++i) {
    const Row& x = rows[i];
    out << fmt::format("  {:<36} {:>8} {:>12.3f} {:>12.3f} {:>9.3f}\n", x.name, x.kernels,
                       x.measured_us * ms, x.model_us * ms,
                       x.model_us > 0 ? x.measured_us / x.model_us : 0.0);
  }
  if (rows.size() > 8)
    out << fmt::format("  ... {} more (--json has every group)\n", rows.size() - 8);
}

void write_trace_whatif_json(std::ostream& out, const TraceWhatIfResult& r) {
  nlohmann::ordered_json j;
  j["trace"] = {{"device", r.device},
                {"devices", r.devices},
                {"kernels", r.trace_kernels},
                {"measured_span_us", r.measured_span_us},
                {"comm_beside_compute", r.comm_beside_compute}};
  j["matching"] = {{"by", r.matching}, {"matched_kernels", r.matched_kernels}};
  j["anchoring"] = {{"passes", r.passes}, {"max_residual", r.max_residual}};
  j["kernels"] = {{"kept", r.kept}, {"rescaled", r.rescaled}, {"model_only", r.model_only}};
  auto& groups = j["groups"] = nlohmann::ordered_json::array();
  for (const auto& g : r.groups)
    groups.push_back({{"name", g.name},
                      {"kernels", g.kernels},
                      {"measured_us", g.measured_us},
                      {"model_us", g.model_us},
                      {"resimulated_us", g.resimulated_us},
                      {"scale", g.scale}});
  j["notes"] = r.notes;
  j["anchored"] = whatif_json(r.anchored);
  j["model"] = whatif_json(r.model);
  out << j.dump(2) << "\n";
}

}  // namespace ovs::trace
