#pragma once
// Which named tensors are still in L2. A tensor is resident if fewer than (L2 size - its size)
// bytes of DRAM traffic have streamed through L2 since it was last touched (an LRU of the size
// of L2), or if another running kernel is reading it right now (the second reader's lines are
// in flight already). Partial residency is proportional.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ovs {

class L2Tracker {
 public:
  explicit L2Tracker(double l2_size_bytes) : l2_size_bytes_(l2_size_bytes) {}

  int intern(const std::string& tensor, int scope = -1);
  double resident_fraction(int id, double bytes) const;
  void begin_read(int id) { ++readers_[id]; }
  void end_read(int id) { --readers_[id]; }
  void touch(int id) { last_touch_[id] = streamed_bytes_; }
  void add_traffic(double dram_bytes) { streamed_bytes_ += dram_bytes; }

 private:
  double l2_size_bytes_;
  double streamed_bytes_ = 0;
  std::unordered_map<std::string, int> names_;  // name -> name id
  static constexpr std::int64_t kDenseScopes = 4096;
  std::vector<std::vector<int>> by_scope_;     // [name id][scope + 1] -> tensor id, -1 none
  std::unordered_map<std::int64_t, int> ids_;  // other (name id, scope) -> tensor id
  std::vector<double> last_touch_;             // streamed_bytes_ at last touch; < 0 never touched
  std::vector<int> readers_;
};

}  // namespace ovs
