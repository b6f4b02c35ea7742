#pragma once
// The flags that name a what-if's point - model, GPU and workload - the same on every command
// that runs one (whatif; import-trace --whatif).
#include <CLI/CLI.hpp>
#include <string>

#include "app/analysis/request.hpp"

namespace ovs {

// `ep_required`: --ep must be given (whatif); else it is checked where it is used.
void add_point_flags(CLI::App* cmd, std::string& model, std::string& hw, WorkloadWords& w,
                     bool ep_required);

}  // namespace ovs
