#include "sim/core/caches.hpp"

namespace ovs {

Switch& caches_switch() {
  static Switch s;
  return s;
}

}  // namespace ovs
