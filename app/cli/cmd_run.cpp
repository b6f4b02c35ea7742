// overlapsim run PROGRAM.yaml [--json] [--trace out.json]
#include <fstream>

#include "app/cli/commands.hpp"
#include "app/program/program_loader.hpp"
#include "app/program/run_report.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/fast_forward.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/chrome_trace.hpp"

namespace ovs {
namespace {

struct RunOptions {
  std::string program;
  bool json = false;
  std::string trace;
  bool no_fast_forward = false;
};

int run_program(const RunOptions& o, CliContext& ctx) {
  const LoadedProgram loaded = load_program(o.program);
  const Engine engine(loaded.hw.engine);
  const Program serial = serialized(loaded.program);
  Timeline timeline(loaded.program);
  RunResult result, serial_result;
  try {
    if (!o.trace.empty()) {
      AtomicFile file(o.trace);
      {
        TraceSink sink(file.stream());
        ChromeTraceWriter main_trace(sink, loaded.program, "program on " + loaded.hw.name, 1);
        ObserverList observers;
        observers.add(&timeline);
        observers.add(&main_trace);
        result = engine.run(loaded.program, &observers);
        ChromeTraceWriter serial_trace(sink, serial, "same kernels on one stream (serial)", 2);
        serial_result = engine.run(serial, &serial_trace);
      }
      file.commit();
    } else {
      result = engine.run(loaded.program, &timeline);
      serial_result = engine.run(serial);
    }
  } catch (const SimulationError& e) {
    throw InputError(o.program, 0, "", e.what());
  }
  const RunSummary summary{loaded, result, timeline, serial_result.makespan_us};
  if (o.json)
    write_run_json(ctx.out, summary);
  else
    write_run_table(ctx.out, summary);
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Execute a low-level program (kernels with Work or given durations, streams, events, host\n"
      "actions) on a hardware profile and report its makespan against the same kernels run\n"
      "serially on one stream. The engine's own input; see strategies/examples/.");
  cmd->add_option("program", opts->program, "Program YAML file")->required();
  cmd->add_flag("--json", opts->json,
                "Print one JSON object (makespan_us, serial_us, streams, kernels)");
  cmd->add_option("--trace", opts->trace,
                  "Write a Chrome/Perfetto trace (open in ui.perfetto.dev)");
  cmd->add_flag("--no-fast-forward", opts->no_fast_forward,
                "Simulate every period of identical kernels step by step (same results, slower)");
  cmd->callback([opts, &ctx] {
    const FastForwardOff no_ff(opts->no_fast_forward);
    ctx.exit_code = run_program(*opts, ctx);
  });
}

}  // namespace ovs
