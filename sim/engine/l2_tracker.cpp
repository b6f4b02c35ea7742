#include "sim/engine/l2_tracker.hpp"

#include <algorithm>

namespace ovs {

int L2Tracker::intern(const std::string& tensor, int scope) {
  const auto name = names_.try_emplace(tensor, static_cast<int>(names_.size())).first->second;
  const std::int64_t key = (std::int64_t(name) << 32) | std::uint32_t(scope);
  auto [it, inserted] = ids_.try_emplace(key, static_cast<int>(last_touch_.size()));
  if (inserted) {
    last_touch_.push_back(-1.0);
    readers_.push_back(0);
  }
  return it->second;
}

double L2Tracker::resident_fraction(int id, double bytes) const {
  if (readers_[id] > 0) return 1.0;
  if (last_touch_[id] < 0 || bytes <= 0) return 0.0;
  const double since = streamed_bytes_ - last_touch_[id];
  return std::clamp((l2_size_bytes_ - since) / bytes, 0.0, 1.0);
}

}  // namespace ovs
