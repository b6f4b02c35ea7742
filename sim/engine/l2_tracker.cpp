#include "sim/engine/l2_tracker.hpp"

#include <algorithm>

namespace ovs {

int L2Tracker::intern(const std::string& tensor, int scope) {
  const auto name = names_.try_emplace(tensor, static_cast<int>(names_.size())).first->second;
  auto fresh = [this] {
    last_touch_.push_back(-1.0);
    readers_.push_back(0);
    return static_cast<int>(last_touch_.size()) - 1;
  };
  // Scopes are -1 (the whole model) or a layer index: a table per name; any other scope (a
  // program file may give one) goes to the hash map.
  const std::int64_t slot = std::int64_t(scope) + 1;
  if (slot >= 0 && slot < kDenseScopes) {
    if (by_scope_.size() <= static_cast<size_t>(name))
      by_scope_.resize(static_cast<size_t>(name) + 1);
    auto& row = by_scope_[static_cast<size_t>(name)];
    if (row.size() <= static_cast<size_t>(slot)) row.resize(static_cast<size_t>(slot) + 1, -1);
    int& id = row[static_cast<size_t>(slot)];
    if (id < 0) id = fresh();
    return id;
  }
  const std::int64_t key = (std::int64_t(name) << 32) | std::uint32_t(scope);
  auto [it, inserted] = ids_.try_emplace(key, -1);
  if (inserted) it->second = fresh();
  return it->second;
}

double L2Tracker::resident_fraction(int id, double bytes) const {
  if (readers_[id] > 0) return 1.0;
  if (last_touch_[id] < 0 || bytes <= 0) return 0.0;
  const double since = streamed_bytes_ - last_touch_[id];
  return std::clamp((l2_size_bytes_ - since) / bytes, 0.0, 1.0);
}

}  // namespace ovs
