#pragma once
// --v4-kernels, the same on every command that builds DeepSeek-V4 layers (whatif, search, plan):
// which of SGLang's code paths launches the attention prepare's side-branch kernels
// (models/graph/layer_v4_side.cpp).
#include <CLI/CLI.hpp>

#include <string>

namespace ovs {

void add_v4_kernels_flag(CLI::App* cmd, std::string& value);

}  // namespace ovs
