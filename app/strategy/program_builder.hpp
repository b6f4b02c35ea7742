#pragma once
// Builds the host program of a forward pass from a model's layers and a strategy, with SGLang's
// semantics: per-layer lists concatenated, stages cut at yields (a layer not ending with a yield
// merges its last stage into the next layer's first), micro-batch A `delta` stages ahead, one
// compute stream for both micro-batches, DeepEP normal dispatch blocking the host on its counts,
// low-latency send and receive as separate kernels with the data in flight holding no SM.
#include <string>
#include <vector>

#include "app/strategy/strategy.hpp"
#include "sim/engine/program.hpp"

namespace ovs {

struct KernelInfo {
  int layer = -1;  // -1: before or after the layers (embedding, LM head)
  std::string op;
  int micro_batch = 0;  // 0 = A (or the whole batch), 1 = B
  std::string kernel;   // name within its op
  bool comm = false;    // communication (DeepEP, collectives, transfers)
  int stage = -1;       // stage within its layer's list (yields before its op); -1: none
  // The layer plan's cost it was launched from (the LayerBuilder's memo holds it for as long as
  // the builder lives); null for kernels whose cost did not outlive the build (embedding, head).
  // Kernels with the same source and SM cap have the same Work.
  const KernelCost* source = nullptr;
};

struct BuiltProgram {
  Program program;
  std::vector<KernelInfo> info;         // per kernel
  bool split = false;                   // two micro-batches
  std::string note;                     // why a strategy's split fell back, if it did
  std::vector<std::string> host_issue;  // "A.L3.combine_a"... in host order (ops issued)
  int stages_per_layer_hint = 0;
  int launch_count = 0;
  // For building the same strategy again in place (build_program_into): where each kernel's cost
  // came from, and everything besides the costs' numbers that the program's shape depended on.
  // A build whose shape is the same only copies the new numbers into the kernels.
  struct Origin {
    int micro_batch = 0;
    int layer = -1;
    int op = -1;     // index in the layer plan's ops; -1: the prologue, -2: the epilogue
    int kernel = 0;  // index in the op's kernels (or the prologue's / epilogue's); < 0: comm
                     // kernel -kernel - 1
    int sm_cap = 0;  // the cap the build held it to besides its cost's own (0: none)
  };
  std::vector<Origin> origin;  // per kernel
  std::string shape;
  Strategy strategy;  // the strategy it was built from (compared whole, not by address)
};

BuiltProgram build_program(const LayerBuilder& layers, const Strategy& strategy);
// The same, built into `out` in place: the storage of an earlier build (its kernels' strings and
// tensor lists, actions, labels) is reused, so building the same strategy again allocates little.
void build_program_into(const LayerBuilder& layers, const Strategy& strategy, BuiltProgram& out);

}  // namespace ovs
