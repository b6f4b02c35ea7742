#include "sim/engine/fast_forward.hpp"

#include <atomic>

namespace ovs {
namespace {
std::atomic<bool> enabled{true};
}  // namespace

void set_fast_forward_enabled(bool on) {
  enabled.store(on, std::memory_order_relaxed);
}

bool fast_forward_enabled() {
  return enabled.load(std::memory_order_relaxed);
}

}  // namespace ovs
