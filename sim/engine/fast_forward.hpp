#pragma once
// One switch for the engine's steady-state fast-forward: once the host has issued every action
// and two consecutive periods of identical layers leave the GPU in the same state relative to
// their start, the engine advances the remaining identical periods at once and replays their
// notifications to the observers (see Engine::run). Off (`--no-fast-forward`), every step is
// simulated. The bytes of every result are the same either way; a test compares them.
#include "sim/core/switch.hpp"

namespace ovs {

Switch& fast_forward_switch();
inline void set_fast_forward_enabled(bool on) {
  fast_forward_switch().set(on);
}
inline bool fast_forward_enabled() {
  return fast_forward_switch().on();
}

// Turns the fast-forward off (or leaves it) for one scope.
class FastForwardOff : public SwitchOff {
 public:
  explicit FastForwardOff(bool off) : SwitchOff(fast_forward_switch(), off) {}
};

}  // namespace ovs
