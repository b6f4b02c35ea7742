#pragma once
// A GPU's hardware profile (hw_profiles/<name>.yaml): the engine's capacities plus the
// parameters of the cost models. Every number in a shipped profile carries its source.
#include <array>
#include <string>
#include <vector>

#include "models/hw/kernel_params.hpp"
#include "sim/engine/hardware.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {

struct SourcedField {
  std::string path;  // e.g. "hbm.achievable_gbps"
  double value = 0;
  std::string source;  // empty when the file gave a bare number
  int line = 0;
  bool list = false;  // a list of whole numbers; value is its first entry
};

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
  KernelParams kernels;  // cost-model parameters
  bool has_kernel_params = false;
  // What a serving process holds besides weights, KV cache and activations (the memory model,
  // models/memory/), from the profile's memory: section.
  struct MemoryParams {
    double framework_reserve_gb = 0;        // CUDA context, NCCL, workspaces, allocator slack
    double cuda_graph_pool_gb = 0;          // captured decode graphs beyond the activations
    double deepep_normal_buffer_gb = 0;     // DeepEP normal-mode NVLink + RDMA buffers
    int deepep_ll_max_tokens_per_rank = 0;  // DeepEP low-latency buffer sizing
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
