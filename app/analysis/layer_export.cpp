#include "app/analysis/layer_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {

namespace {

std::string micro_batch_label(int mb) {
  return mb == 1 ? "B" : "A";
}

// A name as one word of a plan line (no spaces, no '=').
std::string plan_word(std::string s) {
  for (char& c : s)
    if (c == ' ' || c == '\t' || c == '=') c = '_';
  return s;
}

// A YAML plain scalar when the name is one, else a double-quoted one.
std::string yaml_scalar(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_.-/+").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

int default_first_layer(const StrategyRun& run) {
  int lo = 1 << 30, hi = -1;
  for (const KernelInfo& k : run.built.info) {
    if (k.layer < 0 || !k.comm) continue;  // layers with DeepEP exchanges
    lo = std::min(lo, k.layer);
    hi = std::max(hi, k.layer);
  }
  if (hi < 0) {
    for (const KernelInfo& k : run.built.info) hi = std::max(hi, k.layer);
    lo = 0;
  }
  return std::max(0, (lo + hi) / 2);
}

// "name" of a tensor of layer `scope` (>= 0), unique across the window's layers.
std::string scoped(const TensorAccess& t) {
  return t.scope >= 0 ? fmt::format("L{}.{}", t.scope, t.tensor) : t.tensor;
}

// A kernel of the window program (its communication already stand-ins of category comm).
bench_plan::Kernel plan_kernel(const KernelSpec& k, const KernelInfo& info, int id) {
  bench_plan::Kernel out;
  out.id = id;
  out.stream = k.stream;
  out.name = plan_word(k.name);
  if (k.category == "comm") {
    out.kind = bench_plan::Kind::standin;
    out.duration_us = k.duration_us.value_or(0);
    out.sms = k.sms;
    return out;
  }
  const Work& w = k.work;
  out.tensor_flops = w.total_tensor_flops();
  out.cuda_core_flops = w.cuda_core_flops;
  out.read_bytes = w.hbm_bytes + w.l2_bytes;
  for (const TensorAccess& t : w.reads) out.read_bytes += t.bytes;
  for (const TensorAccess& t : w.writes) out.write_bytes += t.bytes;
  out.ctas = w.ctas;
  out.sm_cap = k.sm_cap;
  const GemmDims* g = info.source && info.source->gemm.groups > 0 ? &info.source->gemm : nullptr;
  if (g) {
    out.kind = bench_plan::Kind::gemm;
    out.m = std::max<std::int64_t>(g->m, 1);
    out.n = g->n;
    out.k = g->k;
    out.groups = g->groups;
    out.dtype = std::string(dtype_name(g->dtype));
    // The weights, layer-qualified (the Work's tensor names already are, in the window program).
    if (g->weight_read >= 0 && static_cast<size_t>(g->weight_read) < w.reads.size())
      out.weight = plan_word(w.reads[static_cast<size_t>(g->weight_read)].tensor);
  } else if (k.category == "attention") {
    out.kind = bench_plan::Kind::attention;
  } else {
    out.kind = bench_plan::Kind::memory;
  }
  return out;
}

}  // namespace

LayerExport export_layers(const StrategyRun& run, const HwProfile& hw,
                          const LayerExportRequest& r) {
  if (!run.timeline) throw std::logic_error("export_layers: the run kept no timeline");
  const Program& src = run.built.program;
  const std::vector<KernelInfo>& info = run.built.info;
  const int first = r.first_layer >= 0 ? r.first_layer : default_first_layer(run);
  const int last = first + std::max(1, r.layers) - 1;
  // The host actions from the first launch of a kernel of `first` to the last of `last`.
  int begin = -1, end = -1;
  for (size_t a = 0; a < src.actions.size(); ++a) {
    const auto* l = std::get_if<LaunchAction>(&src.actions[a].step);
    if (!l) continue;
    const int layer = info[static_cast<size_t>(l->kernel)].layer;
    if (layer == first && begin < 0) begin = static_cast<int>(a);
    if (layer == last) end = static_cast<int>(a);
  }
  if (begin < 0 || end < begin)
    throw flag_error("--export-first-layer",
                     fmt::format("the program has no kernels of layers {}..{}", first, last));

  LayerExport out;
  Program& p = out.program;
  p.streams = src.streams;
  p.launch_mode = src.launch_mode;
  std::map<int, int> event_id;  // source event -> window event, numbered by first record
  std::vector<int> window_kernel_source;
  for (int a = begin; a <= end; ++a) {
    const HostAction& act = src.actions[static_cast<size_t>(a)];
    if (const auto* l = std::get_if<LaunchAction>(&act.step)) {
      const KernelSpec& k = src.kernels[static_cast<size_t>(l->kernel)];
      const KernelInfo& ki = info[static_cast<size_t>(l->kernel)];
      // Only the window's layers: under two-batch overlap the host interleaves the neighbours'
      // kernels (B's end of the layer before, A's start of the one after); they are left out, so
      // both micro-batches' work in the window is that of the same layers as in the baseline.
      if (ki.layer < first || ki.layer > last) continue;
      KernelSpec nk;
      nk.name = fmt::format("{}.L{}.{}/{}", micro_batch_label(ki.micro_batch), ki.layer, ki.op,
                            ki.kernel);
      nk.stream = k.stream;
      nk.op = k.op;
      nk.micro_batch = k.micro_batch;
      nk.category = k.category;
      if (ki.comm || k.category == "comm") {
        // The stand-in: the duration the whole run gave it, on the SMs DeepEP holds.
        nk.duration_us = run.timeline->kernels()[static_cast<size_t>(l->kernel)].duration_us();
        nk.sms = std::max(0, k.fixed_sms);
        nk.category = "comm";
      } else {
        nk.work = k.work;
        for (auto* list : {&nk.work.reads, &nk.work.writes})
          for (TensorAccess& t : *list) {
            t.tensor = scoped(t);
            t.scope = -1;
          }
        nk.duration_us = k.duration_us;
        nk.sms = k.sms;
        nk.sm_cap = k.sm_cap;
        nk.fixed_sms = k.fixed_sms;
      }
      window_kernel_source.push_back(l->kernel);
      p.actions.push_back(
          {LaunchAction{static_cast<int>(p.kernels.size()), l->host_us}, act.label});
      p.kernels.push_back(std::move(nk));
    } else if (const auto* rec = std::get_if<RecordAction>(&act.step)) {
      auto [it, fresh] = event_id.try_emplace(rec->event, static_cast<int>(p.events.size()));
      if (fresh)
        p.events.push_back(
            fmt::format("e{}.{}", p.events.size(), src.events[static_cast<size_t>(rec->event)]));
      p.actions.push_back({RecordAction{it->second, rec->stream}, act.label});
    } else if (const auto* wt = std::get_if<WaitAction>(&act.step)) {
      // A wait on an event recorded before the window is already satisfied there.
      if (auto it = event_id.find(wt->event); it != event_id.end())
        p.actions.push_back({WaitAction{it->second, wt->stream}, act.label});
    } else if (const auto* bl = std::get_if<BlockAction>(&act.step)) {
      if (auto it = event_id.find(bl->event); it != event_id.end())
        p.actions.push_back({BlockAction{it->second}, act.label});
    } else {
      p.actions.push_back(act);
    }
  }

  // The engine's prediction of the window, and each kernel alone.
  const Engine engine(hw.engine);
  Timeline tl(p, false, false);
  out.window_us = engine.run(p, &tl).makespan_us;

  bench_plan::Plan& plan = out.plan;
  plan.point = r.point;
  plan.strategy = run.stats.strategy;
  plan.hardware = r.hardware;
  plan.first_layer = first;
  plan.layers = last - first + 1;
  plan.launch_mode = p.launch_mode == LaunchMode::graph ? "graph" : "eager";
  for (const StreamSpec& s : p.streams) plan.streams.push_back({s.name, s.priority});
  plan.events = static_cast<int>(p.events.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    bench_plan::Kernel k = plan_kernel(
        p.kernels[i], info[static_cast<size_t>(window_kernel_source[i])], static_cast<int>(i));
    k.predicted_alone_us = engine.solo_time_us(p.kernels[i]);
    k.predicted_in_run_us = tl.kernels()[i].duration_us();
    plan.kernels.push_back(std::move(k));
  }
  using Op = bench_plan::Step::Op;
  for (const HostAction& a : p.actions) {
    bench_plan::Step s;
    if (const auto* l = std::get_if<LaunchAction>(&a.step)) {
      s = {Op::launch, l->kernel, 0, l->host_us.value_or(-1)};
    } else if (const auto* rec = std::get_if<RecordAction>(&a.step)) {
      s = {Op::record, rec->event, rec->stream, -1};
    } else if (const auto* wt = std::get_if<WaitAction>(&a.step)) {
      s = {Op::wait, wt->event, wt->stream, -1};
    } else if (const auto* bl = std::get_if<BlockAction>(&a.step)) {
      s = {Op::block, bl->event, 0, -1};
    } else {
      s = {Op::delay, 0, 0, std::get<DelayAction>(a.step).us};
    }
    plan.steps.push_back(s);
  }
  plan.predicted["window_us"] = out.window_us;
  plan.predicted["per_layer_us"] = out.window_us / plan.layers;
  return out;
}

std::vector<LayerExport> export_whatif_layers(const WhatIfRequest& req, const std::string& strategy,
                                              const LayerExportRequest& r) {
  ModelConfig model = load_model_config(req.model);
  HwProfile hw = load_hw_profile(req.hw);
  const ModelFamily family = model.family;
  const std::string vendor = hw.vendor;
  // With a recycler the session keeps each run's timeline (the stand-ins' durations come from it).
  RunRecycler recycler;
  WhatIfSession session(std::move(model), std::move(hw), req.workload, &recycler);
  std::vector<LayerExport> out;
  for (const auto& [name, field] :
       {std::pair{req.baseline, "baseline"}, std::pair{strategy, "strategy"}}) {
    const Strategy s = for_vendor(load_request_strategy(name, family, field), vendor);
    out.push_back(export_layers(session.run(s), session.hw(), r));
  }
  return out;
}

void write_program_yaml(std::ostream& out, const Program& p, const std::string& hardware,
                        const std::string& comment) {
  out << "# " << comment << "\n";
  out << "hardware: " << hardware << "\n";
  out << "launch_mode: " << (p.launch_mode == LaunchMode::graph ? "graph" : "eager") << "\n";
  out << "streams:\n";
  for (const StreamSpec& s : p.streams)
    out << fmt::format("  - {{name: {}, priority: {}}}\n", yaml_scalar(s.name), s.priority);
  out << "program:\n";
  auto accesses = [](const std::vector<TensorAccess>& list) {
    std::string s = "[";
    for (size_t i = 0; i < list.size(); ++i)
      s += fmt::format("{}{{tensor: {}, bytes: {}}}", i ? ", " : "", yaml_scalar(list[i].tensor),
                       list[i].bytes);
    return s + "]";
  };
  for (const HostAction& a : p.actions) {
    if (const auto* l = std::get_if<LaunchAction>(&a.step)) {
      const KernelSpec& k = p.kernels[static_cast<size_t>(l->kernel)];
      std::string line = fmt::format("  - launch: {{name: {}, stream: {}", yaml_scalar(k.name),
                                     yaml_scalar(p.streams[static_cast<size_t>(k.stream)].name));
      if (!k.op.empty()) line += fmt::format(", op: {}", yaml_scalar(k.op));
      if (!k.category.empty()) line += fmt::format(", category: {}", yaml_scalar(k.category));
      if (k.micro_batch >= 0) line += fmt::format(", micro_batch: {}", k.micro_batch);
      if (l->host_us) line += fmt::format(", host_us: {}", *l->host_us);
      if (k.duration_us) {
        line += fmt::format(", duration_us: {}, sms: {}", *k.duration_us, k.sms);
      } else {
        if (k.sm_cap > 0) line += fmt::format(", sm_cap: {}", k.sm_cap);
        if (k.fixed_sms >= 0) line += fmt::format(", fixed_sms: {}", k.fixed_sms);
        const Work& w = k.work;
        std::string work;
        auto add = [&work](const std::string& s) { work += (work.empty() ? "" : ", ") + s; };
        std::string flops;
        for (int d = 0; d < kNumDtypes; ++d)
          if (w.tensor_flops[d] > 0)
            flops += fmt::format("{}{}: {}", flops.empty() ? "" : ", ", kDtypeNames[d],
                                 w.tensor_flops[d]);
        if (!flops.empty()) add("tensor_flops: {" + flops + "}");
        if (w.cuda_core_flops > 0) add(fmt::format("cuda_core_flops: {}", w.cuda_core_flops));
        if (w.hbm_bytes > 0) add(fmt::format("hbm_bytes: {}", w.hbm_bytes));
        if (w.l2_bytes > 0) add(fmt::format("l2_bytes: {}", w.l2_bytes));
        std::string links;
        for (int i = 0; i < kNumLinks; ++i)
          if (w.link_bytes[i] > 0)
            links +=
                fmt::format("{}{}: {}", links.empty() ? "" : ", ", kLinkNames[i], w.link_bytes[i]);
        if (!links.empty()) add("link_bytes: {" + links + "}");
        add(fmt::format("ctas: {}", w.ctas));
        if (w.ctas_per_sm != 1) add(fmt::format("ctas_per_sm: {}", w.ctas_per_sm));
        if (w.tiles > 0) add(fmt::format("tiles: {}", w.tiles));
        if (w.compute_efficiency != 1.0)
          add(fmt::format("compute_efficiency: {}", w.compute_efficiency));
        if (w.fixed_latency_us > 0) add(fmt::format("fixed_latency_us: {}", w.fixed_latency_us));
        if (w.tile_overhead_us > 0) add(fmt::format("tile_overhead_us: {}", w.tile_overhead_us));
        if (w.tile_serial_bytes > 0) add(fmt::format("tile_serial_bytes: {}", w.tile_serial_bytes));
        if (w.peer_lead_us > 0) add(fmt::format("peer_lead_us: {}", w.peer_lead_us));
        if (w.cta.given())
          add(fmt::format("cta: {{threads: {}, registers_per_thread: {}, shared_bytes: {}}}",
                          w.cta.threads, w.cta.registers_per_thread, w.cta.shared_bytes));
        if (!w.reads.empty()) add("reads: " + accesses(w.reads));
        if (!w.writes.empty()) add("writes: " + accesses(w.writes));
        line += ", work: {" + work + "}";
      }
      out << line << "}\n";
    } else if (const auto* rec = std::get_if<RecordAction>(&a.step)) {
      out << fmt::format("  - record: {{event: {}, stream: {}}}\n",
                         yaml_scalar(p.events[static_cast<size_t>(rec->event)]),
                         yaml_scalar(p.streams[static_cast<size_t>(rec->stream)].name));
    } else if (const auto* wt = std::get_if<WaitAction>(&a.step)) {
      out << fmt::format("  - wait: {{event: {}, stream: {}}}\n",
                         yaml_scalar(p.events[static_cast<size_t>(wt->event)]),
                         yaml_scalar(p.streams[static_cast<size_t>(wt->stream)].name));
    } else if (const auto* bl = std::get_if<BlockAction>(&a.step)) {
      out << fmt::format("  - block: {{event: {}}}\n",
                         yaml_scalar(p.events[static_cast<size_t>(bl->event)]));
    } else {
      const auto& d = std::get<DelayAction>(a.step);
      out << fmt::format("  - delay: {{us: {}}}\n", d.us);
    }
  }
}

}  // namespace ovs
