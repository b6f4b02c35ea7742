#pragma once
// Summaries of one `overlapsim run`: a JSON object for scripts and a table for people.
#include <ostream>
#include <string>

#include "app/program/program_loader.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"

namespace ovs {

struct RunSummary {
  const LoadedProgram& loaded;
  const RunResult& result;
  const Timeline& timeline;
  double serial_us;
};

void write_run_json(std::ostream& out, const RunSummary& s);
void write_run_table(std::ostream& out, const RunSummary& s);

}  // namespace ovs
