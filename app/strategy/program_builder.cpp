#include "app/strategy/program_builder.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "sim/core/caches.hpp"
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

// What a build keeps between builds on one thread: the event-name vocabulary and per-build tables
// whose storage is reused (a sweep worker builds the same strategies point after point).
struct Scratch {
  std::unordered_map<std::string, int> what_ids;  // "<what><suffix>" of an event name -> id
  std::vector<int> event_of;   // [(layer + 1) x 2 + micro-batch][what id]: event id + 1, 0: none
  std::vector<char> recorded;  // by event id: recorded at least once
  std::string ev, key;         // name buffers
  std::string shape;           // the shape of the program being built (BuiltProgram::shape)
  std::vector<std::string> own_items;  // stages()' op list of a layer without a strategy list
  // Work classes (KernelSpec::work_class) by (plan cost, SM cap): an open-addressing table.
  struct ClassSlot {
    const KernelCost* source = nullptr;
    int sm_cap = 0;
    int work_class = -1;
  };
  std::vector<ClassSlot> classes;
  int n_classes = 0;
};
thread_local Scratch scratch;

// The element at `n` of `v` for writing, reusing an element (and its heap buffers) left by an
// earlier build; `n` counts the elements in use.
template <class T>
T& next_slot(std::vector<T>& v, size_t& n) {
  if (n < v.size()) return v[n++];
  ++n;
  return v.emplace_back();
}

class Builder {
 public:
  Builder(const LayerBuilder& lb, const Strategy& s, BuiltProgram& out)
      : lb_(lb), s_(s), hw_(lb.hw()), out_(out), sc_(scratch) {}

  void build() {
    Program& p = out_.program;
    const Workload& w = lb_.workload();
    std::vector<MicroBatch> mbs;
    bool split = false;
    std::string note;
    if (s_.two_batch_overlap) {
      std::string why;
      if (auto halves = split_batch(w, &why)) {
        mbs = {halves->first, halves->second};
        split = true;
      } else {
        note = why + "; running '" + s_.name + "' on the whole batch without two-batch overlap";
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
    // Embedding of the whole batch, before the split; LM head after the merge.
    const MicroBatch all = whole_batch(w);
    prologue_ = lb_.prologue(all);
    epilogue_ = lb_.epilogue(all);
    // The same shape as the program in `out_`: only the numbers of its kernels' work change.
    describe_shape(sc_.shape, note, split);
    if (caches_enabled() && !out_.origin.empty() && sc_.shape == out_.shape &&
        out_.strategy == s_) {
      renumber();
      return;
    }
    // Set when the build is complete: a build that throws half way leaves no shape to match.
    out_.shape.clear();
    p.shape = ShapeToken{};
    out_.strategy = s_;

    out_.split = split;
    out_.note = note;
    out_.stages_per_layer_hint = 0;
    out_.launch_count = 0;
    p.launch_mode = lb_.workload().graphs() ? LaunchMode::graph : LaunchMode::eager;
    p.streams.resize(4 + s_.side_streams.size());
    const char* fixed[] = {"compute", "deepep", "net.A", "net.B"};
    for (size_t i = 0; i < p.streams.size(); ++i) {
      p.streams[i].name = i < 4 ? fixed[i] : s_.side_streams[i - 4];
      p.streams[i].priority = i == 1 ? 1 : 0;
    }
    n_what_ = static_cast<int>(sc_.what_ids.size());
    sc_.event_of.clear();
    sc_.recorded.clear();
    if (sc_.classes.empty()) sc_.classes.resize(1024);
    std::fill(sc_.classes.begin(), sc_.classes.end(), Scratch::ClassSlot{});
    sc_.n_classes = 0;

    // Room for every kernel and about two host actions each (a launch, a record or a wait).
    size_t kernels = 0;
    for (const auto& layers : plans_)
      for (const LayerPlan* lp : layers)
        for (const auto& op : lp->ops) kernels += op.kernels.size() + op.comm_kernels.size();
    p.kernels.reserve(kernels + 8);
    out_.info.reserve(kernels + 8);
    p.actions.reserve(2 * kernels + 16);
    // Events are looked up by (layer, micro-batch, what) in a table sized for the vocabulary seen
    // so far; a new word grows it.
    layers_ = lb_.model().layers;
    sc_.event_of.assign(size_t(layers_ + 1) * 2 * size_t(std::max(n_what_, 1)), 0);

    for (size_t i = 0; i < prologue_.size(); ++i)
      launch_compute(prologue_[i], -1, "embed", 0, {0, -1, -1, static_cast<int>(i)}, false);
    if (out_.split)
      run_overlapped();
    else
      for (const auto& st : stages(0)) run_stage(st, 0);
    for (size_t i = 0; i < epilogue_.size(); ++i)
      launch_compute(epilogue_[i], -1, "lm_head", 0, {0, -1, -2, static_cast<int>(i)}, false);

    // Elements beyond this build's are an earlier build's.
    p.kernels.resize(n_kernels_);
    p.actions.resize(n_actions_);
    p.events.resize(n_events_);
    out_.info.resize(n_info_);
    out_.host_issue.resize(n_issue_);
    out_.origin.resize(n_kernels_);
    out_.shape = sc_.shape;
    p.shape = ShapeToken::fresh();  // renumber() keeps it: only numbers change
    // (The engine checks the program's structure before it runs it.)
  }

 private:
  // Everything the program's shape depends on besides the numbers of its kernels' work and the
  // strategy (compared whole): the split, the hardware numbers the build reads, which plan each
  // layer and micro-batch uses, and each plan's ops and kernels (names, categories, SM holdings,
  // whether the kernel holds SMs at all, tensor names and scopes), in one string compared byte for
  // byte.
  void describe_shape(std::string& out, const std::string& note, bool split) const {
    out.clear();
    auto num = [&out](std::int64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    auto real = [&num](double v) {
      std::int64_t b;
      std::memcpy(&b, &v, sizeof b);
      num(b);
    };
    auto str = [&out, &num](const std::string& v) {
      num(static_cast<std::int64_t>(v.size()));
      out.append(v);
    };
    auto kernels = [&](const std::vector<OpKernel>& ks) {
      num(static_cast<std::int64_t>(ks.size()));
      for (const auto& k : ks) {
        const KernelCost& c = k.cost;
        str(k.name);
        str(c.name);
        num(static_cast<int>(c.category));
        num(c.fixed_sms);
        num(c.sm_cap);
        num(k.deep_gemm);
        num(c.work.ctas == 0);
        for (const auto* list : {&c.work.reads, &c.work.writes}) {
          num(static_cast<std::int64_t>(list->size()));
          for (const auto& t : *list) {
            str(t.tensor);
            num(t.scope);
          }
        }
      }
    };
    num(split);
    str(note);
    num(lb_.workload().graphs());
    real(hw_.kernels.framework_op_us);
    num(deep_gemm_cap());
    num(lb_.model().layers);
    kernels(prologue_);
    kernels(epilogue_);
    std::vector<const LayerPlan*> distinct;
    for (const auto& layers : plans_)
      for (const LayerPlan* lp : layers) {
        const auto it = std::find(distinct.begin(), distinct.end(), lp);
        num(it - distinct.begin());
        if (it != distinct.end()) continue;
        distinct.push_back(lp);
        num(static_cast<int>(lp->type));
        num(static_cast<std::int64_t>(lp->ops.size()));
        for (const auto& op : lp->ops) {
          str(op.op);
          num(op.comm.has_value());
          if (op.comm) {
            num(static_cast<int>(op.comm->mode));
            num(static_cast<int>(op.comm->op));
          }
          kernels(op.kernels);
          kernels(op.comm_kernels);
        }
      }
  }

  // The program in `out_` has this build's shape: its kernels take the new costs' numbers.
  void renumber() {
    Program& p = out_.program;
    for (size_t k = 0; k < p.kernels.size(); ++k) {
      const BuiltProgram::Origin& o = out_.origin[k];
      const OpKernel* from;
      if (o.op == -1) {
        from = &prologue_[static_cast<size_t>(o.kernel)];
      } else if (o.op == -2) {
        from = &epilogue_[static_cast<size_t>(o.kernel)];
      } else {
        const OpPlan& op = plans_[static_cast<size_t>(o.micro_batch)][static_cast<size_t>(o.layer)]
                               ->ops[static_cast<size_t>(o.op)];
        from = o.kernel >= 0 ? &op.kernels[static_cast<size_t>(o.kernel)]
                             : &op.comm_kernels[static_cast<size_t>(-o.kernel - 1)];
      }
      const KernelCost& c = from->cost;
      KernelSpec& spec = p.kernels[k];
      spec.work.assign_numbers(c.work);
      spec.sm_cap =
          o.sm_cap > 0 ? (c.sm_cap > 0 ? std::min(c.sm_cap, o.sm_cap) : o.sm_cap) : c.sm_cap;
      if (o.op >= 0) out_.info[k].source = &c;
    }
  }

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
        sc_.own_items.resize(plan.ops.size());
        for (size_t i = 0; i < plan.ops.size(); ++i) sc_.own_items[i] = plan.ops[i].op;
      }
      const std::vector<std::string>& items = ls ? ls->items : sc_.own_items;
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

  // Event "L<layer>.<A|B>.<what><suffix>": its id, made on first use. Looked up by (layer,
  // micro-batch, id of "<what><suffix>"), without building the name unless the event is new.
  // With `create` false, -1 for an event not made yet.
  int ev(int layer, int m, std::string_view what, std::string_view suffix = {},
         bool create = true) {
    sc_.key.assign(what).append(suffix);
    const auto wit = sc_.what_ids.try_emplace(sc_.key, static_cast<int>(sc_.what_ids.size()));
    const int word = wit.first->second;
    if (word >= n_what_) grow_words();
    int& slot = sc_.event_of[(size_t(layer + 1) * 2 + size_t(m)) * size_t(n_what_) + size_t(word)];
    if (slot == 0) {
      if (!create) return -1;
      char digits[16];
      const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, layer);
      std::string& name = next_slot(out_.program.events, n_events_);
      name.assign(1, 'L').append(digits, end).append(m ? ".B." : ".A.").append(sc_.key);
      slot = static_cast<int>(n_events_);
    }
    return slot - 1;
  }
  // A word new to this thread's vocabulary: the table gets a column for it (and room to spare).
  void grow_words() {
    const int old_n = n_what_;
    const int new_n = static_cast<int>(sc_.what_ids.size()) + 8;
    std::vector<int> grown(size_t(layers_ + 1) * 2 * size_t(new_n), 0);
    if (old_n > 0)
      for (size_t row = 0; row < size_t(layers_ + 1) * 2; ++row)
        std::copy_n(sc_.event_of.begin() + std::ptrdiff_t(row * size_t(old_n)), old_n,
                    grown.begin() + std::ptrdiff_t(row * size_t(new_n)));
    sc_.event_of.swap(grown);
    n_what_ = new_n;
  }
  // The work class of kernels launched from plan cost `source` held to `sm_cap` SMs.
  int work_class(const KernelCost* source, int sm_cap) {
    if (2 * (sc_.n_classes + 1) > static_cast<int>(sc_.classes.size())) {
      std::vector<Scratch::ClassSlot> old(sc_.classes.size() * 2);
      old.swap(sc_.classes);
      for (const auto& c : old)
        if (c.source) find_class(c.source, c.sm_cap) = c;
    }
    Scratch::ClassSlot& slot = find_class(source, sm_cap);
    if (!slot.source) slot = {source, sm_cap, sc_.n_classes++};
    return slot.work_class;
  }
  Scratch::ClassSlot& find_class(const KernelCost* source, int sm_cap) {
    const size_t mask = sc_.classes.size() - 1;
    size_t i = (std::hash<const void*>()(source) * 0x9e3779b97f4a7c15ULL + size_t(sm_cap)) & mask;
    while (sc_.classes[i].source &&
           !(sc_.classes[i].source == source && sc_.classes[i].sm_cap == sm_cap))
      i = (i + 1) & mask;
    return sc_.classes[i];
  }
  HostAction& next_action() { return next_slot(out_.program.actions, n_actions_); }
  void record(int id, int stream) {
    HostAction& a = next_action();
    a.step = RecordAction{id, stream};
    a.label.clear();
    if (sc_.recorded.size() <= static_cast<size_t>(id)) sc_.recorded.resize(size_t(id) + 1, 0);
    sc_.recorded[static_cast<size_t>(id)] = 1;
  }
  bool recorded(int id) const {
    return static_cast<size_t>(id) < sc_.recorded.size() && sc_.recorded[static_cast<size_t>(id)];
  }
  void wait(int id, int stream) {
    HostAction& a = next_action();
    a.step = WaitAction{id, stream};
    a.label.clear();
  }
  void block(int id) {
    HostAction& a = next_action();
    a.step = BlockAction{id};
    a.label.clear();
  }

  // Launches a kernel of cost `c` on `stream` for (layer, op, micro-batch m), named `kernel`
  // within its op, held to `sm_cap` SMs (0: the cost's own cap). `source`: the layer plan's cost
  // it comes from (null when the cost does not outlive the build). Written into reused storage.
  int launch(const KernelCost& c, int stream, int layer, const std::string& op, int m,
             std::string_view kernel, bool comm, const KernelCost* source,
             BuiltProgram::Origin origin, int spin_on_event = -1) {
    Program& p = out_.program;
    const int sm_cap = origin.sm_cap;
    next_slot(out_.origin, n_origin_) = origin;
    KernelSpec& k = next_slot(p.kernels, n_kernels_);
    c.assign_to(k, stream);
    if (sm_cap > 0) k.sm_cap = k.sm_cap > 0 ? std::min(k.sm_cap, sm_cap) : sm_cap;
    k.spin_on_event = spin_on_event;
    if (source) k.work_class = work_class(source, k.sm_cap);
    // A shared layer plan's tensors belong to the layer this kernel is launched for.
    for (auto* list : {&k.work.reads, &k.work.writes})
      for (auto& t : *list)
        if (t.scope == TensorAccess::kThisLayer) t.scope = layer;
    k.op = op;
    k.micro_batch = m;
    if (comm && k.category.empty()) k.category = category_name(KernelCategory::comm);
    KernelInfo& info = next_slot(out_.info, n_info_);
    info.layer = layer;
    info.op = op;
    info.micro_batch = m;
    info.kernel = kernel;
    info.comm = comm;
    info.stage = layer >= 0 ? cur_stage_ : -1;
    info.source = source;
    const int id = static_cast<int>(n_kernels_) - 1;
    // Data in flight is not a host launch: it follows the send kernel by itself.
    std::optional<double> host_us;
    if (k.data_in_flight()) host_us = 0.0;
    HostAction& a = next_action();
    a.step = LaunchAction{id, host_us};
    a.label = op;
    if (!host_us) ++out_.launch_count;
    return id;
  }

  int deep_gemm_cap() const {
    if (s_.deep_gemm_auto) return hw_.engine.sm_count - hw_.kernels.comm.deepep_normal_sms;
    return s_.deep_gemm_num_sms;
  }

  void launch_compute(const OpKernel& k, int layer, const std::string& op, int m,
                      BuiltProgram::Origin origin, bool from_plan = true) {
    origin.sm_cap = k.deep_gemm ? deep_gemm_cap() : 0;
    launch(k.cost, kCompute, layer, op, m, k.name, k.cost.category == KernelCategory::comm,
           from_plan ? &k.cost : nullptr, origin);
  }

  void run_op(const StagedOp& so, int m) {
    const OpPlan& op = *so.op;
    cur_stage_ = so.stage_in_layer;
    char digits[16];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, so.layer);
    std::string& label = next_slot(out_.host_issue, n_issue_);
    label.assign(m ? "B.L" : "A.L").append(digits, end).append(1, '.').append(op.op);
    Program& p = out_.program;
    // Python / framework overhead of the op; CUDA-graph replay has none.
    if (p.launch_mode == LaunchMode::eager && hw_.kernels.framework_op_us > 0) {
      HostAction& a = next_action();
      a.step = DelayAction{hw_.kernels.framework_op_us, label};
      a.label = label;
    }
    const int op_index = static_cast<int>(so.op - plans_[size_t(m)][size_t(so.layer)]->ops.data());
    if (op.comm) {
      // Compute kernels of a DeepEP op (normal mode's FP8 quant in dispatch_a) come first.
      for (size_t i = 0; i < op.kernels.size(); ++i)
        launch_compute(op.kernels[i], so.layer, op.op, m, {m, so.layer, op_index, int(i)});
      run_comm(so, m, op_index);
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
    for (size_t i = 0; i < op.kernels.size(); ++i) {
      const OpKernel& k = op.kernels[i];
      // A stage split into parts ("compressor_pool/softmax", ...): the stage's placement holds
      // for each part; its waits come before the first part and its records after the last.
      const std::string_view group = kernel_group(k.name);
      const bool first = i == 0 || kernel_group(op.kernels[i - 1].name) != group;
      const bool last = i + 1 == op.kernels.size() || kernel_group(op.kernels[i + 1].name) != group;
      const Placement* pl = nullptr;
      if (so.strategy)
        for (const auto& x : so.strategy->placement)
          if (x.op == op.op && x.kernel == group) pl = &x;
      int stream = kCompute;
      int cap = k.deep_gemm ? deep_gemm_cap() : 0;
      if (pl) {
        stream = stream_index(pl->stream);
        for (const auto& w : pl->wait) {
          if (!first) break;
          if (w == "op_start") {
            wait(ev(so.layer, m, op.op, ".op_start"), stream);
            continue;
          }
          const bool prev = w.rfind("prev:", 0) == 0;
          const int layer = prev ? so.layer - 1 : so.layer;
          if (layer < 0) continue;
          const int id = ev(layer, m, std::string_view(w).substr(prev ? 5 : 0), {}, false);
          if (id >= 0 && recorded(id)) wait(id, stream);
        }
        if (pl->sm_cap > 0) cap = cap > 0 ? std::min(cap, pl->sm_cap) : pl->sm_cap;
      }
      launch(k.cost, stream, so.layer, op.op, m, k.name, k.cost.category == KernelCategory::comm,
             &k.cost, {m, so.layer, op_index, int(i), cap});
      if (pl && last)
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

  void run_comm(const StagedOp& so, int m, int op_index) {
    const OpPlan& op = *so.op;
    const DeepepShape& shape = *op.comm;
    const bool dispatch = shape.op == CommOp::dispatch;
    const bool first_half = op.op == "dispatch_a" || op.op == "combine_a";
    const std::string_view base = dispatch ? "dispatch" : "combine";
    auto launch_role = [&](const char* role, int stream, int spin_on_event = -1) {
      const OpKernel& k = comm_kernel(op, role);
      const int index = -static_cast<int>(&k - op.comm_kernels.data()) - 1;
      return launch(k.cost, stream, so.layer, op.op, m, role, true, &k.cost,
                    {m, so.layer, op_index, index, 0}, spin_on_event);
    };
    if (shape.mode == DeepepMode::normal) {
      if (first_half) {
        record(ev(so.layer, m, base, "_input"), kCompute);
        return;
      }
      wait(ev(so.layer, m, base, "_input"), kDeepep);
      if (dispatch) {
        launch_role("layout", kDeepep);
        launch_role("barrier", kDeepep);
        launch_role("notify", kDeepep);
        record(ev(so.layer, m, "counts"), kDeepep);
        block(ev(so.layer, m, "counts"));
        launch_role("dispatch", kDeepep);
      } else {
        launch_role("barrier", kDeepep);
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
    launch_role("recv", kCompute, ev(so.layer, m, base, "_arrived"));
  }

  const LayerBuilder& lb_;
  const Strategy& s_;
  const HwProfile& hw_;
  BuiltProgram& out_;
  Scratch& sc_;
  std::vector<std::vector<const LayerPlan*>> plans_;
  std::vector<OpKernel> prologue_, epilogue_;
  size_t n_kernels_ = 0, n_info_ = 0, n_actions_ = 0, n_events_ = 0, n_issue_ = 0,
         n_origin_ = 0;  // in use
  int n_what_ = 0;       // columns of sc_.event_of
  int layers_ = 0;
  int cur_stage_ = -1;
};

}  // namespace

BuiltProgram build_program(const LayerBuilder& layers, const Strategy& strategy) {
  BuiltProgram out;
  build_program_into(layers, strategy, out);
  return out;
}

void build_program_into(const LayerBuilder& layers, const Strategy& strategy, BuiltProgram& out) {
  check_strategy(strategy, layers);
  Builder b(layers, strategy, out);
  b.build();
}

}  // namespace ovs
