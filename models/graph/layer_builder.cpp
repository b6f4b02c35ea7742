#include "models/graph/layer_builder.hpp"
#include "sim/core/caches.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/cost/memory_kernels.hpp"
#include "models/cost/rank_spread.hpp"
#include "models/graph/layer_kernels.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/kernel_model.hpp"

namespace ovs {

using layer::gemm;
using layer::named;

const OpPlan* LayerPlan::find(const std::string& op) const {
  for (const auto& o : ops)
    if (o.op == op) return &o;
  return nullptr;
}

namespace {

// The MoE half of a layer, shared by V3 and V4 (SGLang's names).
void moe_edges(OpGraph& g, const std::string& entry, const std::string& exit) {
  g.add_edge(entry, "gate");
  g.add_edge("gate", "select_experts");
  g.add_edge("select_experts", "dispatch_a");
  g.add_edge("dispatch_a", "dispatch_b");
  g.add_edge("dispatch_b", "experts");
  g.add_edge("experts", "combine_a");
  g.add_edge("combine_a", "combine_b");
  g.add_edge(entry, "shared_experts");
  g.add_edge("combine_b", "output");
  g.add_edge("shared_experts", "output");
  g.add_edge("output", exit);
}

OpGraph v3_graph(bool dense) {
  OpGraph g;
  g.add_edge("comm_prepare_attn", "attn.prepare");
  g.add_edge("attn.prepare", "attn.core");
  g.add_edge("attn.core", "comm_prepare_mlp");
  if (dense) {
    g.add_edge("comm_prepare_mlp", "mlp");
    g.add_edge("mlp", "postprocess_layer");
  } else {
    moe_edges(g, "comm_prepare_mlp", "postprocess_layer");
  }
  return g;
}

OpGraph v4_graph() {
  OpGraph g;
  g.add_edge("mhc_prepare_attn", "attn");
  g.add_edge("attn", "mhc_post_attn_pre_mlp");
  moe_edges(g, "mhc_post_attn_pre_mlp", "mhc_postprocess");
  return g;
}

}  // namespace

LayerBuilder::LayerBuilder(const ModelConfig& model, const HwProfile& hw, const Workload& w)
    : m_(model), hw_(hw), w_(w) {
  require_kernel_params(hw);
  if (w.tokens_per_gpu <= 0) throw InputError("", 0, "tokens-per-gpu", "must be > 0");
  if (w.context <= 0) throw InputError("", 0, "context", "must be > 0");
  if (w.redundant_experts < 0) throw InputError("", 0, "redundant-experts", "must be >= 0");
  // Physical experts (routed + redundant copies, SGLang's --ep-num-redundant-experts) are spread
  // evenly: EP48 runs DeepSeek's 256 experts with 32 redundant ones, 288 = 6 x 48.
  const int physical = w.physical_experts(model.routed_experts);
  if (w.ep <= 0 || physical % w.ep != 0) {
    // Suggest what works: the redundant copies that make this EP divide the experts, and the EP
    // sizes that divide them as they are.
    std::string fix;
    if (w.ep > 0) {
      const int need = (physical + w.ep - 1) / w.ep * w.ep;
      fix = "; with EP " + std::to_string(w.ep) + " use --redundant-experts " +
            std::to_string(w.redundant_experts + need - physical) + " (" + std::to_string(need) +
            " = " + std::to_string(need / w.ep) + " x " + std::to_string(w.ep) + ")";
    }
    std::string sizes;
    for (int e = 2; e <= physical; ++e)
      if (physical % e == 0) sizes += (sizes.empty() ? "" : ", ") + std::to_string(e);
    throw InputError("", 0, "ep",
                     "EP " + std::to_string(w.ep) + " must divide the " + std::to_string(physical) +
                         " physical experts of " + model.name + " (" +
                         std::to_string(model.routed_experts) + " routed + " +
                         std::to_string(w.redundant_experts) + " redundant)" + fix +
                         "; EP sizes that divide " + std::to_string(physical) + ": " + sizes);
  }
  if (w.gpus_per_node <= 0) throw InputError("", 0, "gpus-per-node", "must be > 0");
  {
    const AttentionParams& ap = hw.kernels.attention;
    const std::string& asked = w.attention_backend;
    const std::string name = !asked.empty()              ? asked
                             : w.phase == Phase::prefill ? ap.default_prefill_backend
                                                         : ap.default_decode_backend;
    if (!name.empty()) {
      attention_backend_ = ap.backend(name);
      if (!attention_backend_) {
        std::string listed;
        for (const auto& b : ap.backends) listed += (listed.empty() ? "" : ", ") + b.name;
        throw InputError(
            "", 0, "attention-backend",
            "'" + name + "' is not an attention backend of " + hw.name +
                (listed.empty() ? " (its profile lists none)" : " (it lists: " + listed + ")"));
      }
    }
  }
  if (w.imbalance != 0 && !(w.imbalance >= 1.0))
    throw InputError("", 0, "imbalance", "must be >= 1 (the hottest rank over the mean)");
  if (model.family == ModelFamily::v3) {
    graphs_.push_back({LayerType::moe, v3_graph(false)});
    if (model.dense_layers > 0) graphs_.push_back({LayerType::dense, v3_graph(true)});
  } else {
    for (LayerType t : {LayerType::swa, LayerType::csa, LayerType::hca})
      graphs_.push_back({t, v4_graph()});
  }
  // No cycle, and every edge runs forward in declaration order: the declaration order is then a
  // topological order, and canonical_ops can return it as it is.
  for (auto& [type, g] : graphs_) {
    try {
      g.topological_order();
    } catch (const std::invalid_argument& e) {
      throw InputError(model.file, 0, "layer " + to_string(type), e.what());
    }
    const std::string problem = g.check_order(g.nodes());
    if (!problem.empty())
      throw InputError(model.file, 0, "layer " + to_string(type), "op order: " + problem);
  }
}

LayerType LayerBuilder::layer_type(int layer) const {
  if (m_.family == ModelFamily::v3)
    return layer < m_.dense_layers ? LayerType::dense : LayerType::moe;
  const int r = m_.compress_ratios.at(layer);
  return r == 0 ? LayerType::swa : r == 4 ? LayerType::csa : LayerType::hca;
}

std::vector<LayerType> LayerBuilder::layer_types() const {
  std::vector<LayerType> out;
  for (int l = 0; l < m_.layers; ++l) {
    const auto t = layer_type(l);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

const OpGraph& LayerBuilder::op_graph(LayerType type) const {
  for (const auto& [t, g] : graphs_)
    if (t == type) return g;
  throw InputError(m_.file, 0, "layer type",
                   "model " + m_.name + " has no layer type '" + to_string(type) + "'");
}

std::vector<std::string> LayerBuilder::canonical_ops(LayerType type) const {
  // SGLang's order, as the graph declares it (a topological order: checked in the constructor).
  return op_graph(type).nodes();
}

// An op of the first layer of a type, planned for the whole batch (its kernels and their
// dependencies do not depend on the batch; the whole batch's plan is the one a run without
// micro-batches builds anyway, so checking a strategy costs no layer of its own).
const OpPlan* LayerBuilder::sample_op(LayerType type, const std::string& op) const {
  for (int l = 0; l < m_.layers; ++l) {
    if (layer_type(l) != type) continue;
    return plan(l, whole_batch(w_), "A").find(op);
  }
  return nullptr;
}

std::vector<std::string> LayerBuilder::kernel_names(LayerType type, const std::string& op) const {
  std::vector<std::string> out;
  if (const OpPlan* o = sample_op(type, op))
    for (const auto& k : o->kernels) {
      const std::string_view g = kernel_group(k.name);
      if (out.empty() || out.back() != g) out.emplace_back(g);
    }
  return out;
}

const std::vector<std::pair<std::string, std::string>>& LayerBuilder::kernel_deps(
    LayerType type, const std::string& op) const {
  static const std::vector<std::pair<std::string, std::string>> none;
  const OpPlan* o = sample_op(type, op);
  return o ? o->kernel_deps : none;
}

LayerPlan LayerBuilder::build(int layer, const MicroBatch& mb, const std::string& mb_name) const {
  return plan(layer, mb, mb_name);
}

const LayerPlan& LayerBuilder::plan(int layer, const MicroBatch& mb,
                                    const std::string& mb_name) const {
  // Memoized per kind of layer, not per layer: identical layers (58 MoE layers of V3) share one
  // plan whose tensors are scoped to "the layer it is launched for" (the program builder fills
  // the index in), so each shape is costed once.
  if (!caches_enabled()) {  // every call plans afresh (kept: callers hold the reference)
    LayerPlan p = build_uncached(layer, mb, mb_name);
    scope_tensors(p, layer);
    return uncached_.emplace_back(std::move(p));
  }
  const bool hashed = m_.family == ModelFamily::v4 && layer < m_.dense_layers + m_.hash_layers;
  // The plan this kind of layer got last for this micro-batch (a program asks layer after layer
  // for the same few): found without making the memo's key.
  const LayerType type = layer_type(layer);
  auto same_batch = [&mb](const MicroBatch& o) {
    if (o.tokens != mb.tokens || o.sequences != mb.sequences ||
        o.segments.size() != mb.segments.size())
      return false;
    for (size_t i = 0; i < mb.segments.size(); ++i)
      if (o.segments[i].q_len != mb.segments[i].q_len ||
          o.segments[i].kv_len != mb.segments[i].kv_len ||
          o.segments[i].count != mb.segments[i].count)
        return false;
    return true;
  };
  for (const auto& r : recent_)
    if (r.type == type && r.hashed == hashed && r.mb_name == mb_name && same_batch(r.mb))
      return *r.plan;
  std::string key = to_string(type) + (hashed ? "#hash" : "") + "|" + mb_name + "|" +
                    std::to_string(mb.tokens) + "|" + std::to_string(mb.sequences);
  for (const auto& s : mb.segments)
    key += "|" + std::to_string(s.q_len) + "x" + std::to_string(s.kv_len) + "x" +
           std::to_string(s.count);
  auto it = memo_.find(key);
  if (it == memo_.end()) {
    LayerPlan p = build_uncached(layer, mb, mb_name);
    scope_tensors(p, layer);
    it = memo_.emplace(key, std::move(p)).first;
  }
  // Memo entries are never erased, so the pointer stays valid. (A builder asked for many batch
  // shapes keeps the first few here; the rest are found by their key.)
  if (recent_.size() < 32) recent_.push_back({type, hashed, mb_name, mb, &it->second});
  return it->second;
}

// Tensors named "L<layer>.x" become "x" scoped to the layer the kernel runs for.
void LayerBuilder::scope_tensors(LayerPlan& p, int layer) {
  const std::string prefix = "L" + std::to_string(layer) + ".";
  auto scope = [&](std::vector<TensorAccess>& list) {
    for (auto& t : list)
      if (t.tensor.rfind(prefix, 0) == 0) {
        t.tensor.erase(0, prefix.size());
        t.scope = TensorAccess::kThisLayer;
      }
  };
  for (auto& op : p.ops) {
    for (auto& k : op.kernels) {
      scope(k.cost.work.reads);
      scope(k.cost.work.writes);
    }
    for (auto& k : op.comm_kernels) {
      scope(k.cost.work.reads);
      scope(k.cost.work.writes);
    }
  }
  p.index = -1;  // shared by every layer of its kind
}

// The wait for the slowest of the EP ranks at each exchange of a MoE layer: each rank ran the
// same work since its previous exchange (before the dispatch: the layer's kernels outside the
// routed experts; before the combine: the routed experts) at its own pace, and the slowest of
// them is z(EP) x rank_time_cv x that work later than the mean rank the simulation follows
// (rank_spread.hpp); before the combine the hottest rank's extra expert rows add what they cost
// it alone. Normal mode waits in the barrier kernel before the count exchange / cached_notify;
// low-latency mode's receive polls that much longer for the last rank's data.
void LayerBuilder::rank_waits(LayerPlan& p) const {
  bool moe = false;
  double rest_us = 0, experts_us = 0;
  for (const auto& op : p.ops) {
    double us = 0;
    for (const auto& k : op.kernels) us += solo_time_us(hw_.engine, k.cost.spec());
    moe = moe || op.op == "experts";
    (op.op == "experts" ? experts_us : rest_us) += us;
  }
  if (!moe) return;
  const double cv =
      w_.graphs() ? hw_.kernels.comm.rank_time_cv_graph : hw_.kernels.comm.rank_time_cv_eager;
  const double wait_dispatch = slowest_rank_lateness_us(w_.ep, cv, rest_us);
  const double spread_combine = slowest_rank_lateness_us(w_.ep, cv, experts_us);
  const double hot_extra = p.hot_rank_experts_extra_us;
  for (auto& op : p.ops) {
    if (!op.comm) continue;
    const bool dispatch = op.comm->op == CommOp::dispatch;
    const double wait = dispatch ? wait_dispatch : spread_combine;
    for (auto& k : op.comm_kernels) {
      // Normal mode: the ranks meet at the barrier as late as their pace makes them; the
      // hottest rank, still in its experts, is waited for inside the combine, whose receiving
      // warps spin (holding their SMs) until its rows arrive. SGLang's H100 report shows it
      // there: the default placement against the perfect one adds 5.1 ms to Combine Core and
      // 0.6 ms to Combine Barrier (sglang_h100_layer_breakdown.csv).
      if (k.name == "barrier") k.cost.work.fixed_latency_us = wait;
      if (k.name == "combine") k.cost.work.fixed_latency_us += hot_extra;
      // Low-latency mode: the receive polls for the last rank's messages.
      if (k.name == "in_flight") k.cost.work.fixed_latency_us += wait + (dispatch ? 0 : hot_extra);
      // The earliest rank leads the mean one by as much as the slowest trails it (the spread is
      // symmetric): the collective after the barrier waits for that rank's copy to get SMs.
      if (k.name == "dispatch" || k.name == "combine")
        k.cost.work.peer_lead_us = dispatch ? wait_dispatch : spread_combine;
    }
  }
}

LayerPlan LayerBuilder::build_uncached(int layer, const MicroBatch& mb,
                                       const std::string& mb_name) const {
  LayerPlan p;
  p.index = layer;
  p.type = layer_type(layer);
  if (m_.family == ModelFamily::v3)
    build_v3(p, layer, mb, mb_name);
  else
    build_v4(p, layer, mb, mb_name);
  rank_waits(p);
  // Order as the canonical list.
  const auto order = canonical_ops(p.type);
  std::stable_sort(p.ops.begin(), p.ops.end(), [&](const OpPlan& a, const OpPlan& b) {
    return std::find(order.begin(), order.end(), a.op) <
           std::find(order.begin(), order.end(), b.op);
  });
  return p;
}

DeepepShape LayerBuilder::deepep_shape(const MicroBatch& mb, CommOp op) const {
  DeepepShape s;
  s.mode = w_.mode();
  s.op = op;
  s.tokens = mb.tokens;
  s.hidden = m_.hidden;
  // Tokens go to physical experts laid out contiguously over the ranks; with redundant copies the
  // groups are the physical experts in equal runs (uniform routing), or no group limit when the
  // copies do not split evenly into the groups.
  const int physical = w_.physical_experts(m_.routed_experts);
  const bool grouped = physical % m_.expert_groups == 0;
  s.routing = {
      physical, m_.topk,         grouped ? m_.expert_groups : 1, grouped ? m_.topk_groups : 1,
      w_.ep,    w_.gpus_per_node};
  // Normal mode moves tokens through bounded buffers, so every rank's exchange lasts until the
  // hottest rank has received (dispatch) or sent (combine) its rows: the transfer carries the
  // hottest rank's load. Low-latency mode puts each message straight into its receiver's buffer:
  // the simulated (mean) rank's dispatch receives the mean, but its combine waits for the rows
  // the hottest rank sends back.
  const double hot = hot_rank_load_ratio(m_, w_, mb);
  s.imbalance = s.mode == DeepepMode::low_latency && op == CommOp::dispatch ? 1.0 : hot;
  s.physical_experts = physical;
  return s;
}

void LayerBuilder::add_moe_ops(LayerPlan& p, int layer, const MicroBatch& mb,
                               const std::string& mbn) const {
  const std::int64_t t = mb.tokens;
  const std::string L = "L" + std::to_string(layer) + ".";
  const std::string act = L + mbn + ".";
  const int h = m_.hidden;
  // gate: router logits (BF16 GEMM); hash-routed layers look experts up instead.
  OpPlan gate{"gate", {}, {}, {}};
  if (layer < m_.dense_layers + m_.hash_layers && m_.family == ModelFamily::v4)
    gate.kernels.push_back(
        named("hash_route",
              memory_kernel(hw_, {"hash_route", t * 8.0, t * m_.topk * 8.0, 0, 0, 0, {}, {}})));
  else
    gate.kernels.push_back(gemm(hw_, "router", t, m_.routed_experts, h, Dtype::bf16, act + "mlp_in",
                                L + "router.w", {}));
  p.ops.push_back(gate);
  p.ops.push_back(
      {"select_experts",
       {named("topk", router_topk_cost(hw_, t, m_.routed_experts, m_.topk)),
        // logical -> physical expert ids (EPLB's expert location map)
        named("expert_remap",
              memory_kernel(
                  hw_, {"expert_remap", t * m_.topk * 8.0, t * m_.topk * 8.0, 0, t, 0, {}, {}}))},
       {},
       {}});
  const bool normal = w_.mode() == DeepepMode::normal;
  const DeepepShape ds = deepep_shape(mb, CommOp::dispatch), cs = deepep_shape(mb, CommOp::combine);
  const DeepepCost dc = deepep_cost(hw_, ds), cc = deepep_cost(hw_, cs);
  // DeepEP as SGLang's dispatcher calls it (deepep.py): normal mode quantizes the tokens to FP8 in
  // dispatch_a and launches layout, count exchange and dispatch in dispatch_b, captures an event in
  // combine_a and launches the combine in combine_b; low-latency sends in the _a halves and
  // receives (the hook) in the _b halves.
  OpPlan da{"dispatch_a", {}, ds, {}}, db{"dispatch_b", {}, ds, {}};
  OpPlan ca{"combine_a", {}, cs, {}}, cb{"combine_b", {}, cs, {}};
  auto role = [](const char* name, const KernelCost& c) { return named(name, c); };
  if (normal) {
    // sglang_per_token_group_quant_fp8 on [T, hidden] (group 128), then topk_ids.to(int64).
    da.kernels.push_back(named("dispatch_quant", quantize_fp8_cost(hw_, t, h)));
    da.kernels.push_back(
        named("topk_ids_cast",
              memory_kernel(
                  hw_, {"topk_ids_cast", t * m_.topk * 4.0, t * m_.topk * 8.0, 0, 0, 0, {}, {}})));
    // The wait for the slowest rank before each count exchange / barrier (its time is set once
    // the layer's kernels are known: rank_waits).
    KernelCost barrier;
    barrier.name = "deepep_barrier";
    barrier.category = KernelCategory::comm;
    barrier.fixed_sms = dc.kernels[1].fixed_sms;
    barrier.work.ctas = barrier.fixed_sms;
    db.comm_kernels = {role("layout", dc.kernels[0]), role("barrier", barrier),
                       role("notify", dc.kernels[1]), role("dispatch", dc.kernels[2])};
    cb.comm_kernels = {role("barrier", barrier), role("notify", cc.kernels[0]),
                       role("combine", cc.kernels[1])};
  } else {
    da.comm_kernels = {role("send", dc.kernels[0]), role("in_flight", dc.kernels[1])};
    db.comm_kernels = {role("recv", dc.kernels[2])};
    ca.comm_kernels = {role("send", cc.kernels[0]), role("in_flight", cc.kernels[1])};
    cb.comm_kernels = {role("recv", cc.kernels[2])};
  }
  p.ops.push_back(da);
  p.ops.push_back(db);
  // Routed experts of a rank with `load` times the mean rows: every rank sends t tokens x top-k,
  // a rank receives `load` times the mean (token-expert rows), spread over its local experts; as
  // tokens, it receives each once per rank holding any of its experts.
  auto expert_kernels = [&](double load) {
    const int local_experts = w_.physical_experts(m_.routed_experts) / w_.ep;
    const double received = double(t) * m_.topk * load;
    const double received_tokens = double(t) * dc.routing.ranks_per_token * load;
    const std::int64_t per_expert =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(received / local_experts)));
    const GemmLayout layout = normal ? GemmLayout::contiguous : GemmLayout::masked;
    double bvb = 0;
    const Dtype ed = layer::compute_dtype(hw_, m_.expert_dtype, &bvb);
    const std::int64_t rows = per_expert * local_experts;
    const double token_fp8 = deepep_token_bytes(Dtype::fp8, h);  // FP8 values + FP32 scales
    std::vector<OpKernel> ek;
    const bool hopper_scales = hw_.arch == "hopper";  // no UE8M0 scales: TMA-aligned FP32 scales
    if (normal) {
      // DeepGEMM contiguous path (moe_runner/deep_gemm.py): ep_scatter's two Triton kernels (per
      // expert offsets; each received token and its scales copied to every one of its local
      // experts' rows), the scale layout for TMA, grouped GEMMs, silu_and_mul and a per-token-group
      // quant between them, and ep_gather summing each token's top-k rows with their weights.
      ek.push_back(named("ep_scatter_offsets",
                         memory_kernel(hw_, {"ep_scatter_offsets",
                                             received * 8.0,
                                             double(local_experts) * 8.0 + received * 4.0,
                                             0,
                                             0,
                                             1,
                                             {},
                                             {}})));
      ek.push_back(named("ep_scatter", memory_kernel(hw_, {"ep_scatter",
                                                           received_tokens * token_fp8,
                                                           double(rows) * token_fp8,
                                                           0,
                                                           0,
                                                           0,
                                                           {},
                                                           act + "recv"})));
      if (hopper_scales)
        ek.push_back(named(
            "scale_align",
            memory_kernel(
                hw_,
                {"scale_align", rows * h / 128.0 * 4, rows * h / 128.0 * 4, 0, 0, 0, {}, {}})));
    } else if (hopper_scales) {
      // Masked path (decode): the received FP32 scales made MN-major and TMA-aligned.
      ek.push_back(named(
          "scale_align",
          memory_kernel(
              hw_, {"scale_align", rows * h / 128.0 * 4, rows * h / 128.0 * 4, 0, 0, 0, {}, {}})));
    }
    ek.push_back(gemm(hw_, "experts_gate_up", per_expert, 2LL * m_.moe_inter, h, ed, act + "recv",
                      L + "experts.w13", act + "experts_h", local_experts, layout, bvb));
    if (normal) {
      ek.push_back(named("experts_act", swiglu_cost(hw_, rows, m_.moe_inter, false)));
      ek.push_back(named("experts_act_quant", quantize_fp8_cost(hw_, rows, m_.moe_inter)));
      if (hopper_scales)
        ek.push_back(named("scale_align_down", memory_kernel(hw_, {"scale_align",
                                                                   rows * m_.moe_inter / 128.0 * 4,
                                                                   rows * m_.moe_inter / 128.0 * 4,
                                                                   0,
                                                                   0,
                                                                   0,
                                                                   {},
                                                                   {}})));
    } else {
      // silu_and_mul_masked_post_quant: SiLU, multiply and FP8 quant in one Triton kernel.
      ek.push_back(named("experts_act", swiglu_cost(hw_, rows, m_.moe_inter, true)));
    }
    ek.push_back(gemm(hw_, "experts_down", per_expert, h, m_.moe_inter, ed, act + "experts_a",
                      L + "experts.w2", act + "experts_out", local_experts, layout, bvb));
    if (normal)
      ek.push_back(named("ep_gather", memory_kernel(hw_, {"ep_gather",
                                                          double(rows) * h * 2.0,
                                                          received_tokens * h * 2.0,
                                                          double(rows) * h * 2.0,
                                                          0,
                                                          0,
                                                          act + "experts_out",
                                                          {}})));
    return ek;
  };
  // The simulated rank carries the mean load; the hottest rank's extra rows reach it as the
  // time it waits for that rank at the combine (barrier below) and as the longer transfers.
  OpPlan experts{"experts", expert_kernels(1.0), {}, {}};
  {
    const double hot = cs.imbalance;
    double mean_us = 0, hot_us = 0;
    for (const auto& k : experts.kernels) mean_us += solo_time_us(hw_.engine, k.cost.spec());
    if (hot > 1.0)
      for (const auto& k : expert_kernels(hot)) hot_us += solo_time_us(hw_.engine, k.cost.spec());
    p.hot_rank_experts_extra_us = std::max(0.0, hot_us - mean_us);
  }
  p.ops.push_back(experts);
  p.ops.push_back(ca);
  p.ops.push_back(cb);
  OpPlan shared{"shared_experts", {}, {}, {}};
  if (m_.shared_experts > 0) {
    // DeepseekV2MLP: gate_up (quant + DeepGEMM), SiluAndMul, down (quant + DeepGEMM).
    const std::int64_t inter = std::int64_t(m_.moe_inter) * m_.shared_experts;
    shared.kernels.push_back(named("shared_quant", quantize_fp8_cost(hw_, t, h)));
    shared.kernels.push_back(gemm(hw_, "shared_gate_up", t, 2 * inter, h, Dtype::fp8,
                                  act + "mlp_in", L + "shared.w13", {}));
    shared.kernels.push_back(
        named("shared_act", swiglu_cost(hw_, t, static_cast<int>(inter), false)));
    shared.kernels.push_back(
        named("shared_down_quant", quantize_fp8_cost(hw_, t, static_cast<int>(inter))));
    shared.kernels.push_back(
        gemm(hw_, "shared_down", t, h, inter, Dtype::fp8, {}, L + "shared.w2", act + "shared_out"));
    shared.kernel_deps = {{"shared_quant", "shared_gate_up"},
                          {"shared_gate_up", "shared_act"},
                          {"shared_act", "shared_down_quant"},
                          {"shared_down_quant", "shared_down"}};
  }
  p.ops.push_back(shared);
  p.ops.push_back({"output", {named("moe_output_add", residual_add_cost(hw_, t, h))}, {}, {}});
}

std::vector<OpKernel> LayerBuilder::prologue(const MicroBatch& mb) const {
  const double copies = m_.family == ModelFamily::v4 ? m_.hc_mult : 1;
  const double row = double(m_.hidden) * 2;
  return {named(
      "embedding",
      memory_kernel(
          hw_, {"embedding", mb.tokens * row, mb.tokens * row * copies, 0, mb.tokens, 0, {}, {}}))};
}

std::vector<OpKernel> LayerBuilder::epilogue(const MicroBatch& mb) const {
  // Logits only for the last token of each sequence in prefill, for every token in decode.
  const std::int64_t rows = w_.phase == Phase::prefill ? mb.sequences : mb.tokens;
  std::vector<OpKernel> out;
  if (m_.family == ModelFamily::v4)
    out.push_back(named("final_mhc", mhc_post_cost(hw_, mb.tokens, m_.hidden, m_.hc_mult)));
  out.push_back(named("final_norm", rmsnorm_cost(hw_, rows, m_.hidden)));
  out.push_back(gemm(hw_, "lm_head", rows, m_.vocab, m_.hidden, Dtype::bf16, {}, "lm_head.w", {}));
  return out;
}

}  // namespace ovs
