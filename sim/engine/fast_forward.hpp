#pragma once
// One switch for the engine's steady-state fast-forward: once the host has issued every action
// and two consecutive periods of identical layers leave the GPU in the same state relative to
// their start, the engine advances the remaining identical periods at once and replays their
// notifications to the observers (see Engine::run). Off (`--no-fast-forward`), every step is
// simulated. The bytes of every result are the same either way; a test compares them.
namespace ovs {

void set_fast_forward_enabled(bool on);
bool fast_forward_enabled();

// Turns the fast-forward off (or leaves it) for one scope, restoring the previous setting after.
class FastForwardOff {
 public:
  explicit FastForwardOff(bool off) : was_(fast_forward_enabled()) {
    if (off) set_fast_forward_enabled(false);
  }
  ~FastForwardOff() { set_fast_forward_enabled(was_); }
  FastForwardOff(const FastForwardOff&) = delete;
  FastForwardOff& operator=(const FastForwardOff&) = delete;

 private:
  bool was_;
};

}  // namespace ovs
