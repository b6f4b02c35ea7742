#pragma once
#include <stdexcept>

namespace ovs {

// The program cannot run to completion on this hardware (deadlock, unsupported dtype...).
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ovs
