#pragma once
// Each subcommand registers itself on the app; its callback stores the exit code.
#include <CLI/CLI.hpp>
#include <ostream>

namespace ovs {

struct CliContext {
  std::ostream& out;
  std::ostream& err;
  int exit_code = 0;
};

void add_run_command(CLI::App& app, CliContext& ctx);
void add_kernel_command(CLI::App& app, CliContext& ctx);
void add_validate_command(CLI::App& app, CliContext& ctx);
void add_calibrate_command(CLI::App& app, CliContext& ctx);
void add_whatif_command(CLI::App& app, CliContext& ctx);
void add_sweep_commands(CLI::App& app, CliContext& ctx);
void add_search_command(CLI::App& app, CliContext& ctx);
void add_import_trace_command(CLI::App& app, CliContext& ctx);
void add_plan_command(CLI::App& app, CliContext& ctx);
void add_describe_command(CLI::App& app, CliContext& ctx);
void add_sglang_check_command(CLI::App& app, CliContext& ctx);

}  // namespace ovs
