#pragma once
// Communication cost models: DeepEP normal dispatch/combine (RDMA across nodes once per node,
// then NVLink inside the node; the kernels hold num_sms SMs), DeepEP low-latency send/receive
// (one message per token and expert; data in flight holds no SM; the receive kernel polls on the
// SMs it holds until the data is there), and the NVLink collectives of DP attention. Bytes follow
// from tokens, top-k, hidden size, dtype and the routing statistics. What DeepEP launches, kernel
// by kernel: ../shared/data/sglang_kernels.md sections 2-5.
#include <cstdint>
#include <vector>

#include "models/cost/kernel_cost.hpp"
#include "models/cost/routing.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

enum class DeepepMode { normal, low_latency };
enum class CommOp { dispatch, combine };

struct DeepepShape {
  DeepepMode mode = DeepepMode::normal;
  CommOp op = CommOp::dispatch;
  std::int64_t tokens = 0;  // tokens on this rank
  int hidden = 7168;
  RoutingSpec routing;
  Dtype dispatch_dtype = Dtype::fp8;  // combine is BF16
  int num_sms = 0;                    // normal mode; 0 = the profile's default
  double imbalance = 1.0;             // hottest rank's traffic over the mean
  int physical_experts = 0;           // routed + redundant (low-latency grids); 0 = routed
};

// The kernels of one DeepEP call, by role, in launch order:
//   normal dispatch: layout (get_dispatch_layout), notify (the count exchange the host waits
//     for), transfer (the dispatch kernel); normal combine: notify (cached_notify: the barrier
//     before it), transfer (the combine kernel) - all on DeepEP's stream, num_sms SMs.
//   low-latency: send (the kernel's send phase, compute stream: FP8 cast, puts), in_flight (the
//     data on NVLink / the NIC, no SM), recv (the kernel relaunched by the hook for its receive
//     phase: holds its SMs polling until the data has arrived, then unpacks or reduces).
struct DeepepCost {
  std::vector<KernelCost> kernels;
  int transfer = 0;          // index of the kernel DeepEP's own benchmarks time (normal mode)
  double logical_bytes = 0;  // as DeepEP's README counts them (its "bandwidth" = this / time)
  RoutingStats routing;
};

// Bytes per token on the wire: FP8 hidden + 1 FP32 scale per 128 values; BF16 2 B per value.
double deepep_token_bytes(Dtype dtype, int hidden);

DeepepCost deepep_cost(const HwProfile& hw, const DeepepShape& s);

// The normal-mode count exchange before a dispatch (notify_dispatch) or the barrier before a
// combine (cached_notify): a small kernel on the communication SMs; the host waits for the
// dispatch's.
KernelCost deepep_notify_cost(const HwProfile& hw, const DeepepShape& s);

// Low-latency kernels' grid (DeepEP since #213): ceil(experts / ceil(experts / SMs)) CTAs of 32
// warps for dispatch; the combine also at least ceil(T / ceil(T / SMs)).
int deepep_ll_grid(int experts, int sms, CommOp op, std::int64_t tokens);

enum class Collective { all_gather, reduce_scatter };
// NVLink ring collective over `ranks` GPUs of `bytes_total` (the gathered size).
KernelCost collective_cost(const HwProfile& hw, Collective c, double bytes_total, int ranks);

}  // namespace ovs
