#include "app/cli/cli.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/core/version.hpp"
#include "sim/engine/engine.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {
namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* c : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(c->get_name());
  return names;
}

// "unknown command 'swep' (did you mean 'sweep'?)", or empty when argv[1] is a command or a flag.
std::string unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  const std::string word = argv[1];
  const auto names = command_names(app);
  for (const auto& n : names)
    if (n == word) return {};
  const std::string near = yaml::did_you_mean(word, names);
  return "unknown command '" + word + "'" +
         (near.empty() ? "" : " (did you mean '" + near + "'?)") +
         "; commands: " + yaml::join(names);
}

// For an unknown --flag of the command being parsed: the nearest flag it has.
std::string nearest_flag(const CLI::App& app, const std::vector<std::string>& extras) {
  const CLI::App* cmd = &app;
  for (const auto* c : app.get_subcommands())
    if (c->parsed()) cmd = c;
  std::vector<std::string> flags;
  for (const auto* o : cmd->get_options())
    for (const auto& n : o->get_lnames()) flags.push_back("--" + n);
  for (const auto& e : extras) {
    if (e.rfind("--", 0) != 0) continue;
    const std::string word = e.substr(0, e.find('='));
    const std::string near = yaml::did_you_mean(word, flags);
    if (!near.empty()) return "unknown flag '" + word + "' (did you mean '" + near + "'?)";
  }
  // No flag near it: still name it, rather than CLI11's "arguments were not expected".
  for (const auto& e : extras)
    if (e.rfind("--", 0) == 0)
      return "unknown flag '" + e.substr(0, e.find('=')) + "' for '" + cmd->get_name() + "'";
  return {};
}

// A library error that names no file is about a value the user typed: on the command line, the
// flag of the command being run that gave it ("ep" -> --ep, "hardware" -> --hw, "strategy" ->
// --strategy, --against or --strategies, whichever the command has); the field as the library
// named it when no flag matches.
InputError on_command_line(const InputError& e, const CLI::App& app) {
  const CLI::App* cmd = &app;
  for (const auto* c : app.get_subcommands())
    if (c->parsed()) cmd = c;
  std::string field = e.field();
  if (field.rfind("-", 0) == 0) return flag_error(field, e.message());
  std::string kebab = field;
  for (char& c : kebab)
    if (c == '_' || c == ' ') c = '-';
  std::vector<std::string> names{kebab};
  if (field == "hardware") names.push_back("hw");
  if (field == "strategy") names.insert(names.end(), {"against", "strategies"});
  for (const auto& name : names)
    for (const auto* o : cmd->get_options())
      for (const auto& n : o->get_lnames())
        if (n == name) return flag_error("--" + n, e.message());
  return flag_error(field, e.message());
}

std::string one_line(std::string msg) {
  for (char& c : msg)
    if (c == '\n') c = ' ';
  return msg;
}

// Every command, with the adder that registers it; in --help's order.
struct CommandAdder {
  std::vector<const char*> names;  // the subcommands the adder registers
  void (*add)(CLI::App&, CliContext&);
};
const std::vector<CommandAdder>& command_adders() {
  static const std::vector<CommandAdder> adders = {
      {{"whatif"}, add_whatif_command},
      {{"plan"}, add_plan_command},
      {{"sglang-check"}, add_sglang_check_command},
      {{"sweep", "merge", "report"}, add_sweep_commands},
      {{"search"}, add_search_command},
      {{"run"}, add_run_command},
      {{"kernel"}, add_kernel_command},
      {{"validate"}, add_validate_command},
      {{"calibrate"}, add_calibrate_command},
      {{"import-trace"}, add_import_trace_command},
      {{"describe"}, add_describe_command}};
  return adders;
}

// Registers the command argv[1] names, alone (building all ten commands' options costs more than
// a what-if's program build, and a run uses one), or every command when argv[1] is a flag
// (--help), unknown or missing; also every command if the table above ever misses the name.
// --version alone needs none.
void add_commands(CLI::App& app, CliContext& ctx, int argc, const char* const* argv) {
  if (argc == 2 && std::string(argv[1]) == "--version") return;  // needs no command
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string word = argv[1];
    for (const auto& a : command_adders())
      for (const char* n : a.names)
        if (word == n) {
          a.add(app, ctx);
          const auto names = command_names(app);
          if (std::find(names.begin(), names.end(), word) == names.end()) break;
          return;
        }
  }
  for (const auto* c : app.get_subcommands([](const CLI::App*) { return true; }))
    app.remove_subcommand(const_cast<CLI::App*>(c));
  for (const auto& a : command_adders()) a.add(app, ctx);
}

}  // namespace

std::vector<std::string> command_table_names() {
  std::vector<std::string> out;
  for (const auto& a : command_adders())
    for (const char* n : a.names) out.push_back(n);
  return out;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CliContext ctx{out, err};
  CLI::App app{
      "overlapsim: a discrete-event simulator and cost model for GPU overlap strategies.\n"
      "Predicts whether two-batch overlap, side streams or more communication SMs pay off for\n"
      "DeepSeek-style MoE inference on a given GPU, phase and batch, and explains why.",
      "overlapsim"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", "overlapsim " + overlapsim_version());
  add_commands(app, ctx, argc, argv);
  try {
    if (const std::string why = unknown_command(app, argc, argv); !why.empty()) {
      err << "error: " << why << " (see overlapsim --help)\n";
      return kExitBadInput;
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::CallForVersion& v) {
      out << v.what() << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) {
        out << app.help();
        return 0;
      }
      // A misspelt flag is the cause of whatever CLI11 noticed first ("--x is required").
      const std::string near = nearest_flag(app, app.remaining(true));
      err << "error: " << one_line(near.empty() ? e.what() : near) << " (see overlapsim --help)\n";
      return kExitBadInput;
    }
    return ctx.exit_code;
  } catch (const InputError& e) {
    err << "error: " << (e.file().empty() ? on_command_line(e, app).what() : e.what()) << "\n";
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
