#include "app/cli/v4_kernels_flag.hpp"

#include <iterator>

#include "app/cli/flag_checks.hpp"
#include "models/graph/workload.hpp"

namespace ovs {

void add_v4_kernels_flag(CLI::App* cmd, std::string& value) {
  cmd->add_option("--v4-kernels", value,
                  "DeepSeek-V4 side-branch kernels as SGLang's code path launches them: fused "
                  "(CUDA upstream, ROCm with aiter), rocm-2605 (the May-2026 ROCm mix: FP32 "
                  "widening copies, per-request torch compressor loops, a decode-style logits "
                  "kernel) or torch-fallback")
      ->check(flags::one_of({std::begin(kV4KernelsNames), std::end(kV4KernelsNames)}))
      ->capture_default_str();
}

}  // namespace ovs
