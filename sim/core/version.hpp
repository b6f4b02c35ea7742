#pragma once
// overlapsim's version (CMake's project(VERSION)), printed by --version and recorded in every
// sweep results file so that rows from another release are not mixed in.
#include <string>

namespace ovs {

const std::string& overlapsim_version();

}  // namespace ovs
