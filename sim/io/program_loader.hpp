#pragma once
// Reads a low-level program (the engine's own input) from YAML. Format: README "Programs".
#include <string>

#include "models/hw/hw_profile.hpp"
#include "sim/engine/program.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {

struct LoadedProgram {
  std::string file;
  HwProfile hw;
  Program program;
};

LoadedProgram load_program(const std::string& path);
LoadedProgram parse_program(const yaml::Value& root);

// Work from a YAML map (shared with other loaders that accept inline Work).
Work parse_work(const yaml::Value& v, const Hardware& hw);

}  // namespace ovs
