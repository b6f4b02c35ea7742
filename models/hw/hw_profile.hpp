#pragma once
// A GPU's hardware profile (hw_profiles/<name>.yaml): the engine's capacities plus the
// parameters of the cost models. Every number in a shipped profile carries its source.
#include <array>
#include <string>
#include <vector>

#include "models/hw/kernel_params.hpp"
#include "models/hw/spread.hpp"
#include "sim/engine/hardware.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {

struct HwProfile {
  std::string file;
  std::string name;
  std::string description;
  std::vector<std::string> aliases;  // names of this GPU in published data
  // True if a published row's GPU column names this GPU.
  bool matches_gpu(const std::string& gpu_column) const;
  std::string vendor;  // nvidia | amd
  std::string arch;    // hopper | blackwell | cdna4
  Hardware engine;     // what the engine shares among kernels
  double boost_clock_mhz = 0;
  double sustained_clock_mhz = 0;
  std::array<double, kNumDtypes> tensor_peak_tflops{};  // dense, whole GPU, boost clock
  double hbm_peak_gbps = 0;
  double hbm_capacity_gb = 0;
  // GPUs that reach each other over NVLink (8 on an HGX board, 72 in a GB200 NVL72 rack): the
  // default GPUs per node of a workload; an EP group inside it never touches RDMA. 0 = not given
  // (programs with inline hardware); a profile with cost models must give it.
  int nvlink_domain_gpus = 0;
  // GPUs one host carries (SGLang's --nnodes counts hosts): 8 on an HGX board, where the host is
  // the NVLink domain; 4 in a GB200 NVL72 compute tray, 18 hosts in one 72-GPU domain. Divides
  // nvlink_domain_gpus; given with it (0 only where nvlink_domain_gpus is).
  int gpus_per_host = 0;
  KernelParams kernels;  // cost-model parameters
  // Of each kernel's fixed latency, the part a profiler shows as the gap between the previous
  // kernel's end and its start on a stream (the front end dispatching the next grid), eagerly
  // launched or as CUDA-graph nodes (host.kernel_gap_*_us). The engine charges the whole fixed
  // latency either way and never reads these: they only split it for reports (layer breakdowns:
  // "Launch Overhead").
  double kernel_gap_eager_us = 0;
  double kernel_gap_graph_us = 0;
  bool has_kernel_params = false;
  // What an SGLang process holds besides weights and its KV pool (the memory model,
  // models/memory/), from the profile's memory: section.
  struct MemoryParams {
    // The GPU's memory as the process sees it (SGLang's get_device_memory_capacity), MiB; 0 when
    // the profile does not give it: hbm.capacity_gb is used.
    double device_mib = 0;
    double framework_reserve_gb = 0;        // CUDA context, NCCL, workspaces
    double fragmentation_fraction = 0;      // allocator fragmentation, a share of the transients
    double cuda_graph_pool_gb = 0;          // captured decode graphs beyond the activations
    double deepep_normal_buffer_gb = 0;     // DeepEP normal-mode NVLink + RDMA buffers
    int deepep_ll_max_tokens_per_rank = 0;  // DeepEP low-latency buffer sizing
    // SGLang's default --mem-fraction-static: round((GPU MiB - reserved MiB) / GPU MiB, 3), the
    // reserve in MiB from these (memory.sglang_reserve; models/memory/mem_fraction.cpp).
    struct SglangReserve {
      double base_mib = 0;
      double per_activation_token_mib = 0;
      double min_activation_tokens = 0;
      double per_8_gpus_mib = 0;  // x tp x pp / 8
      double floor_mib = 0;       // reserved = max(reserved, floor) (GPUs over 60 GiB)
      double decode_graph_per_bs_mib = 0;
      double dp_attention_per_bs_mib = 0;  // x decode max batch x dp
      double large_bs_threshold = 0;
      double large_bs_dp_attention_per_bs_mib = 0;
      double mla_prefill_graph_mib = 0;
      double deepep_decode_graph_mib = 0;
    } sglang;
    // SGLang's default requests per DP rank when --max-running-requests is not given, and its
    // request-to-token table's extra columns (memory.sglang_requests).
    struct SglangRequests {
      double default_min = 0;
      double default_max = 0;
      double default_per_pool_context = 0;  // x pool tokens / context length
      double table_extra_tokens = 0;
    } sglang_requests;
  } memory;
  bool has_memory_params = false;
  std::vector<SourcedField> fields;  // every number read, with its source

  // Numbers whose source labels them a guess (no measurement informs them), "path: source".
  std::vector<std::string> guesses() const;

  // Per-SM sustained tensor peak for a dtype, in FLOP/us.
  double peak_per_sm(Dtype d) const {
    return engine.tensor_flops_per_us_per_sm[static_cast<int>(d)];
  }
};

// By shipped name (hw_profiles/<name>.yaml) or path. InputError on any problem.
// Throws InputError unless the profile has the kernels: section the cost models need.
void require_kernel_params(const HwProfile& p);

// GPUs per node: `asked` when > 0, else the profile's NVLink domain (nvlink_domain_gpus), so an
// EP group inside the domain uses NVLink only. InputError naming the profile when it gives none.
int gpus_per_node_or_domain(const HwProfile& p, int asked);

HwProfile load_hw_profile(const std::string& name_or_path);
// The same with fields overridden by dotted path (a sweep axis such as "links.rdma.gbps").
HwProfile load_hw_profile(const std::string& name_or_path,
                          const std::vector<std::pair<std::string, std::string>>& overrides);
// From a YAML map (a profile file's root, or inline `hardware:` in a program).
HwProfile parse_hw_profile(const yaml::Value& root);

}  // namespace ovs
