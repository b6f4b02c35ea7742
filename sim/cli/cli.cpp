#include "sim/cli/cli.hpp"

#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"

namespace ovs {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CliContext ctx{out, err};
  CLI::App app{
      "overlapsim: a discrete-event simulator and cost model for GPU overlap strategies.\n"
      "Predicts whether two-batch overlap, side streams or more communication SMs pay off for\n"
      "DeepSeek-style MoE inference on a given GPU, phase and batch, and explains why.",
      "overlapsim"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  add_whatif_command(app, ctx);
  add_sweep_commands(app, ctx);
  add_search_command(app, ctx);
  add_run_command(app, ctx);
  add_kernel_command(app, ctx);
  add_validate_command(app, ctx);
  add_calibrate_command(app, ctx);
  add_import_trace_command(app, ctx);
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) {
        out << app.help();
        return 0;
      }
      std::string msg = e.what();
      for (char& c : msg)
        if (c == '\n') c = ' ';
      err << "error: " << msg << " (see overlapsim --help)\n";
      return kExitBadInput;
    }
    return ctx.exit_code;
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const SimulationError& e) {
    err << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ovs
