#include "sim/core/version.hpp"

#ifndef OVS_VERSION
#error "OVS_VERSION is set by CMakeLists.txt from project(VERSION)"
#endif

namespace ovs {

const std::string& overlapsim_version() {
  static const std::string v = OVS_VERSION;
  return v;
}

}  // namespace ovs
