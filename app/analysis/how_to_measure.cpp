// What measurement pins down each uncertain number (the sensitivity ranking's last column): the
// microbenchmark family of calibrate/run-on-gpu.sh, a published table `overlapsim calibrate
// --data` refits from, or a profiler trace `overlapsim import-trace` reads.
#include <string>
#include <utility>
#include <vector>

#include "app/analysis/uncertainty.hpp"

namespace ovs {

std::string how_to_measure(const std::string& doc, const std::string& path) {
  // First prefix that matches, most specific first.
  static const std::vector<std::pair<std::string, std::string>> hints = {
      {"model:moe.expert_load_cv",
       "a Kineto trace of one decode step with `overlapsim import-trace` (each rank's wait in the "
       "DeepEP combine), or SGLang's expert-distribution recorder"},
      {"model:moe.sequence_expert_cv",
       "SGLang's expert-distribution recorder per request, or a Kineto trace with `overlapsim "
       "import-trace`"},
      {"model:mtp.", "the acceptance rate SGLang logs with speculative decoding on"},
      {"model:", "the model's config.json"},
      {"hw:hbm.", "measure with `calibrate/run-on-gpu.sh --only hbm`"},
      {"hw:l2.", "measure with `calibrate/run-on-gpu.sh --only l2`"},
      {"hw:sm.", "measure with `calibrate/run-on-gpu.sh --only concurrency` (kernel pairs)"},
      {"hw:host.kernel_gap",
       "a Kineto trace of one decode step with `overlapsim import-trace` (gaps between kernels)"},
      {"hw:host.", "measure with `calibrate/run-on-gpu.sh --only launch`"},
      {"hw:kernels.gemm.",
       "measure with `calibrate/run-on-gpu.sh --only gemm`, or refit DeepGEMM's test tables "
       "(`overlapsim calibrate --data deepgemm.csv`)"},
      {"hw:kernels.attention.",
       "FlashMLA's benchmark table (`overlapsim calibrate --data flashmla.csv`), or a Kineto trace "
       "with `overlapsim import-trace`"},
      {"hw:kernels.memory.",
       "measure with `calibrate/run-on-gpu.sh --only launch` (small kernels)"},
      {"hw:kernels.comm.normal_",
       "DeepEP's `test_intranode.py` / `test_internode.py` normal-mode tables "
       "(`overlapsim calibrate --data deepep.csv`)"},
      {"hw:kernels.comm.ll_",
       "DeepEP's `test_low_latency.py` table (`overlapsim calibrate --data deepep.csv`)"},
      {"hw:kernels.comm.rank_time_cv",
       "a Kineto trace of one decode step on every rank with `overlapsim import-trace` (the "
       "spread of the ranks' arrival at the combine)"},
      {"hw:kernels.comm.", "an NCCL-tests all-reduce / all-gather table at this GPU count"},
      {"hw:kernels.framework_op_us",
       "a Kineto trace of one step with `overlapsim import-trace` (host time per op)"},
      {"hw:links.nvlink.", "DeepEP's `test_intranode.py` table (NVLink GB/s and latency at EP 8)"},
      {"hw:links.rdma.", "DeepEP's `test_internode.py` and `test_low_latency.py` tables"},
      {"hw:memory.", "SGLang's startup log (memory pool sizes) on this GPU"},
      {"hw:", "the vendor's datasheet or a device query"},
  };
  const std::string key = doc + ":" + path;
  for (const auto& [prefix, hint] : hints)
    if (key.rfind(prefix, 0) == 0) return hint;
  return "";
}

}  // namespace ovs
