#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "app/analysis/explain.hpp"

namespace ovs {
namespace {

// For each kernel, the kernels whose end it waited for through its stream and its events.
std::vector<std::vector<int>> kernel_deps(const Program& p) {
  std::vector<std::vector<int>> deps(p.kernels.size());
  std::vector<std::vector<int>> frontier(p.streams.size());
  std::vector<std::vector<int>> event_producers(p.events.size());
  for (const auto& a : p.actions) {
    if (auto* l = std::get_if<LaunchAction>(&a.step)) {
      const int s = p.kernels[l->kernel].stream;
      deps[l->kernel] = frontier[s];
      frontier[s] = {l->kernel};
    } else if (auto* r = std::get_if<RecordAction>(&a.step)) {
      event_producers[r->event] = frontier[r->stream];
    } else if (auto* w = std::get_if<WaitAction>(&a.step)) {
      auto& f = frontier[w->stream];
      for (int k : event_producers[w->event])
        if (std::find(f.begin(), f.end(), k) == f.end()) f.push_back(k);
    }
  }
  return deps;
}

}  // namespace

std::vector<PathShare> critical_path(const BuiltProgram& b, const Timeline& tl, double* total_us) {
  const auto& ks = tl.kernels();
  const auto deps = kernel_deps(b.program);
  std::map<std::string, double> share;
  int cur = -1;
  for (size_t i = 0; i < ks.size(); ++i)
    if (cur < 0 || ks[i].end_us > ks[cur].end_us) cur = static_cast<int>(i);
  *total_us = cur >= 0 ? ks[cur].end_us : 0;
  // Kernels by end time, to find who released SMs when nothing else explains a start.
  std::vector<int> by_end(ks.size());
  for (size_t i = 0; i < ks.size(); ++i) by_end[i] = static_cast<int>(i);
  std::sort(by_end.begin(), by_end.end(),
            [&](int a, int c) { return ks[a].end_us < ks[c].end_us; });
  const double eps = 1e-6;
  std::set<int> seen;
  while (cur >= 0 && seen.insert(cur).second) {
    const auto& k = ks[cur];
    const KernelInfo& info = b.info[cur];
    share[info.layer < 0 ? info.op : info.op] += k.end_us - k.start_us;
    int next = -1;
    double latest = -1;
    for (int d : deps[cur])
      if (ks[d].end_us > latest) latest = ks[d].end_us, next = d;
    if (next >= 0 && std::fabs(latest - k.start_us) <= eps * std::max(1.0, k.start_us)) {
      cur = next;
      continue;
    }
    const double gap_from = std::max(latest, 0.0);
    if (std::fabs(k.enqueue_us - k.start_us) <= eps * std::max(1.0, k.start_us)) {
      share["host: GPU waiting on launches"] += k.start_us - gap_from;
    } else {
      // Started when SMs freed up: find the kernel that ended then.
      auto it = std::lower_bound(by_end.begin(), by_end.end(), k.start_us * (1 - eps) - eps,
                                 [&](int a, double t) { return ks[a].end_us < t; });
      if (it != by_end.end() &&
          std::fabs(ks[*it].end_us - k.start_us) <= eps * std::max(1.0, k.start_us) && *it != cur) {
        share["waiting for SMs"] += 0;
        cur = *it;
        continue;
      }
      share["waiting (other)"] += k.start_us - gap_from;
    }
    cur = next;
  }
  std::vector<PathShare> out;
  for (const auto& [w, us] : share)
    if (us > 1e-9) out.push_back({w, us});
  std::sort(out.begin(), out.end(),
            [](auto& a, auto& c) { return a.us != c.us ? a.us > c.us : a.what < c.what; });
  return out;
}

}  // namespace ovs
