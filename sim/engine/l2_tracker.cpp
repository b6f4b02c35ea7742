#include "sim/engine/l2_tracker.hpp"

#include <algorithm>
#include <cmath>

namespace ovs {

int L2Tracker::intern(const std::string& tensor, int scope) {
  return intern(intern_name(tensor), scope);
}

int L2Tracker::intern_name(const std::string& tensor) {
  return names_.try_emplace(tensor, static_cast<int>(names_.size())).first->second;
}

void L2Tracker::reset_state() {
  for (Tensor& t : t_) {
    t.last_touch = kNever;
    t.readers = 0;
    t.listed = false;
  }
  recent_.clear();
  streamed_bytes_ = 0;
}

void L2Tracker::reserve(size_t tensors) {
  t_.reserve(tensors);
}

int L2Tracker::intern(int name, int scope) {
  auto fresh = [&] {
    t_.push_back({kNever, 0, name, scope, false});
    return static_cast<int>(t_.size()) - 1;
  };
  // Scopes are -1 (the whole model) or a layer index: a table per name; any other scope (a
  // program file may give one) goes to the hash map.
  const std::int64_t slot = std::int64_t(scope) + 1;
  if (slot >= 0 && slot < kDenseScopes) {
    if (by_scope_.size() <= static_cast<size_t>(name))
      by_scope_.resize(static_cast<size_t>(name) + 1);
    auto& row = by_scope_[static_cast<size_t>(name)];
    if (row.size() <= static_cast<size_t>(slot))  // geometric growth: scopes come in order
      row.resize(std::max(static_cast<size_t>(slot) + 1, 2 * row.size()), -1);
    int& id = row[static_cast<size_t>(slot)];
    if (id < 0) id = fresh();
    return id;
  }
  const std::int64_t key = (std::int64_t(name) << 32) | std::uint32_t(scope);
  auto [it, inserted] = ids_.try_emplace(key, -1);
  if (inserted) it->second = fresh();
  return it->second;
}

int L2Tracker::find(int name, int scope) const {
  if (name < 0) return -1;
  const std::int64_t slot = std::int64_t(scope) + 1;
  if (slot >= 0 && slot < kDenseScopes) {
    if (static_cast<size_t>(name) >= by_scope_.size()) return -1;
    const auto& row = by_scope_[static_cast<size_t>(name)];
    return static_cast<size_t>(slot) < row.size() ? row[static_cast<size_t>(slot)] : -1;
  }
  const auto it = ids_.find((std::int64_t(name) << 32) | std::uint32_t(scope));
  return it == ids_.end() ? -1 : it->second;
}

void L2Tracker::add_traffic(double dram_bytes) {
  // Whole bytes, rounded to nearest (traffic is never negative); saturates at kMaxStreamed
  // (2.3e18 bytes: no real run comes near, an absurd input must not overflow).
  const double add = std::min(dram_bytes + 0.5, static_cast<double>(kMaxStreamed));
  streamed_bytes_ = std::min(streamed_bytes_ + static_cast<std::int64_t>(add), kMaxStreamed);
}

double L2Tracker::resident_fraction(int id, double bytes) const {
  if (t_[id].readers > 0) return 1.0;
  if (t_[id].last_touch == kNever || bytes <= 0) return 0.0;
  const double since = static_cast<double>(streamed_bytes_ - t_[id].last_touch);
  return std::clamp((l2_size_bytes_ - since) / bytes, 0.0, 1.0);
}

void L2Tracker::set_state(int id, int readers, std::int64_t since) {
  t_[id].readers = readers;
  t_[id].last_touch = since == kNever ? kNever : streamed_bytes_ - since;
  if (live(id)) note(id);
}

const std::vector<int>& L2Tracker::live_tensors() {
  size_t kept = 0;
  for (int id : recent_) {
    if (live(id))
      recent_[kept++] = id;
    else
      t_[id].listed = false;
  }
  recent_.resize(kept);
  return recent_;
}

}  // namespace ovs
