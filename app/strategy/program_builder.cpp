#include "app/strategy/program_builder.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>

#include "sim/core/error.hpp"

namespace ovs {
namespace {

constexpr int kCompute = 0;
constexpr int kDeepep = 1;
constexpr int kNetA = 2;  // data in flight of micro-batch A / B (program streams net.A, net.B)
constexpr int kNetB = 3;

// One micro-batch's ops, layer after layer, cut into stages.
struct StagedOp {
  int layer;
  const OpPlan* op;
  const LayerStrategy* strategy;
  int stage_in_layer;  // yields before the op in its layer's list
};

class Builder {
 public:
  Builder(const LayerBuilder& lb, const Strategy& s) : lb_(lb), s_(s), hw_(lb.hw()) {}

  BuiltProgram build() {
    Program& p = out_.program;
    p.launch_mode = lb_.workload().graphs() ? LaunchMode::graph : LaunchMode::eager;
    p.streams = {{"compute", 0}, {"deepep", 1}, {"net.A", 0}, {"net.B", 0}};
    for (const auto& side : s_.side_streams) p.streams.push_back({side, 0});
    const Workload& w = lb_.workload();

    std::vector<MicroBatch> mbs;
    if (s_.two_batch_overlap) {
      std::string why;
      if (auto split = split_batch(w, &why)) {
        mbs = {split->first, split->second};
        out_.split = true;
      } else {
        out_.note =
            why + "; running '" + s_.name + "' on the whole batch without two-batch overlap";
        mbs = {whole_batch(w)};
      }
    } else {
      mbs = {whole_batch(w)};
    }
    const char* names[] = {"A", "B"};
    // Layer plans per micro-batch.
    plans_.resize(mbs.size());
    for (size_t m = 0; m < mbs.size(); ++m)
      for (int l = 0; l < lb_.model().layers; ++l)
        plans_[m].push_back(&lb_.plan(l, mbs[m], names[m]));

    // Room for every kernel and about two host actions each (a launch, a record or a wait).
    size_t kernels = 0;
    for (const auto& layers : plans_)
      for (const LayerPlan* lp : layers)
        for (const auto& op : lp->ops) kernels += op.kernels.size() + op.comm_kernels.size();
    p.kernels.reserve(kernels + 8);
    out_.info.reserve(kernels + 8);
    p.actions.reserve(2 * kernels + 16);

    // Embedding of the whole batch, before the split; LM head after the merge.
    const MicroBatch all = whole_batch(w);
    for (const auto& k : lb_.prologue(all)) launch_compute(k, -1, "embed", 0, false);
    if (out_.split)
      run_overlapped();
    else
      for (const auto& st : stages(0)) run_stage(st, 0);
    for (const auto& k : lb_.epilogue(all)) launch_compute(k, -1, "lm_head", 0, false);

    const std::string problem = check_program(p);
    if (!problem.empty())
      throw std::logic_error("program builder produced an invalid program: " + problem);
    return std::move(out_);
  }

 private:
  // Stages of micro-batch m over all layers. A layer whose list does not end with a yield
  // merges its last stage into the next layer's first.
  std::vector<std::vector<StagedOp>> stages(int m) {
    std::vector<std::vector<StagedOp>> out(1);
    for (int l = 0; l < lb_.model().layers; ++l) {
      const LayerPlan& plan = *plans_[m][l];
      const bool fixed_dense = plan.type == LayerType::dense && !s_.layers.count("dense");
      const LayerStrategy* ls = fixed_dense ? nullptr : &s_.for_type(plan.type);
      // The strategy's list of the layer's type, or (a dense layer the strategy leaves alone) the
      // plan's ops in order.
      if (!ls) {
        own_items_.clear();
        for (const auto& o : plan.ops) own_items_.push_back(o.op);
      }
      const std::vector<std::string>& items = ls ? ls->items : own_items_;
      int stage_in_layer = 0;
      for (const auto& item : items) {
        if (item == kYield) {
          if (!out.back().empty()) out.emplace_back();
          ++stage_in_layer;
          continue;
        }
        const OpPlan* op = plan.find(item);
        if (!op) throw std::logic_error("layer plan lacks op " + item);
        out.back().push_back({l, op, ls, ls ? stage_in_layer : -1});
      }
    }
    if (out.back().empty()) out.pop_back();
    return out;
  }

  // execute_overlapped_operations: A runs delta stages alone, then A and B alternate, then B
  // runs its last delta stages.
  void run_overlapped() {
    const auto a = stages(0), b = stages(1);
    const int n = static_cast<int>(a.size());
    const int delta = std::min(s_.delta_stages, n);
    int ia = 0, ib = 0;
    for (int i = 0; i < delta; ++i) run_stage(a[ia++], 0);
    for (int i = 0; i < n - delta; ++i) {
      run_stage(a[ia++], 0);
      run_stage(b[ib++], 1);
    }
    for (int i = 0; i < delta; ++i) run_stage(b[ib++], 1);
  }

  void run_stage(const std::vector<StagedOp>& stage, int m) {
    for (const auto& so : stage) run_op(so, m);
  }

  // "L<layer>.<A|B>.<what><suffix>", written into one buffer (no allocation once it has grown):
  // the reference is valid until the next call.
  const std::string& ev(int layer, int m, std::string_view what, std::string_view suffix = {}) {
    char digits[16];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, layer);
    ev_.assign(1, 'L').append(digits, end).append(m ? ".B." : ".A.").append(what).append(suffix);
    return ev_;
  }
  int event_id(const std::string& name) {
    auto [it, inserted] = events_.try_emplace(name, static_cast<int>(out_.program.events.size()));
    if (inserted) out_.program.events.push_back(name);
    return it->second;
  }
  void record(const std::string& name, int stream) {
    const int id = event_id(name);
    out_.program.actions.push_back({RecordAction{id, stream}, {}});
    if (recorded_.size() <= static_cast<size_t>(id)) recorded_.resize(static_cast<size_t>(id) + 1);
    recorded_[static_cast<size_t>(id)] = 1;
  }
  bool recorded(const std::string& name) const {
    auto it = events_.find(name);
    return it != events_.end() && static_cast<size_t>(it->second) < recorded_.size() &&
           recorded_[static_cast<size_t>(it->second)];
  }
  void wait(const std::string& name, int stream) {
    out_.program.actions.push_back({WaitAction{event_id(name), stream}, {}});
  }
  void block(const std::string& name) {
    out_.program.actions.push_back({BlockAction{event_id(name)}, {}});
  }

  int launch(const KernelCost& c, int stream, const KernelInfo& info, int sm_cap = 0) {
    Program& p = out_.program;
    p.kernels.push_back(c.spec(stream));
    KernelSpec& k = p.kernels.back();
    if (sm_cap > 0) k.sm_cap = k.sm_cap > 0 ? std::min(k.sm_cap, sm_cap) : sm_cap;
    return launched(info);
  }

  int launch_spec(KernelSpec k, const KernelInfo& info) {
    out_.program.kernels.push_back(std::move(k));
    return launched(info);
  }

  // Completes the program's last kernel (its layer's tensors, labels) and launches it.
  int launched(const KernelInfo& info) {
    Program& p = out_.program;
    KernelSpec& k = p.kernels.back();
    // A shared layer plan's tensors belong to the layer this kernel is launched for.
    for (auto* list : {&k.work.reads, &k.work.writes})
      for (auto& t : *list)
        if (t.scope == TensorAccess::kThisLayer) t.scope = info.layer;
    k.op = info.op;
    k.micro_batch = info.micro_batch;
    if (info.comm && k.category.empty()) k.category = to_string(KernelCategory::comm);
    out_.info.push_back(info);
    if (info.layer >= 0) out_.info.back().stage = cur_stage_;
    const int id = static_cast<int>(p.kernels.size()) - 1;
    // Data in flight is not a host launch: it follows the send kernel by itself.
    std::optional<double> host_us;
    if (k.fixed_sms == 0 && k.work.ctas == 0) host_us = 0.0;
    p.actions.push_back({LaunchAction{id, host_us}, info.op});
    if (!host_us) ++out_.launch_count;
    return id;
  }

  int deep_gemm_cap() const {
    if (s_.deep_gemm_auto) return hw_.engine.sm_count - hw_.kernels.comm.deepep_normal_sms;
    return s_.deep_gemm_num_sms;
  }

  void launch_compute(const OpKernel& k, int layer, const std::string& op, int m,
                      bool from_plan = true) {
    KernelInfo info{layer, op, m, k.name, k.cost.category == KernelCategory::comm};
    if (from_plan) info.source = &k.cost;
    launch(k.cost, kCompute, info, k.deep_gemm ? deep_gemm_cap() : 0);
  }

  void run_op(const StagedOp& so, int m) {
    const OpPlan& op = *so.op;
    cur_stage_ = so.stage_in_layer;
    char digits[16];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, so.layer);
    std::string& label = out_.host_issue.emplace_back();
    label.reserve(4 + static_cast<size_t>(end - digits) + op.op.size());
    label.append(m ? "B.L" : "A.L").append(digits, end).append(1, '.').append(op.op);
    Program& p = out_.program;
    // Python / framework overhead of the op; CUDA-graph replay has none.
    if (p.launch_mode == LaunchMode::eager && hw_.kernels.framework_op_us > 0)
      p.actions.push_back({DelayAction{hw_.kernels.framework_op_us, label}, label});
    if (op.comm) {
      // Compute kernels of a DeepEP op (normal mode's FP8 quant in dispatch_a) come first.
      for (const auto& k : op.kernels) launch_compute(k, so.layer, op.op, m);
      run_comm(so, m);
      return;
    }
    // "op_start": an event on the compute stream before the op's first kernel, for side streams
    // that only need the op's input.
    if (so.strategy)
      for (const auto& x : so.strategy->placement)
        if (x.op == op.op && std::find(x.wait.begin(), x.wait.end(), "op_start") != x.wait.end()) {
          record(ev(so.layer, m, op.op, ".op_start"), kCompute);
          break;
        }
    for (const auto& k : op.kernels) {
      const Placement* pl = nullptr;
      if (so.strategy)
        for (const auto& x : so.strategy->placement)
          if (x.op == op.op && x.kernel == k.name) pl = &x;
      int stream = kCompute;
      int cap = k.deep_gemm ? deep_gemm_cap() : 0;
      if (pl) {
        stream = stream_index(pl->stream);
        for (const auto& w : pl->wait) {
          if (w == "op_start") {
            wait(ev(so.layer, m, op.op, ".op_start"), stream);
            continue;
          }
          const bool prev = w.rfind("prev:", 0) == 0;
          const int layer = prev ? so.layer - 1 : so.layer;
          const std::string& name = ev(layer, m, std::string_view(w).substr(prev ? 5 : 0));
          if (layer >= 0 && recorded(name)) wait(name, stream);
        }
        if (pl->sm_cap > 0) cap = cap > 0 ? std::min(cap, pl->sm_cap) : pl->sm_cap;
      }
      KernelInfo info{so.layer, op.op, m, k.name, k.cost.category == KernelCategory::comm};
      info.source = &k.cost;
      launch(k.cost, stream, info, cap);
      if (pl)
        for (const auto& r : pl->record) record(ev(so.layer, m, r), stream);
    }
  }

  int stream_index(const std::string& name) {
    const auto& st = out_.program.streams;
    for (size_t i = 0; i < st.size(); ++i)
      if (st[i].name == name) return static_cast<int>(i);
    throw std::logic_error("unknown stream " + name);
  }

  // DeepEP, as SGLang drives it (../shared/data/sglang_kernels.md section 4). Normal mode:
  // dispatch_a records the compute stream's event; dispatch_b makes DeepEP's stream wait for it,
  // runs the layout and the count exchange there, blocks the host until the counts arrive, then
  // launches the dispatch and makes the compute stream wait for it. combine_a only records an
  // event; combine_b launches the barrier and the combine on DeepEP's stream and makes the compute
  // stream wait. Low-latency: the _a halves launch the send phase on the compute stream (the data
  // then flies on the links, holding no SM); the _b halves launch the receive phase (the hook),
  // which holds its SMs polling until the last token has arrived.
  const OpKernel& comm_kernel(const OpPlan& op, const char* role) const {
    for (const auto& k : op.comm_kernels)
      if (k.name == role) return k;
    throw std::logic_error("DeepEP op " + op.op + " has no '" + role + "' kernel");
  }

  void run_comm(const StagedOp& so, int m) {
    const OpPlan& op = *so.op;
    const DeepepShape& shape = *op.comm;
    const bool dispatch = shape.op == CommOp::dispatch;
    const bool first_half = op.op == "dispatch_a" || op.op == "combine_a";
    const std::string_view base = dispatch ? "dispatch" : "combine";
    KernelInfo info{so.layer, op.op, m, "", true};
    auto launch_role = [&](const char* role, int stream) {
      info.kernel = role;
      info.source = &comm_kernel(op, role).cost;
      return launch(*info.source, stream, info);
    };
    if (shape.mode == DeepepMode::normal) {
      if (first_half) {
        record(ev(so.layer, m, base, "_input"), kCompute);
        return;
      }
      wait(ev(so.layer, m, base, "_input"), kDeepep);
      if (dispatch) {
        launch_role("layout", kDeepep);
        launch_role("notify", kDeepep);
        record(ev(so.layer, m, "counts"), kDeepep);
        block(ev(so.layer, m, "counts"));
        launch_role("dispatch", kDeepep);
      } else {
        launch_role("notify", kDeepep);
        launch_role("combine", kDeepep);
      }
      record(ev(so.layer, m, base, "_done"), kDeepep);
      wait(ev(so.layer, m, base, "_done"), kCompute);
      return;
    }
    const int net = m ? kNetB : kNetA;
    if (first_half) {
      launch_role("send", kCompute);
      record(ev(so.layer, m, base, "_sent"), kCompute);
      wait(ev(so.layer, m, base, "_sent"), net);
      launch_role("in_flight", net);
      record(ev(so.layer, m, base, "_arrived"), net);
      return;
    }
    // The hook: the same kernel's receive phase, polling on its SMs for the data in flight.
    info.kernel = "recv";
    info.source = &comm_kernel(op, "recv").cost;
    KernelSpec recv = info.source->spec(kCompute);
    recv.spin_on_event = event_id(ev(so.layer, m, base, "_arrived"));
    launch_spec(std::move(recv), info);
  }

  const LayerBuilder& lb_;
  const Strategy& s_;
  const HwProfile& hw_;
  BuiltProgram out_;
  std::vector<std::vector<const LayerPlan*>> plans_;
  std::unordered_map<std::string, int> events_;
  std::vector<char> recorded_;          // by event id: recorded at least once
  std::string ev_;                      // ev()'s buffer
  std::vector<std::string> own_items_;  // stages()' op list of a layer without a strategy list
  int cur_stage_ = -1;
};

}  // namespace

BuiltProgram build_program(const LayerBuilder& layers, const Strategy& strategy) {
  check_strategy(strategy, layers);
  Builder b(layers, strategy);
  return b.build();
}

}  // namespace ovs
