#pragma once
// Which named tensors are still in L2. A tensor is resident if fewer than (L2 size - its size)
// bytes of DRAM traffic have streamed through L2 since it was last touched (an LRU of the size
// of L2), or if another running kernel is reading it right now (the second reader's lines are
// in flight already). Partial residency is proportional.
//
// Traffic is counted in whole bytes (int64), so "bytes since the last touch" is exact and does
// not depend on how much streamed before: the engine's fast-forward relies on that.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ovs {

class L2Tracker {
 public:
  static constexpr std::int64_t kNever = INT64_MIN;  // last touch of a tensor never touched
  static constexpr std::int64_t kMaxStreamed = std::int64_t(1) << 61;

  explicit L2Tracker(double l2_size_bytes) : l2_size_bytes_(l2_size_bytes) {}

  int intern(const std::string& tensor, int scope = -1);
  // Back to the state of a tracker that has just interned the same tensors: nothing touched, read
  // or streamed (ids, names and scopes stay).
  void reset_state();
  void reserve(size_t tensors);  // room for this many interned tensors
  // The same in two steps: the name's id (what find() takes), then the tensor of that name in a
  // scope.
  int intern_name(const std::string& tensor);
  int intern(int name, int scope);
  double resident_fraction(int id, double bytes) const;
  void begin_read(int id) {
    ++t_[id].readers;
    note(id);
  }
  void end_read(int id) { --t_[id].readers; }
  void touch(int id) {
    t_[id].last_touch = streamed_bytes_;
    note(id);
  }
  void add_traffic(double dram_bytes);

  // ---- for the fast-forward: tensors by (name, scope), and the state that decides residency
  int name_of(int id) const { return t_[id].name; }
  int scope_of(int id) const { return t_[id].scope; }
  int find(int name, int scope) const;       // -1 if no kernel names it
  size_t size() const { return t_.size(); }  // tensors interned
  std::int64_t streamed_bytes() const { return streamed_bytes_; }
  void advance_streamed(std::int64_t bytes) { streamed_bytes_ += bytes; }
  int readers(int id) const { return t_[id].readers; }
  // Bytes streamed since the last touch; kNever if never touched.
  std::int64_t since(int id) const {
    return t_[id].last_touch == kNever ? kNever : streamed_bytes_ - t_[id].last_touch;
  }
  // A tensor whose residency can still be above zero: read now, or touched less than an L2 of
  // traffic ago. Any other tensor reads as absent until it is touched again.
  bool live(int id) const {
    if (t_[id].readers > 0) return true;
    const std::int64_t s = since(id);
    return s != kNever && static_cast<double>(s) < l2_size_bytes_;
  }
  // Sets a tensor's state (since: bytes since its last touch, or kNever).
  void set_state(int id, int readers, std::int64_t since);
  // The live tensors, in no particular order (drops from its list those no longer live).
  const std::vector<int>& live_tensors();

 private:
  void note(int id) {
    if (!t_[id].listed) {
      t_[id].listed = true;
      recent_.push_back(id);
    }
  }
  // One interned tensor: its name and scope, and the state that decides its residency.
  struct Tensor {  // reset_state() puts last_touch, readers and listed back to these defaults
    std::int64_t last_touch = kNever;  // streamed_bytes_ at the last touch, or kNever
    int readers = 0;
    int name = 0;
    int scope = -1;
    bool listed = false;  // in recent_
  };

  double l2_size_bytes_;
  std::int64_t streamed_bytes_ = 0;
  std::unordered_map<std::string, int> names_;  // name -> name id
  static constexpr std::int64_t kDenseScopes = 4096;
  std::vector<std::vector<int>> by_scope_;     // [name id][scope + 1] -> tensor id, -1 none
  std::unordered_map<std::int64_t, int> ids_;  // other (name id, scope) -> tensor id
  std::vector<Tensor> t_;                      // by tensor id
  std::vector<int> recent_;                    // tensors touched or read, not yet found dead
};

}  // namespace ovs
