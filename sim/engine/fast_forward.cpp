#include "sim/engine/fast_forward.hpp"

namespace ovs {

Switch& fast_forward_switch() {
  static Switch s;
  return s;
}

}  // namespace ovs
