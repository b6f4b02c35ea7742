#pragma once
// Reads a low-level program (the engine's own input) from YAML. Format: README "Programs".
#include <optional>
#include <string>
#include <string_view>

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
// The program read by the fast reader (yaml_fast.hpp); nullopt when the text needs yaml-cpp or
// has an error (load_program then reads it with yaml-cpp, for the same program or a located
// error).
std::optional<LoadedProgram> parse_program_fast(std::string_view text, const std::string& file);

// Work from a YAML map (shared with other loaders that accept inline Work).
Work parse_work(const yaml::Value& v, const Hardware& hw);

}  // namespace ovs
