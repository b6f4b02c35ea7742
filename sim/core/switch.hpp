#pragma once
// A process-wide on/off switch (on by default) and a scope that turns it off and restores it:
// what the memo caches (`--no-cache`) and the engine's fast-forward (`--no-fast-forward`) use.
// Neither may change a result; each has a test that compares the bytes with it off.
#include <atomic>

namespace ovs {

class Switch {
 public:
  bool on() const { return on_.load(std::memory_order_relaxed); }
  void set(bool on) { on_.store(on, std::memory_order_relaxed); }

 private:
  std::atomic<bool> on_{true};
};

// Turns `s` off (or leaves it) for one scope, restoring the previous setting after.
class SwitchOff {
 public:
  SwitchOff(Switch& s, bool off) : s_(s), was_(s.on()) {
    if (off) s_.set(false);
  }
  ~SwitchOff() { s_.set(was_); }
  SwitchOff(const SwitchOff&) = delete;
  SwitchOff& operator=(const SwitchOff&) = delete;

 private:
  Switch& s_;
  bool was_;
};

}  // namespace ovs
