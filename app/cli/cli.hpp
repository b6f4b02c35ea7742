#pragma once
// The overlapsim command line, callable in-process (tests drive it exactly as users do).
#include <ostream>
#include <string>
#include <vector>

namespace ovs {

// Returns the exit code: 0 success, 2 bad input, 1 internal error. Never throws.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The command names run_cli knows, in --help's order: a run registers only the command it names.
std::vector<std::string> command_table_names();

}  // namespace ovs
