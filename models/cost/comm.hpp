#pragma once
// Communication cost models: DeepEP normal dispatch/combine (RDMA across nodes once per node,
// then NVLink inside the node; the kernels hold num_sms SMs), DeepEP low-latency send/receive
// (one message per token and expert; data in flight holds no SM), and the NVLink collectives of
// DP attention. Bytes follow from tokens, top-k, hidden size, dtype and the routing statistics.
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
};

struct DeepepCost {
  // normal: one kernel. low_latency: send (SMs), transfer (no SM, links), receive (SMs).
  std::vector<KernelCost> kernels;
  double logical_bytes = 0;  // as DeepEP's README counts them (its "bandwidth" = this / time)
  RoutingStats routing;
};

// Bytes per token on the wire: FP8 hidden + 1 FP32 scale per 128 values; BF16 2 B per value.
double deepep_token_bytes(Dtype dtype, int hidden);

DeepepCost deepep_cost(const HwProfile& hw, const DeepepShape& s);

// The normal-mode count exchange before a dispatch (notify_dispatch): a small kernel on the
// communication SMs whose end the host waits for.
KernelCost deepep_notify_cost(const HwProfile& hw, const DeepepShape& s);

enum class Collective { all_gather, reduce_scatter };
// NVLink ring collective over `ranks` GPUs of `bytes_total` (the gathered size).
KernelCost collective_cost(const HwProfile& hw, Collective c, double bytes_total, int ranks);

}  // namespace ovs
