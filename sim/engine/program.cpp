#include "sim/engine/program.hpp"

#include <atomic>
#include <string>

namespace ovs {

ShapeToken ShapeToken::fresh() {
  static std::atomic<std::uint64_t> last{0};
  ShapeToken t;
  t.v_ = last.fetch_add(1, std::memory_order_relaxed) + 1;
  return t;
}

Program serialized(const Program& p) {
  Program s;
  s.streams = {StreamSpec{"serial", 0}};
  s.events = p.events;
  s.kernels = p.kernels;
  s.launch_mode = p.launch_mode;
  for (auto& k : s.kernels) k.stream = 0;
  s.actions.reserve(p.actions.size());
  for (const auto& a : p.actions) {
    if (std::holds_alternative<WaitAction>(a.step)) continue;
    HostAction b = a;
    if (auto* r = std::get_if<RecordAction>(&b.step)) r->stream = 0;
    s.actions.push_back(std::move(b));
  }
  return s;
}

std::string check_program(const Program& p) {
  const int ns = static_cast<int>(p.streams.size());
  const int ne = static_cast<int>(p.events.size());
  const int nk = static_cast<int>(p.kernels.size());
  if (ns == 0) return "program has no stream";
  for (int i = 0; i < nk; ++i) {
    const auto& k = p.kernels[i];
    if (k.stream < 0 || k.stream >= ns) return "kernel '" + k.name + "' on a stream out of range";
  }
  std::vector<bool> recorded(ne, false);
  std::vector<bool> launched(nk, false);
  for (size_t i = 0; i < p.actions.size(); ++i) {
    const auto& step = p.actions[i].step;
    auto where = [i] { return "action " + std::to_string(i) + ": "; };
    if (auto* l = std::get_if<LaunchAction>(&step)) {
      if (l->kernel < 0 || l->kernel >= nk) return where() + "kernel index out of range";
      if (launched[l->kernel])
        return where() + "kernel '" + p.kernels[l->kernel].name + "' launched twice";
      launched[l->kernel] = true;
      const int spin = p.kernels[l->kernel].spin_on_event;
      if (spin >= ne)
        return where() + "kernel '" + p.kernels[l->kernel].name +
               "' polls for an event out of range";
      if (spin >= 0 && !recorded[spin])
        return where() + "kernel '" + p.kernels[l->kernel].name + "' polls for event '" +
               p.events[spin] + "' before any record of it";
    } else if (auto* r = std::get_if<RecordAction>(&step)) {
      if (r->event < 0 || r->event >= ne) return where() + "event index out of range";
      if (r->stream < 0 || r->stream >= ns) return where() + "stream index out of range";
      recorded[r->event] = true;
    } else if (auto* w = std::get_if<WaitAction>(&step)) {
      if (w->event < 0 || w->event >= ne) return where() + "event index out of range";
      if (w->stream < 0 || w->stream >= ns) return where() + "stream index out of range";
      if (!recorded[w->event])
        return where() + "wait on event '" + p.events[w->event] + "' before any record of it";
    } else if (auto* b = std::get_if<BlockAction>(&step)) {
      if (b->event < 0 || b->event >= ne) return where() + "event index out of range";
      if (!recorded[b->event])
        return where() + "host block on event '" + p.events[b->event] + "' before any record of it";
    } else if (auto* d = std::get_if<DelayAction>(&step)) {
      if (!(d->us >= 0)) return where() + "negative or NaN host delay";
    }
  }
  return {};
}

}  // namespace ovs
