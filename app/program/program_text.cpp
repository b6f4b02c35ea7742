#include "app/program/program_text.hpp"

#include <fmt/format.h>

#include <variant>

namespace ovs {
namespace {

void add_accesses(std::string& out, const char* what, const std::vector<TensorAccess>& list) {
  for (const auto& a : list) out += fmt::format(" {} {} {:a}", what, a.tensor, a.bytes);
}

void add_work(std::string& out, const Work& w) {
  for (double f : w.tensor_flops) out += fmt::format(" {:a}", f);
  out += fmt::format(" cuda {:a} hbm {:a} l2 {:a} link {:a} {:a}", w.cuda_core_flops, w.hbm_bytes,
                     w.l2_bytes, w.link_bytes[0], w.link_bytes[1]);
  out += fmt::format(" ctas {} per_sm {} cta {} {} {:a} tiles {} eff {:a} lat {:a}", w.ctas,
                     w.ctas_per_sm, w.cta.threads, w.cta.registers_per_thread, w.cta.shared_bytes,
                     w.tiles, w.compute_efficiency, w.fixed_latency_us);
  out += fmt::format(" tile {:a} {:a}", w.tile_overhead_us, w.tile_serial_bytes);
  if (w.peer_lead_us > 0) out += fmt::format(" lead {:a}", w.peer_lead_us);
  add_accesses(out, "read", w.reads);
  add_accesses(out, "write", w.writes);
}

}  // namespace

std::string program_text(const LoadedProgram& lp) {
  const Program& p = lp.program;
  std::string out =
      fmt::format("file {}\nhardware {}\nlaunch_mode {}\n", lp.file, lp.hw.engine.name,
                  p.launch_mode == LaunchMode::graph ? "graph" : "eager");
  for (const auto& s : p.streams) out += fmt::format("stream {} {}\n", s.name, s.priority);
  for (const auto& e : p.events) out += fmt::format("event {}\n", e);
  for (const auto& k : p.kernels) {
    out += fmt::format("kernel {} stream {} sms {} cap {} fixed {} spin {} op {} mb {} cat {}",
                       k.name, k.stream, k.sms, k.sm_cap, k.fixed_sms, k.spin_on_event, k.op,
                       k.micro_batch, k.category);
    if (k.duration_us) out += fmt::format(" duration {:a}", *k.duration_us);
    add_work(out, k.work);
    out += "\n";
  }
  for (const auto& a : p.actions) {
    out += "action [" + a.label + "]";
    if (const auto* l = std::get_if<LaunchAction>(&a.step)) {
      out += fmt::format(" launch {}", l->kernel);
      if (l->host_us) out += fmt::format(" host {:a}", *l->host_us);
    } else if (const auto* r = std::get_if<RecordAction>(&a.step)) {
      out += fmt::format(" record {} {}", r->event, r->stream);
    } else if (const auto* w = std::get_if<WaitAction>(&a.step)) {
      out += fmt::format(" wait {} {}", w->event, w->stream);
    } else if (const auto* b = std::get_if<BlockAction>(&a.step)) {
      out += fmt::format(" block {}", b->event);
    } else if (const auto* d = std::get_if<DelayAction>(&a.step)) {
      out += fmt::format(" delay {:a} {}", d->us, d->label);
    }
    out += "\n";
  }
  return out;
}

}  // namespace ovs
