#include "models/cost/comm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/cost/memory_kernels.hpp"
#include "sim/core/error.hpp"

namespace ovs {

double deepep_token_bytes(Dtype dtype, int hidden) {
  if (dtype == Dtype::bf16) return 2.0 * hidden;
  return hidden * dtype_bytes(dtype) + std::ceil(hidden / 128.0) * 4.0;
}

namespace {

RoutingStats checked_routing(const DeepepShape& s) {
  try {
    return routing_stats(s.routing);
  } catch (const std::invalid_argument& e) {
    throw InputError("", 0, "routing", e.what());
  }
}

const char* op_name(CommOp op) {
  return op == CommOp::dispatch ? "dispatch" : "combine";
}

}  // namespace

int deepep_ll_grid(int experts, int sms, CommOp op, std::int64_t tokens) {
  sms = std::max(1, sms);
  const int groups = (std::max(1, experts) + sms - 1) / sms;
  int grid = (std::max(1, experts) + groups - 1) / groups;
  if (op == CommOp::combine && tokens > 0) {
    const std::int64_t per = (tokens + sms - 1) / sms;
    grid = std::max<int>(grid, static_cast<int>((tokens + per - 1) / per));
  }
  return std::min(grid, sms);
}

DeepepCost deepep_cost(const HwProfile& hw, const DeepepShape& s) {
  const CommParams& p = hw.kernels.comm;
  if (s.tokens < 0) throw InputError("", 0, "tokens", "must be >= 0");
  DeepepCost out;
  out.routing = checked_routing(s);
  const RoutingStats& r = out.routing;
  const double tb =
      deepep_token_bytes(s.op == CommOp::dispatch ? s.dispatch_dtype : Dtype::bf16, s.hidden);
  const double t = double(s.tokens);
  const bool has_rdma = r.nodes > 1;
  if (has_rdma && hw.engine.links[1].bytes_per_us <= 0)
    throw InputError("", 0, "ep",
                     fmt::format("EP {} spans {} nodes but {} has no RDMA link", s.routing.ep_size,
                                 r.nodes, hw.name));

  if (s.mode == DeepepMode::normal) {
    KernelCost k;
    k.name = fmt::format("deepep_{}_normal", op_name(s.op));
    k.category = KernelCategory::comm;
    k.fixed_sms = s.num_sms > 0 ? s.num_sms : p.deepep_normal_sms;
    Work& w = k.work;
    w.ctas = k.fixed_sms;
    // RDMA once per remote node, then NVLink copies inside every node; the wire carries the
    // payload at the measured efficiency of these kernels. The hottest rank (the one simulated)
    // receives `imbalance` times the mean.
    const double rdma = t * r.remote_nodes_per_token * tb * s.imbalance;
    const double nvl =
        (has_rdma ? t * r.nvlink_copies_per_token : t * r.same_node_ranks_per_token) * tb *
        s.imbalance;
    w.link_bytes[static_cast<int>(Link::rdma)] = rdma / p.normal_rdma_efficiency;
    w.link_bytes[static_cast<int>(Link::nvlink)] = nvl / p.normal_nvlink_efficiency;
    // DRAM traffic of DeepEP's buffered path (the NIC and NVLink peers read and write this GPU's
    // memory too): the sender reads its tokens and stages one copy per remote node in the RDMA
    // send buffer, which the NIC reads; the NIC writes what arrives into the RDMA receive
    // buffer, which the forwarding warps read; peers' forwarders write this rank's tokens into
    // its NVLink buffer, and its receiving warps read them and write the output. Each staged
    // byte is written once and read once. (Intranode: no RDMA stage.)
    const double send = t * tb * (1.0 + (has_rdma ? 2.0 * r.remote_nodes_per_token : 0.0));
    const double recv =
        t * tb * s.imbalance *
        ((has_rdma ? 2.0 * r.remote_nodes_per_token : 0.0) + 3.0 * r.ranks_per_token);
    w.hbm_bytes = send + recv;
    out.logical_bytes = t * (has_rdma ? r.nodes_per_token : r.ranks_per_token) * tb;
    k.logical_bytes = out.logical_bytes;
    k.detail =
        fmt::format("EP {} over {} node(s): {:.2f} nodes, {:.2f} ranks per token; {} SMs",
                    s.routing.ep_size, r.nodes, r.nodes_per_token, r.ranks_per_token, k.fixed_sms);
    if (s.op == CommOp::dispatch) {
      // get_dispatch_layout: per-rank and per-expert token counts from the top-k ids.
      MemoryKernelShape layout;
      layout.name = "deepep_layout";
      layout.read_bytes = t * s.routing.topk * 8.0;
      layout.write_bytes = t * s.routing.ep_size + 4.0 * (s.routing.ep_size + s.routing.experts);
      layout.rows = std::max<std::int64_t>(1, s.tokens);
      KernelCost l = memory_kernel(hw, layout);
      l.category = KernelCategory::comm;
      out.kernels.push_back(std::move(l));
    }
    KernelCost notify = deepep_notify_cost(hw, s);
    if (s.op == CommOp::combine) notify.name = "deepep_notify_combine";
    out.kernels.push_back(std::move(notify));
    out.transfer = static_cast<int>(out.kernels.size());
    out.kernels.push_back(std::move(k));
    return out;
  }

  // Low-latency: one message per (token, expert) to the expert's rank, none to itself; peers in
  // the same NVLink domain over NVLink, the others over RDMA. Latency grows with the peers.
  const double per_token_experts = s.routing.topk;
  const double ranks = s.routing.ep_size;
  const double local_share = 1.0 / ranks;
  const double gpn = std::min<double>(s.routing.gpus_per_node, ranks);
  const double nvl_share = (gpn - 1) / ranks;
  const double rdma_share = std::max(0.0, 1.0 - local_share - nvl_share);
  const double msgs = t * per_token_experts;   // this rank sends
  const double received = msgs * s.imbalance;  // the hottest rank receives
  const int experts = s.physical_experts > 0 ? s.physical_experts : s.routing.experts;
  const int grid = deepep_ll_grid(experts, hw.engine.sm_count, s.op, s.tokens);
  const double kernel_min = hw.kernels.memory.kernel_min_us;
  const bool dispatch = s.op == CommOp::dispatch;
  // Send phase: dispatch reads the BF16 tokens and writes them once as FP8 messages; combine
  // reads the experts' BF16 outputs of the tokens it received and stages them for the puts.
  KernelCost send;
  send.name = fmt::format("deepep_{}_ll_send", op_name(s.op));
  send.category = KernelCategory::comm;
  send.fixed_sms = grid;
  send.work.ctas = grid;
  send.work.hbm_bytes = dispatch ? t * s.hidden * 2.0 + t * tb : 2.0 * received * tb;
  send.work.fixed_latency_us = kernel_min;
  // In flight: the messages on the links (the NIC and NVLink read the sender's HBM and write the
  // receiver's), then the last flag; no SM is held.
  KernelCost transfer;
  transfer.name = fmt::format("deepep_{}_ll_in_flight", op_name(s.op));
  transfer.category = KernelCategory::comm;
  transfer.fixed_sms = 0;
  transfer.work.ctas = 0;
  const double wire = std::max(msgs, received) * tb;
  transfer.work.link_bytes[static_cast<int>(Link::nvlink)] =
      wire * nvl_share / p.ll_nvlink_efficiency;
  if (rdma_share > 0) {
    if (hw.engine.links[1].bytes_per_us <= 0)
      throw InputError("", 0, "ep",
                       fmt::format("EP {} spans several NVLink domains but {} has no RDMA link",
                                   s.routing.ep_size, hw.name));
    transfer.work.link_bytes[static_cast<int>(Link::rdma)] =
        wire * rdma_share / p.ll_rdma_efficiency;
  }
  transfer.work.hbm_bytes = (msgs + received) * tb * (1.0 - local_share);
  transfer.work.fixed_latency_us = p.ll_latency_us + p.ll_latency_per_log2_ep_us * std::log2(ranks);
  // Receive phase: polls until every expected token has arrived (the engine holds its SMs while
  // the data is in flight), then dispatch unpacks the messages into the per-expert layout and
  // combine reduces each token's top-k expert outputs with their weights.
  KernelCost recv;
  recv.name = fmt::format("deepep_{}_ll_recv", op_name(s.op));
  recv.category = KernelCategory::comm;
  recv.fixed_sms = grid;
  recv.work.ctas = grid;
  recv.work.hbm_bytes =
      dispatch ? 2.0 * received * tb : t * per_token_experts * s.hidden * 2.0 + t * s.hidden * 2.0;
  recv.work.fixed_latency_us = kernel_min;
  out.logical_bytes = t * per_token_experts * tb;
  transfer.logical_bytes = out.logical_bytes;
  transfer.detail =
      fmt::format("{} messages/token: {:.0f}% NVLink, {:.0f}% RDMA, {:.0f}% local; {} SMs polling",
                  per_token_experts, 100 * nvl_share, 100 * rdma_share, 100 * local_share, grid);
  out.kernels = {send, transfer, recv};
  return out;
}

KernelCost deepep_notify_cost(const HwProfile& hw, const DeepepShape& s) {
  const RoutingStats r = checked_routing(s);
  KernelCost k;
  k.name = "deepep_notify_dispatch";
  k.category = KernelCategory::comm;
  k.fixed_sms = s.num_sms > 0 ? s.num_sms : hw.kernels.comm.deepep_normal_sms;
  k.work.ctas = k.fixed_sms;
  // A few bytes of counts to every peer and a barrier: an all-to-all signalling round like the
  // low-latency kernels' (their fitted latency), over the slowest link used.
  const int link = r.nodes > 1 ? static_cast<int>(Link::rdma) : static_cast<int>(Link::nvlink);
  k.work.link_bytes[link] = 64.0 * s.routing.ep_size;
  k.work.fixed_latency_us =
      hw.kernels.comm.ll_latency_us +
      hw.kernels.comm.ll_latency_per_log2_ep_us * std::log2(double(s.routing.ep_size));
  return k;
}

KernelCost collective_cost(const HwProfile& hw, Collective c, double bytes_total, int ranks) {
  const CommParams& p = hw.kernels.comm;
  KernelCost k;
  k.name = c == Collective::all_gather ? "all_gather" : "reduce_scatter";
  k.category = KernelCategory::comm;
  k.fixed_sms = std::min(p.collective_sms, hw.engine.sm_count);
  k.work.ctas = k.fixed_sms;
  if (ranks > 1) {
    // Ring: each GPU sends (ranks - 1) / ranks of the total.
    k.work.link_bytes[static_cast<int>(Link::nvlink)] =
        bytes_total * (ranks - 1) / ranks / p.collective_efficiency;
    k.work.hbm_bytes = 2.0 * bytes_total;
  }
  k.work.fixed_latency_us = hw.kernels.memory.kernel_min_us;
  k.logical_bytes = bytes_total;
  return k;
}

}  // namespace ovs
