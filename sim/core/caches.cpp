#include "sim/core/caches.hpp"

#include <atomic>

namespace ovs {
namespace {
std::atomic<bool> enabled{true};
}  // namespace

void set_caches_enabled(bool on) {
  enabled.store(on, std::memory_order_relaxed);
}

bool caches_enabled() {
  return enabled.load(std::memory_order_relaxed);
}

}  // namespace ovs
