#pragma once
// One switch for every memo cache of a run (GEMM tile choices, layer plans, routing statistics,
// kernel times alone, a what-if's baseline run shared by its strategies): off, every value is
// computed afresh. The caches must not change a result: `--no-cache` and a test compare the bytes.
#include "sim/core/switch.hpp"

namespace ovs {

Switch& caches_switch();
inline void set_caches_enabled(bool on) {
  caches_switch().set(on);
}
inline bool caches_enabled() {
  return caches_switch().on();
}

// Turns the caches off (or leaves them) for one scope.
class CachesOff : public SwitchOff {
 public:
  explicit CachesOff(bool off) : SwitchOff(caches_switch(), off) {}
};

}  // namespace ovs
