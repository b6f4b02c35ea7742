#pragma once
// The layer benchmark's plan: the costed program of a few layers as a GPU runs it with real
// kernels of the same work (calibrate/bench/layer.cpp), written by `whatif --export-layers` next to
// the same program as the engine's YAML (`overlapsim run` predicts it). One line per item, fields
// as key=value; kernels in the YAML's order, so kernel i here is kernel i there. Standard library
// only: the CUDA benchmark compiles this file on a machine without overlapsim's libraries.
//
//   overlapsim-bench-plan 1
//   point --model deepseek-v3 --hw h200-sxm ...     (the what-if's flags, for the record)
//   strategy tbo-decode
//   hardware h200-sxm
//   layers 31 2                                     (first layer, count)
//   launch_mode graph
//   stream 0 compute 0                              (index, name, priority: higher first)
//   events 12
//   kernel 0 gemm stream=0 name=A.L31.attn/wqkv_a m=64 n=2112 k=7168 groups=1 dtype=fp8 ...
//   launch 0 [host_us=..] | record EVENT STREAM | wait EVENT STREAM | block EVENT | delay US
//   predicted window_us=412.5 ...                   (the engine's figures at export)
#include <cstdint>
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ovs::bench_plan {

// A malformed plan: "file:line: field: why".
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Kind {
  gemm,       // cuBLASLt: m x k activations by n x k weights per group (strided batch of groups)
  attention,  // a stand-in of the attention's FLOPs and bytes (see layer.cpp)
  memory,     // reads and writes of HBM bytes (norms, activations, quantization)
  standin,    // communication: a spin kernel holding `sms` SMs for `duration_us`
};
std::string_view kind_name(Kind k);

struct Kernel {
  int id = 0;
  Kind kind = Kind::memory;
  int stream = 0;
  std::string name;  // "A.L31.attn/wqkv_a" (micro-batch, layer, op/kernel)
  // gemm
  std::int64_t m = 0, n = 0, k = 0;
  int groups = 1;
  std::string dtype = "bf16";  // bf16 | fp8 | fp4
  std::string weight;          // the weight tensor, layer-qualified ("L31.wqkv_a.w"); may repeat
  int sm_cap = 0;              // 0: every SM
  // attention, memory (and gemm, for the record)
  double tensor_flops = 0;
  double cuda_core_flops = 0;
  double read_bytes = 0;
  double write_bytes = 0;
  std::int64_t ctas = 0;
  // standin
  double duration_us = 0;
  int sms = 0;
  // The engine's figures at export: alone on an idle GPU, and in the window's run.
  double predicted_alone_us = 0;
  double predicted_in_run_us = 0;
};

struct Step {
  enum class Op { launch, record, wait, block, delay } op = Op::launch;
  int a = 0;       // kernel (launch), event (record, wait, block)
  int b = 0;       // stream (record, wait)
  double us = -1;  // delay; launch: host_us when >= 0
};

struct Stream {
  std::string name;
  int priority = 0;
};

struct Plan {
  std::string file;  // where it was read from (errors), not written
  std::string point;
  std::string strategy;
  std::string hardware;
  int first_layer = 0;
  int layers = 1;
  std::string launch_mode = "eager";  // eager | graph
  std::vector<Stream> streams;
  int events = 0;
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  std::map<std::string, double> predicted;  // window_us, per_layer_us, ...
};

Plan parse(std::string_view text, const std::string& file);
Plan load(const std::string& path);  // PlanError when the file cannot be read
void write(std::ostream& out, const Plan& p);

}  // namespace ovs::bench_plan
