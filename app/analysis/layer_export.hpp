#pragma once
// A few layers of a what-if's program, cut out for the layer benchmark (issue 36): the kernels of
// those layers as the host launches them from the first kernel of `first_layer` to the last of
// the last layer, with the records, waits and host delays in between, as
//   - an engine program (`overlapsim run` predicts it: the kernels' Work from the cost models,
//     each communication kernel a stand-in of the duration the whole run gave it, holding the SMs
//     DeepEP holds), and
//   - a bench plan (sim/io/bench_plan.hpp) of the same kernels in the same order, with the shapes
//     and bytes a GPU runs real kernels of.
#include <iosfwd>
#include <string>
#include <vector>

#include "app/analysis/whatif.hpp"
#include "sim/engine/program.hpp"
#include "sim/io/bench_plan.hpp"

namespace ovs {

struct LayerExport {
  Program program;
  bench_plan::Plan plan;
  double window_us = 0;  // the engine's prediction of the window (program above)
};

struct LayerExportRequest {
  int first_layer = -1;  // -1: the middle MoE (or V4 compressed-attention) layer
  int layers = 4;
  std::string point;     // the what-if's flags, for the record
  std::string hardware;  // the profile name or path the program's `hardware:` names
};

// Throws InputError (field "export-first-layer") when the run has no kernel of a layer asked for.
LayerExport export_layers(const StrategyRun& run, const HwProfile& hw, const LayerExportRequest& r);

// The baseline's and `strategy`'s runs of a what-if, exported (baseline first).
std::vector<LayerExport> export_whatif_layers(const WhatIfRequest& req, const std::string& strategy,
                                              const LayerExportRequest& r);

// The program as YAML that `overlapsim run` reads (README "Programs").
void write_program_yaml(std::ostream& out, const Program& p, const std::string& hardware,
                        const std::string& comment);

}  // namespace ovs
