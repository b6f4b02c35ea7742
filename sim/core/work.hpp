#pragma once
// Work: what a kernel has to do. Cost models produce it; the engine turns it into time.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ovs {

// Tensor-core data types. CUDA-core FLOPs are counted separately (Work::cuda_core_flops).
enum class Dtype : int { bf16 = 0, fp8 = 1, fp4 = 2 };
inline constexpr int kNumDtypes = 3;
inline constexpr std::array<std::string_view, kNumDtypes> kDtypeNames = {"bf16", "fp8", "fp4"};
std::optional<Dtype> parse_dtype(std::string_view name);
std::string_view dtype_name(Dtype d);

// Inter-GPU links. Bandwidth and latency per GPU come from the hardware profile.
enum class Link : int { nvlink = 0, rdma = 1 };
inline constexpr int kNumLinks = 2;
inline constexpr std::array<std::string_view, kNumLinks> kLinkNames = {"nvlink", "rdma"};
std::optional<Link> parse_link(std::string_view name);

// A named tensor that a kernel reads or writes. The engine decides, when the kernel starts,
// whether a read is served from L2 (still resident, or being read right now by another
// kernel) or from HBM. Writes mark the tensor resident and cost HBM bytes (write-back).
struct TensorAccess {
  std::string tensor;
  double bytes = 0;
  // The layer the tensor belongs to (tensors of different layers share names: "qkv_a.w" of
  // layer 5 is not that of layer 6); -1: a tensor of the whole model; kThisLayer: the layer the
  // kernel is launched for (a layer plan shared by identical layers; the program builder fills it).
  int scope = -1;
  static constexpr int kThisLayer = -2;
};

// What one CTA of a kernel takes from the SM it runs on. The block scheduler places a CTA on an SM
// only where all of it fits beside the CTAs already resident there (CTA slot, threads, registers,
// shared memory), so CTAs of different kernels share an SM when their footprints allow. A zero
// `threads` means "not given": each CTA then takes 1 / ctas_per_sm of every SM capacity (a kernel
// with ctas_per_sm 1 owns whole SMs).
struct CtaFootprint {
  int threads = 0;
  int registers_per_thread = 0;
  double shared_bytes = 0;
  bool given() const { return threads > 0; }
};

struct Work {
  std::array<double, kNumDtypes> tensor_flops{};  // tensor-core FLOPs by dtype
  double cuda_core_flops = 0;                     // FP32 SIMT FLOPs (softmax, norms, Sinkhorn)
  double hbm_bytes = 0;                           // DRAM traffic not tied to a named tensor
  double l2_bytes = 0;                            // traffic served by L2 (known hits)
  std::array<double, kNumLinks> link_bytes{};     // bytes this GPU sends over each link
  std::int64_t ctas = 1;                          // grid size
  int ctas_per_sm = 1;     // CTAs per SM when no footprint is given (else from the footprint)
  CtaFootprint cta;        // per-CTA SM resources (co-residency)
  std::int64_t tiles = 0;  // units of equal work for wave quantization; 0 = ctas
  // Fraction of an SM's tensor/CUDA-core peak reached by each busy SM (pipeline efficiency;
  // tile padding is not here: cost models count padded FLOPs in tensor_flops).
  double compute_efficiency = 1.0;
  double fixed_latency_us = 0;  // paid once at start, holding SMs, using no bandwidth
  // Per unit of wave quantization (a GEMM tile) on its CTA, outside the pipelined main loop:
  // prologue, pipeline fill, scale promotion (tile_overhead_us), and the part of the tile's
  // output written after it (tile_serial_bytes, at one SM's share of HBM).
  double tile_overhead_us = 0;
  double tile_serial_bytes = 0;
  // A collective kernel (DeepEP normal mode after its barrier) ends only when every rank's copy
  // has run. The earliest rank at the barrier leads this one by up to this much compute-stream
  // time; a kernel it started meanwhile that takes every SM keeps its copy off the SMs until
  // that kernel ends, and this rank's copy waits as long, holding its SMs (engine.cpp).
  double peer_lead_us = 0;
  std::vector<TensorAccess> reads;
  std::vector<TensorAccess> writes;

  double total_tensor_flops() const;
  bool empty() const;
  // Every number of `o` (tensor bytes included), keeping this Work's tensor names and scopes:
  // for a Work whose tensor lists have the same names in the same order.
  void assign_numbers(const Work& o);
  // Every number that adds to the kernel's time alone (FLOPs, bytes, fixed latency, per-tile
  // costs, tensor bytes) times f: the same kernel f times as long at every rate.
  void scale_time(double f);
  // This Work and `o` (tensor lists of the same lengths) both become their mean, so that each
  // takes the mean of their times alone: FLOPs and bytes, CTAs and tiles, fixed latency and
  // peer lead, the per-tile costs over the mean tiles, the efficiency over the mean FLOPs.
  void average_with(Work& o);
};

}  // namespace ovs
