#include "sim/engine/engine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "sim/core/caches.hpp"
#include "sim/engine/fast_forward.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/l2_tracker.hpp"
#include "sim/engine/share_solver.hpp"
#include "sim/engine/sm_pool.hpp"
#include "sim/engine/steady_state.hpp"
#include "sim/engine/time_grid.hpp"

namespace ovs {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class KState : char { not_issued, queued, ready, running, done };

struct KernelRun {
  KState state = KState::not_issued;
  int resident = 0;         // CTAs placed on SMs
  int sms = 0;              // SMs holding at least one of them
  double remaining = 1;     // fraction of the work left
  double latency_left = 0;  // us of fixed latency left
  double rate = 0;          // fraction per us
  double end_us = 0;        // finish time as of the last next_time()
  // The rate ceiling with `cap_resident` CTAs (cached), in its two parts: the SMs' side
  // (sm_rate_ceiling) and the wires' (link_rate_ceiling); the ceiling is the smaller.
  double cap_sm = 0;
  double cap_link = 0;
  int cap_resident = -1;                   // -1: cap not computed yet
  int stream = 0;                          // copied at launch: the host runs far ahead of
  int priority = 0;                        // the GPU, so the KernelSpec is cold at the end
  std::array<double, kNumShared> usage{};  // bytes per unit of progress, after L2 resolution
  std::int64_t enqueue_seq = 0;
  double ready_us = 0;
  int spin_record = -1;  // record it polls for (spin_on_event at launch); -1: none
  bool spinning = false;
  bool fresh = false;  // became ready since the last placement round
};

struct StreamItem {
  enum Type : char { kernel, record, wait } type;
  int index;  // kernel index, or record instance
};

struct StreamRun {
  std::vector<StreamItem> items;
  size_t head = 0;
  int priority = 0;
  bool dirty = false;  // something it waits for may have changed since it was last stepped
};

struct Record {
  int event;
  bool fired = false;
};

// A kernel's named tensor, resolved to an L2 tracker id. Every kernel's, reads then writes, sit
// in one array (no allocation per kernel).
struct TensorRef {
  int id;
  double bytes;
};

// What a run sets up from its program's shape alone (see ShapeToken): the run's own, kept per
// thread after a run of a program with a token and taken whole by the next run of a program
// with that token. The structure check passed for it; the tracker has interned its tensors (its
// state is reset when taken); the tensors' bytes and the kernel models come from the numbers,
// made again every run.
struct Skeleton {
  std::uint64_t token = 0;         // the program's shape token (0: none, or the caches off)
  std::uint64_t l2_size_bits = 0;  // the tracker's L2 size
  bool ff = false;                 // last_use is set
  L2Tracker l2{0};
  std::vector<int> class_of;    // by kernel: its work class, -1 for none (or with the caches off)
  std::vector<int> model_from;  // by kernel: the kernel whose model it copies; -1: makes its own
  std::vector<TensorRef> tensors;                        // every kernel's: reads, then writes
  std::vector<std::pair<size_t, size_t>> tensors_begin;  // per kernel: first, reads; + end
  std::vector<int> last_use;  // by tensor id: the last kernel that names it (fast-forward)
};
constexpr size_t kSkeletonsPerThread = 8;        // a sweep point's strategies, with room to spare
thread_local std::vector<Skeleton> t_skeletons;  // most recently used last

// Tokens whose program this thread has run: a set-up is kept only for a shape run before (a
// sweep worker's strategies, point after point), not for every program (a single what-if runs
// each of its programs once: keeping their set-ups would only hold memory).
thread_local std::array<std::uint64_t, kSkeletonsPerThread> t_seen_tokens{};
thread_local size_t t_seen_next = 0;

// True if `token` was seen on this thread before; records it if not.
bool seen_before(std::uint64_t token) {
  for (const std::uint64_t t : t_seen_tokens)
    if (t == token) return true;
  t_seen_tokens[t_seen_next] = token;
  t_seen_next = (t_seen_next + 1) % t_seen_tokens.size();
  return false;
}

class Run {
 public:
  Run(const Hardware& hw, const Program& p, Observer* obs)
      : hw_(hw),
        p_(p),
        obs_(obs ? obs : &null_),
        log_(obs_),
        solver_(kNumShared),
        pool_(hw.sm_count, static_cast<int>(p.kernels.size())) {
    observed_ = obs != nullptr && obs->wants_counters();
    host_observed_ = obs != nullptr && obs->wants_host();
    ff_ = fast_forward_enabled() && !observed_;  // counters are not replayed
    if (ff_) obs_ = &log_;
    // Kernels of one work class (a hint of the program builder's) share a model and tensor
    // names: made from the class's first kernel. With the caches off every kernel makes its own,
    // and nothing is kept between runs.
    const bool classes = caches_enabled();
    sh_.token = classes ? p.shape.value() : 0;
    if (!take_skeleton()) set_up_shape(classes);
    // The numbers: every run.
    models_.reserve(p.kernels.size());
    size_t i = 0;
    for (size_t k = 0; k < p.kernels.size(); ++k) {
      const KernelSpec& spec = p.kernels[k];
      const int from = sh_.model_from[k];
      if (from < 0)
        models_.push_back(make_kernel_model(hw, spec, p.launch_mode));
      else
        models_.push_back(models_[static_cast<size_t>(from)]);
      const auto& m = models_.back();
      pool_.set_share(static_cast<int>(k), m.share, m.occupancy);
      for (const auto* list : {&spec.work.reads, &spec.work.writes})
        for (const auto& t : *list) sh_.tensors[i++].bytes = t.bytes;
    }
    kr_.resize(p.kernels.size());
    streams_.resize(p.streams.size());
    for (size_t s = 0; s < p.streams.size(); ++s) streams_[s].priority = p.streams[s].priority;
    latest_record_.assign(p.events.size(), -1);
    const auto caps = shared_capacities(hw);
    base_capacity_.assign(caps.begin(), caps.end());
  }

  ~Run() {
    if (sh_.token == 0 || !seen_before(sh_.token)) return;
    try {
      if (t_skeletons.size() >= kSkeletonsPerThread) t_skeletons.erase(t_skeletons.begin());
      t_skeletons.push_back(std::move(sh_));
    } catch (...) {  // out of memory: the next run sets itself up
    }
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  RunResult go() {
    settle();
    while (true) {
      if (ff_) steady_state();
      ++result_.steps;
      if (rates_dirty_) compute_rates();
      const double next = next_time();
      if (next == kInf) break;
      if (next < gpu_next_ && queue_behind()) continue;
      advance(next);
      settle();
    }
    if (done_count_ != p_.kernels.size() || action_ < p_.actions.size() || pending_action_ >= 0)
      throw SimulationError(deadlock_message());
    result_.gpu_end_us = gpu_end_;
    result_.host_end_us = host_free_at_;
    result_.makespan_us = std::max(gpu_end_, host_free_at_);
    obs_->on_run_end(result_.makespan_us);
    return result_;
  }

 private:
  // The last run's set-up of a program with this shape, if this thread kept it.
  bool take_skeleton() {
    if (sh_.token == 0) return false;
    for (auto it = t_skeletons.begin(); it != t_skeletons.end(); ++it) {
      if (it->token != sh_.token || it->ff != ff_ || it->l2_size_bits != bits(hw_.l2_size_bytes))
        continue;
      sh_ = std::move(*it);
      t_skeletons.erase(it);
      sh_.l2.reset_state();
      return true;
    }
    return false;
  }

  // What depends on the program's shape alone: its structure checked, tensor names interned
  // (bytes filled in by the caller), work classes, and where each kernel's model comes from.
  void set_up_shape(bool classes) {
    const Program& p = p_;
    const std::string problem = check_program(p);
    if (!problem.empty()) throw std::invalid_argument(problem);
    sh_.l2 = L2Tracker(hw_.l2_size_bytes);
    sh_.l2_size_bits = bits(hw_.l2_size_bytes);
    sh_.ff = ff_;
    sh_.tensors_begin.reserve(p.kernels.size() + 1);
    size_t accesses = 0;
    for (const auto& k : p.kernels) accesses += k.work.reads.size() + k.work.writes.size();
    sh_.tensors.reserve(accesses);
    sh_.l2.reserve(accesses);
    struct ClassFirst {
      int kernel = -1;
      size_t tensors = 0;  // where its tensors begin in sh_.tensors
    };
    std::vector<ClassFirst> first;
    sh_.class_of.reserve(p.kernels.size());
    sh_.model_from.reserve(p.kernels.size());
    for (const auto& k : p.kernels) {
      const int cls = classes ? k.work_class : -1;
      sh_.class_of.push_back(cls);
      if (cls >= 0 && static_cast<size_t>(cls) >= first.size())
        first.resize(static_cast<size_t>(cls) + 1);
      const bool seen = cls >= 0 && first[static_cast<size_t>(cls)].kernel >= 0;
      const size_t begin = sh_.tensors.size();
      if (seen) {
        const ClassFirst& f = first[static_cast<size_t>(cls)];
        sh_.model_from.push_back(f.kernel);
        size_t i = f.tensors;
        for (const auto* list : {&k.work.reads, &k.work.writes})
          for (const auto& t : *list)
            sh_.tensors.push_back({sh_.l2.intern(sh_.l2.name_of(sh_.tensors[i++].id), t.scope), 0});
      } else {
        sh_.model_from.push_back(-1);
        for (const auto* list : {&k.work.reads, &k.work.writes})
          for (const auto& t : *list) sh_.tensors.push_back({sh_.l2.intern(t.tensor, t.scope), 0});
        if (cls >= 0)
          first[static_cast<size_t>(cls)] = {static_cast<int>(sh_.model_from.size()) - 1, begin};
      }
      sh_.tensors_begin.push_back({begin, k.work.reads.size()});
    }
    sh_.tensors_begin.push_back({sh_.tensors.size(), 0});
    if (ff_) {
      sh_.last_use.assign(sh_.l2.size(), -1);
      for (size_t k = 0; k + 1 < sh_.tensors_begin.size(); ++k)
        for (const auto& t : all_tensors(static_cast<int>(k)))
          sh_.last_use[t.id] = static_cast<int>(k);
    }
  }

  // ---- host thread -------------------------------------------------------------------------
  double action_cost(const HostAction& a) const {
    if (auto* l = std::get_if<LaunchAction>(&a.step)) {
      if (l->host_us) return on_time_grid(*l->host_us);
      return on_time_grid(p_.launch_mode == LaunchMode::graph ? hw_.launch_graph_us
                                                              : hw_.launch_eager_us);
    }
    if (std::holds_alternative<RecordAction>(a.step) || std::holds_alternative<WaitAction>(a.step))
      return on_time_grid(hw_.event_host_us);
    if (auto* d = std::get_if<DelayAction>(&a.step)) return on_time_grid(d->us);
    return 0;
  }

  // Applies the effect of an action the host has finished paying for.
  void apply(int index) {
    const HostAction& a = p_.actions[index];
    if (auto* l = std::get_if<LaunchAction>(&a.step)) {
      const int k = l->kernel;
      const KernelSpec& spec = p_.kernels[k];
      kr_[k].state = KState::queued;
      kr_[k].enqueue_seq = enqueue_seq_++;
      kr_[k].stream = spec.stream;
      kr_[k].priority = streams_[spec.stream].priority;
      if (spec.spin_on_event >= 0) kr_[k].spin_record = latest_record_[spec.spin_on_event];
      push_item(spec.stream, {StreamItem::kernel, k});
      obs_->on_kernel_enqueued(t_, k);
    } else if (auto* r = std::get_if<RecordAction>(&a.step)) {
      records_.push_back({r->event});
      latest_record_[r->event] = static_cast<int>(records_.size()) - 1;
      push_item(r->stream, {StreamItem::record, latest_record_[r->event]});
    } else if (auto* w = std::get_if<WaitAction>(&a.step)) {
      push_item(w->stream, {StreamItem::wait, latest_record_[w->event]});
    }
  }

  void push_item(int stream, StreamItem item) {
    streams_[stream].items.push_back(item);
    mark_stream(stream);
  }

  void mark_stream(int stream) {
    streams_[stream].dirty = true;
    streams_dirty_ = true;
    last_marked_ = stream;
  }

  // True if the host's pending action, applied now, would move no stream: it queues behind a
  // stream's head that is waiting (or is a host delay). Every stream is settled here.
  bool invisible(int action) const {
    const HostStep& step = p_.actions[action].step;
    int stream = -1;
    if (auto* l = std::get_if<LaunchAction>(&step)) {
      stream = p_.kernels[l->kernel].stream;
    } else if (auto* r = std::get_if<RecordAction>(&step)) {
      stream = r->stream;
    } else if (auto* w = std::get_if<WaitAction>(&step)) {
      stream = w->stream;
    } else {
      return std::holds_alternative<DelayAction>(step);
    }
    const StreamRun& st = streams_[stream];
    return st.head < st.items.size();
  }

  // The steps at which only the host moves and what it does moves no stream (a launch queued
  // behind busy streams: most of a CUDA-graph forward's launches), taken in a row: the same
  // steps the main loop would take (apply the action due, start the next; the streams have
  // nothing to do), without its rounds over streams and SMs. The GPU's next event is later
  // than all of them, so nothing else changes meanwhile. Returns false if none was taken.
  bool queue_behind() {
    if (pending_action_ < 0 || streams_dirty_ || capacity_freed_ || ready_added_ || rates_dirty_ ||
        !invisible(pending_action_))
      return false;
    while (true) {
      t_ = host_free_at_;
      const int i = pending_action_;
      pending_action_ = -1;
      apply(i);
      if (host_observed_) obs_->on_host_action(pending_start_, host_free_at_, i, p_.actions[i]);
      // Queued behind a waiting head. No stream was marked before (see the test above) and an
      // action marks at most one.
      if (streams_dirty_) streams_[static_cast<size_t>(last_marked_)].dirty = false;
      streams_dirty_ = false;
      // The next action: a block, or the end of the program, goes the main loop's way.
      if (action_ >= p_.actions.size() ||
          std::holds_alternative<BlockAction>(p_.actions[action_].step)) {
        settle();
        return true;
      }
      const int n = static_cast<int>(action_++);
      const double cost = action_cost(p_.actions[n]);
      result_.host_busy_us += cost;
      pending_action_ = n;
      pending_start_ = t_;
      host_free_at_ = t_ + cost;
      if (host_free_at_ >= gpu_next_) return true;
      if (!invisible(n)) {
        if (!(host_free_at_ > t_)) settle();  // due now: this step's own round takes it
        return true;
      }
      if (host_free_at_ > t_) ++result_.steps;  // the step at which it is due
    }
  }

  // Runs the host as far as it can at time t_. Returns true if anything happened.
  bool step_host() {
    bool progressed = false;
    while (true) {
      if (pending_action_ >= 0) {
        if (host_free_at_ > t_) return progressed;
        const int i = pending_action_;
        pending_action_ = -1;
        apply(i);
        if (host_observed_) obs_->on_host_action(pending_start_, host_free_at_, i, p_.actions[i]);
        progressed = true;
      }
      if (blocked_on_ >= 0) {
        if (!records_[blocked_on_].fired) return progressed;
        result_.host_blocked_us += t_ - blocked_since_;
        if (host_observed_)
          obs_->on_host_blocked(blocked_since_, t_, blocked_action_, records_[blocked_on_].event);
        blocked_on_ = -1;
        host_free_at_ = t_;
        progressed = true;
      }
      if (action_ >= p_.actions.size()) return progressed;
      const int i = static_cast<int>(action_++);
      const HostAction& a = p_.actions[i];
      progressed = true;
      if (auto* b = std::get_if<BlockAction>(&a.step)) {
        blocked_on_ = latest_record_[b->event];
        blocked_since_ = t_;
        blocked_action_ = i;
        continue;
      }
      const double cost = action_cost(a);
      result_.host_busy_us += cost;
      pending_action_ = i;
      pending_start_ = t_;
      host_free_at_ = t_ + cost;
    }
  }

  // ---- streams and events ------------------------------------------------------------------
  // Streams in index order, again until none moves. Only streams marked dirty are visited: a
  // stream whose head has not changed (no push, its head kernel not done, its wait's record not
  // fired) cannot move, so skipping it changes nothing.
  bool step_streams() {
    bool progressed = false;
    while (streams_dirty_) {
      streams_dirty_ = false;
      for (auto& s : streams_) {
        if (!s.dirty) continue;
        s.dirty = false;
        while (s.head < s.items.size()) {
          const StreamItem it = s.items[s.head];
          if (it.type == StreamItem::record) {
            fire(it.index);
          } else if (it.type == StreamItem::wait) {
            if (!records_[it.index].fired) break;
          } else {
            KernelRun& k = kr_[it.index];
            if (k.state == KState::queued) {
              k.state = KState::ready;
              k.ready_us = t_;
              insert_ready(it.index);
              progressed = true;
            }
            if (k.state != KState::done) break;
          }
          ++s.head;
          progressed = true;
        }
      }
    }
    return progressed;
  }

  void fire(int record) {
    records_[record].fired = true;
    ++records_fired_;
    obs_->on_event_fired(t_, records_[record].event);
    for (size_t s = 0; s < streams_.size(); ++s) {
      const StreamRun& st = streams_[s];
      if (st.head < st.items.size() && st.items[st.head].type == StreamItem::wait &&
          st.items[st.head].index == record)
        mark_stream(static_cast<int>(s));
    }
    // Kernels polling for this record stop spinning: their latency and work start now.
    for (size_t i = 0; i < spinners_.size();) {
      const int k = spinners_[i];
      if (kr_[k].spin_record == record) {
        kr_[k].spinning = false;
        spinners_.erase(spinners_.begin() + static_cast<std::ptrdiff_t>(i));
        rates_dirty_ = true;
      } else {
        ++i;
      }
    }
  }

  // Waiting kernels, best first: stream priority, then the time they became ready, then the
  // order the host launched them.
  bool ready_before(int a, int b) const {
    const int pa = kr_[a].priority;
    const int pb = kr_[b].priority;
    if (pa != pb) return pa > pb;
    if (kr_[a].ready_us != kr_[b].ready_us) return kr_[a].ready_us < kr_[b].ready_us;
    return kr_[a].enqueue_seq < kr_[b].enqueue_seq;
  }
  void insert_ready(int k) {
    auto pos =
        std::find_if(ready_.begin(), ready_.end(), [&](int o) { return ready_before(k, o); });
    ready_.insert(pos, k);
    ready_added_ = true;
    kr_[k].fresh = true;
    new_ready_.push_back(k);
  }

  // ---- SMs: CTAs placed in launch order wherever they fit; no preemption; kernels that could
  // not place their whole grid grow into capacity that others release --------------------------
  int placeable(int k) const {
    // Never more than the GPU could ever hold at once (keeps counts in int range).
    const std::int64_t room = std::int64_t(hw_.sm_count) * models_[k].occupancy;
    return static_cast<int>(
        std::min<std::int64_t>(models_[k].max_resident - kr_[k].resident, room));
  }

  bool assign_ctas() {
    if (!capacity_freed_ && !ready_added_) return false;
    sync();
    bool changed = false;
    if (capacity_freed_) {
      for (int k : running_) {
        KernelRun& r = kr_[k];
        const int want = placeable(k);
        if (want <= 0) continue;
        const int got = pool_.place(k, want);
        if (got <= 0) continue;
        r.resident += got;
        r.sms = pool_.sms_of(k);
        obs_->on_kernel_sms(t_, k, r.sms);
        changed = true;
      }
    }
    // Without freed capacity, kernels that could not place before still cannot: only the newly
    // ready ones are tried.
    const bool all = capacity_freed_;
    capacity_freed_ = ready_added_ = false;
    for (size_t i = 0; i < ready_.size();) {
      const int k = ready_[i];
      if (!all && !kr_[k].fresh) {
        ++i;
        continue;
      }
      int got = 0;
      if (models_[k].grid > 0) {
        got = pool_.place(k, placeable(k));
        if (got <= 0) {
          ++i;
          continue;
        }
      }
      start_ready(i, got);
      changed = true;
    }
    for (int k : new_ready_) kr_[k].fresh = false;
    new_ready_.clear();
    if (hw_.sm.dispatch_share > 0 && !ready_.empty()) changed |= interleave();
    if (changed) rates_dirty_ = true;
    return changed;
  }

  // A running kernel with more CTAs left than it has resident dispatches them wave by wave; a
  // block scheduler that serves streams in turn (sm.dispatch_share > 0) hands the SMs its retiring
  // CTAs free to a waiting kernel of another stream, up to that kernel's share: dispatch_share x
  // the SMs / the streams holding or waiting for SMs. The fluid model hands them over at once.
  bool donates(int r, int stream) const {
    const KernelRun& x = kr_[r];
    return x.stream != stream && x.resident > 0 && x.latency_left <= 0 && !x.spinning &&
           x.remaining * models_[r].grid > x.resident;
  }
  bool interleave() {
    bool changed = false;
    for (size_t i = 0; i < ready_.size();) {
      const int k = ready_[i];
      const int stream = kr_[k].stream;
      donors_.clear();
      if (models_[k].grid > 0)
        for (int r : running_)
          if (donates(r, stream)) donors_.push_back(r);
      if (donors_.empty()) {
        ++i;
        continue;
      }
      stream_seen_.assign(streams_.size(), 0);
      int streams = 1;
      stream_seen_[stream] = 1;
      for (int r : running_)
        if (kr_[r].resident > 0 && !stream_seen_[kr_[r].stream]) {
          stream_seen_[kr_[r].stream] = 1;
          ++streams;
        }
      const int share_sms =
          std::max(1, static_cast<int>(hw_.sm.dispatch_share * hw_.sm_count / streams));
      const int want = std::min(placeable(k), share_sms * models_[k].occupancy);
      for (int r : donors_) {
        pool_.release(r);
        kr_[r].resident = 0;
      }
      const int got = want > 0 ? pool_.place(k, want) : 0;
      for (int r : donors_) {
        KernelRun& x = kr_[r];
        x.resident = pool_.place(r, placeable(r));
        x.sms = pool_.sms_of(r);
        obs_->on_kernel_sms(t_, r, x.sms);
      }
      if (got <= 0) {
        ++i;
        continue;
      }
      start_ready(i, got);
      changed = true;
    }
    return changed;
  }

  // A kernel's time alone (solo_time_us, the one place Work becomes time outside a run), made
  // once per kernel: what the peer lookahead below needs of kernels that have not started.
  double solo_estimate(int q) const {
    if (solo_us_.size() < p_.kernels.size()) solo_us_.assign(p_.kernels.size(), -1.0);
    double& us = solo_us_[size_t(q)];
    if (us < 0) us = solo_time_us(hw_, p_.kernels[size_t(q)], p_.launch_mode);
    return us;
  }

  // How long collective kernel k waits for the rank that was earliest at its barrier (see
  // Work::peer_lead_us). That rank's other streams run up to `lead` us ahead of this one's: at a
  // position p in [now, now + lead] of a stream, a kernel that leaves fewer free SMs than k needs
  // (no SM cap, a grid that fills the GPU) keeps k's copy there off the SMs until it ends. The
  // largest such wait over the positions is k's wait: for a kernel spanning [s, e), e - max(s,
  // now). A stream's future is its queue as launched, each kernel at its time alone; the walk
  // stops at a wait for an event not yet fired (when it would go on is not known here).
  double peer_wait_us(int k) const {
    const double lead = p_.kernels[k].work.peer_lead_us;
    if (lead <= 0) return 0;
    const int need = models_[k].grid;
    double wait = 0;
    for (size_t s = 0; s < streams_.size(); ++s) {
      if (static_cast<int>(s) == kr_[k].stream) continue;
      const StreamRun& st = streams_[s];
      double at = t_;
      for (size_t i = st.head; i < st.items.size() && at < t_ + lead; ++i) {
        const StreamItem& it = st.items[i];
        if (it.type == StreamItem::wait) {
          if (!records_[it.index].fired) break;
          continue;
        }
        if (it.type != StreamItem::kernel) continue;
        const int q = it.index;
        const KernelRun& r = kr_[q];
        if (r.state == KState::done) continue;
        const double begin = at;
        // A running kernel's end as of the last rates, or (rates not yet set: it started in
        // this round) what is left of it alone; a waiting one alone, after the previous.
        const double end = r.state != KState::running ? at + solo_estimate(q)
                           : r.end_us > t_            ? r.end_us
                                                      : t_ + r.remaining * solo_estimate(q);
        at = end;
        if (p_.kernels[q].fixed_sms >= 0) continue;  // another collective: on every rank alike
        const KernelModel& m = models_[q];
        const std::int64_t held = std::min<std::int64_t>(
            hw_.sm_count, (std::int64_t(m.max_resident) + m.occupancy - 1) / m.occupancy);
        if (m.grid == 0 || hw_.sm_count - held >= need) continue;
        wait = std::max(wait, end - std::max(begin, t_));
      }
    }
    return wait;
  }

  // Starts the i-th waiting kernel with `ctas` CTAs placed.
  void start_ready(size_t i, int ctas) {
    const int k = ready_[i];
    ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    start(k, ctas);
  }

  void start(int k, int ctas) {
    sync();
    ends_dirty_ = true;
    KernelRun& r = kr_[k];
    const KernelModel& m = models_[k];
    r.state = KState::running;
    r.resident = ctas;
    r.sms = ctas > 0 ? pool_.sms_of(k) : 0;
    r.latency_left = on_time_grid(m.latency_us + peer_wait_us(k));
    r.spinning = r.spin_record >= 0 && !records_[r.spin_record].fired;
    if (r.spinning) spinners_.push_back(k);
    r.usage = {m.hbm_bytes, m.l2_bytes, m.link_bytes[0], m.link_bytes[1]};
    for (const auto& [id, bytes] : reads(k)) {
      const double hit = sh_.l2.resident_fraction(id, bytes) * bytes;
      r.usage[kL2] += hit;
      r.usage[kHbm] += bytes - hit;
      sh_.l2.begin_read(id);
    }
    running_.push_back(k);
    obs_->on_kernel_start(t_, k, r.sms, KernelTraffic{r.usage[kHbm], r.usage[kL2]});
  }

  void finish(int k) {
    KernelRun& r = kr_[k];
    r.state = KState::done;
    r.remaining = 0;
    if (r.resident > 0) {
      pool_.release(k);
      capacity_freed_ = true;
    }
    for (const auto& [id, bytes] : reads(k)) {
      sh_.l2.end_read(id);
      sh_.l2.touch(id);
    }
    for (const auto& [id, bytes] : writes(k)) sh_.l2.touch(id);
    ++done_count_;
    gpu_end_ = std::max(gpu_end_, t_);
    obs_->on_kernel_end(t_, k);
    mark_stream(r.stream);
    rates_dirty_ = true;
  }

  // The host, the streams and the SMs, again until none of them moves. Each step is skipped when
  // its own test says it cannot move (the same test it starts with).
  void settle() {
    bool again = true;
    while (again) {
      again = host_may_move() && step_host();
      if (streams_dirty_) again |= step_streams();
      if (capacity_freed_ || ready_added_) again |= assign_ctas();
    }
  }

  bool host_may_move() const {
    if (pending_action_ >= 0) return !(host_free_at_ > t_);
    if (blocked_on_ >= 0) return records_[blocked_on_].fired;
    return action_ < p_.actions.size();
  }

  // ---- fluid rates -------------------------------------------------------------------------
  // Co-resident CTAs share their SMs: every group of SMs that holds CTAs of two or more kernels
  // adds three resources to the solver - its issue (tensor / CUDA-core pipes) and its pull on HBM
  // and on L2 - shared by those kernels in proportion to the CTAs they have there. SMs that hold
  // one kernel need none: a kernel alone cannot exceed its own SMs (its rate ceiling).
  void compute_rates() {
    sync();
    rates_dirty_ = false;
    ends_dirty_ = true;
    solver_index_.clear();
    shared_groups_.clear();
    const auto& groups = pool_.groups();
    for (size_t g = 0; g < groups.size(); ++g)
      if (groups[g].residents.size() >= 2) shared_groups_.push_back(static_cast<int>(g));
    const int R = kNumShared + 3 * static_cast<int>(shared_groups_.size());
    if (shared_groups_.empty() && solver_has_base_) {
      solver_.clear();  // the common case: no SM shared, the four GPU-wide resources
    } else {
      capacity_.assign(base_capacity_.begin(), base_capacity_.end());
      for (int g : shared_groups_) {
        const double n = groups[g].count;
        capacity_.push_back(n * hw_.sm.issue_capacity);
        capacity_.push_back(n * hw_.hbm_bytes_per_us / std::max(1.0, hw_.hbm_saturation_sms));
        capacity_.push_back(n * hw_.l2_bytes_per_us / std::max(1.0, hw_.l2_saturation_sms));
      }
      solver_.reset(R);
      solver_.set_capacities(capacity_);
      usage_.assign(R, 0.0);
      solver_has_base_ = shared_groups_.empty();
    }
    for (int k : running_) {
      KernelRun& r = kr_[k];
      if (r.latency_left > 0 || r.spinning) {
        r.rate = 0;
        continue;
      }
      const KernelModel& m = models_[k];
      if (r.cap_resident != r.resident) {  // the ceiling changes only with the CTAs resident
        r.cap_sm = sm_rate_ceiling(hw_, m, r.resident, r.usage);
        r.cap_link = link_rate_ceiling(hw_, m, r.usage);
        r.cap_resident = r.resident;
      }
      solver_index_.push_back(k);
    }
    add_consumers(groups, nullptr);
    solver_.solve();
    // Loaded memory latency: a kernel on SMs waits for its operands from the memory system, and
    // the queues the other running kernels keep in front of DRAM lengthen every load it makes,
    // so it runs slower by 1 + hbm_loaded_slowdown x (their share of the DRAM bandwidth). The
    // shares come from the rates just solved; the problem is solved once more with the ceilings
    // so lowered (one step of the fixed point).
    if (hw_.hbm_loaded_slowdown > 0 && solver_index_.size() >= 2 && base_capacity_[kHbm] > 0) {
      double hbm_total = 0;
      for (size_t i = 0; i < solver_index_.size(); ++i) {
        const double x = solver_.rate()[i];
        if (x != kInf) hbm_total += x * kr_[solver_index_[i]].usage[kHbm];
      }
      loaded_.assign(solver_index_.size(), 1.0);
      bool any = false;
      for (size_t i = 0; i < solver_index_.size(); ++i) {
        const int k = solver_index_[i];
        const double x = solver_.rate()[i];
        if (models_[k].given || models_[k].grid <= 0 || x == kInf) continue;
        const double others = std::max(0.0, hbm_total - x * kr_[k].usage[kHbm]);
        const double u = std::min(1.0, others / base_capacity_[kHbm]);
        if (u <= 0) continue;
        loaded_[i] = 1.0 / (1.0 + hw_.hbm_loaded_slowdown * u);
        any = true;
      }
      if (any) {
        if (shared_groups_.empty()) {
          solver_.clear();
        } else {
          solver_.reset(R);
          solver_.set_capacities(capacity_);
        }
        add_consumers(groups, &loaded_);
        solver_.solve();
      }
    }
    for (size_t i = 0; i < solver_index_.size(); ++i)
      kr_[solver_index_[i]].rate = solver_.rate()[i];
    if (!observed_) return;
    Counters c;
    pool_.occupancy(c.sms_busy, c.sms_shared, c.ctas_resident);
    for (size_t i = 0; i < solver_index_.size(); ++i) {
      const KernelRun& r = kr_[solver_index_[i]];
      if (r.rate == kInf) continue;
      c.hbm_bytes_per_us += r.rate * r.usage[kHbm];
      c.l2_bytes_per_us += r.rate * r.usage[kL2];
      for (int l = 0; l < kNumLinks; ++l) c.link_bytes_per_us[l] += r.rate * r.usage[kNvlink + l];
    }
    obs_->on_counters(t_, c);
  }

  // The running kernels of solver_index_ as the solver's consumers, each at its rate ceiling
  // (times `factor`[i] when given), with its pull on the SM groups it shares.
  void add_consumers(const std::vector<SmPool::Group>& groups, const std::vector<double>* factor) {
    for (size_t i = 0; i < solver_index_.size(); ++i) {
      const int k = solver_index_[i];
      const KernelRun& r = kr_[k];
      const KernelModel& m = models_[k];
      // A loaded DRAM slows what the SMs do, not what the wires carry.
      const double cap = std::min(factor ? r.cap_sm * (*factor)[i] : r.cap_sm, r.cap_link);
      if (shared_groups_.empty()) {
        solver_.add(cap, r.usage.data());
        continue;
      }
      std::fill(usage_.begin(), usage_.end(), 0.0);
      std::copy(r.usage.begin(), r.usage.end(), usage_.begin());
      if (r.resident > 0)
        for (size_t j = 0; j < shared_groups_.size(); ++j) {
          const auto& grp = groups[shared_groups_[j]];
          for (const auto& res : grp.residents) {
            if (res.kernel != k) continue;
            const double share = double(grp.count) * res.ctas / r.resident;
            usage_[kNumShared + 3 * j] = m.pipe_us * share;
            usage_[kNumShared + 3 * j + 1] = r.usage[kHbm] * share;
            usage_[kNumShared + 3 * j + 2] = r.usage[kL2] * share;
          }
        }
      solver_.add(cap, usage_.data());
    }
  }

  // From the GPU's last sync (gpu_t_): running kernels' state is as of that time.
  double finish_time(const KernelRun& r) const {
    if (r.spinning) return kInf;
    if (r.latency_left > 0) return gpu_t_ + r.latency_left;
    if (r.rate == kInf) return gpu_t_;
    if (r.rate <= 0) return kInf;
    return gpu_t_ + on_time_grid(r.remaining / r.rate);
  }

  // The next event time: the GPU's next (each running kernel's finish time, kept for advance()
  // and recomputed only when the GPU's state changed) or the host's.
  double next_time() {
    if (ends_dirty_) {
      ends_dirty_ = false;
      gpu_next_ = kInf;
      for (int k : running_) {
        KernelRun& r = kr_[k];
        r.end_us = finish_time(r);
        gpu_next_ = std::min(gpu_next_, r.end_us);
      }
    }
    if (pending_action_ >= 0) return std::min(gpu_next_, host_free_at_);
    return gpu_next_;
  }

  // Brings the running kernels' progress from the GPU's last sync to now, before anything that
  // reads it or changes their rates. Steps where only the host moved (a launch queued behind
  // busy streams) leave the GPU alone: its kernels keep their rates, so their progress and finish
  // times are computed once over the whole interval.
  void sync() {
    if (gpu_t_ == t_) return;
    const double dt = t_ - gpu_t_;
    double dram = 0;
    for (int k : running_) {
      KernelRun& r = kr_[k];
      if (r.spinning) continue;
      if (r.latency_left > 0) {
        r.latency_left -= dt;
        continue;
      }
      dram += r.rate * dt * r.usage[kHbm];
      r.remaining -= r.rate * dt;
    }
    sh_.l2.add_traffic(dram);
    gpu_t_ = t_;
    ends_dirty_ = true;
  }

  void advance(double next) {
    if (next < gpu_next_) {  // only the host moves
      t_ = next;
      return;
    }
    const double dt = next - gpu_t_;
    double dram = 0;
    finishing_.clear();
    for (int k : running_) {
      KernelRun& r = kr_[k];
      if (r.spinning) continue;
      const double end = r.end_us;  // finish_time(r), from next_time()
      if (r.latency_left > 0) {
        if (end <= next) {
          r.latency_left = 0;
          rates_dirty_ = true;
          if (r.rate == kInf || is_instant(k)) finishing_.push_back(k);
        } else {
          r.latency_left -= dt;
        }
        continue;
      }
      if (r.rate == kInf || end <= next) {
        dram += r.remaining * r.usage[kHbm];
        finishing_.push_back(k);
      } else {
        dram += r.rate * dt * r.usage[kHbm];
        r.remaining -= r.rate * dt;
      }
    }
    sh_.l2.add_traffic(dram);
    t_ = next;
    gpu_t_ = next;
    ends_dirty_ = true;
    if (!finishing_.empty()) {
      for (int k : finishing_) finish(k);
      running_.erase(std::remove_if(running_.begin(), running_.end(),
                                    [&](int k) { return kr_[k].state == KState::done; }),
                     running_.end());
    }
  }

  // A kernel with nothing to do after its latency (no FLOPs, no bytes, no given duration).
  bool is_instant(int k) const {
    const KernelModel& m = models_[k];
    const auto& u = kr_[k].usage;
    if (m.given) return m.duration_us <= 0;
    return m.compute_us_one_sm <= 0 && u[kHbm] <= 0 && u[kL2] <= 0 && u[kNvlink] <= 0 &&
           u[kRdma] <= 0;
  }

  std::string deadlock_message() const {
    if (blocked_on_ >= 0)
      return "deadlock at t=" + std::to_string(t_) + " us: the host waits on event '" +
             p_.events[records_[blocked_on_].event] + "', which can never fire";
    for (size_t s = 0; s < streams_.size(); ++s) {
      const auto& st = streams_[s];
      if (st.head < st.items.size() && st.items[st.head].type == StreamItem::wait)
        return "deadlock at t=" + std::to_string(t_) + " us: stream '" + p_.streams[s].name +
               "' waits on event '" + p_.events[records_[st.items[st.head].index].event] +
               "', which can never fire";
    }
    for (size_t k = 0; k < kr_.size(); ++k)
      if (kr_[k].state == KState::ready)
        return "deadlock at t=" + std::to_string(t_) + " us: kernel '" + p_.kernels[k].name +
               "' can never get an SM";
    return "the program stalled at t=" + std::to_string(t_) + " us";
  }

  // A kernel's named tensors (TensorRef): reads then writes.
  std::span<const TensorRef> reads(int k) const {
    const auto [begin, n] = sh_.tensors_begin[static_cast<size_t>(k)];
    return {sh_.tensors.data() + begin, n};
  }
  std::span<const TensorRef> writes(int k) const {
    const auto [begin, n] = sh_.tensors_begin[static_cast<size_t>(k)];
    const size_t end = sh_.tensors_begin[static_cast<size_t>(k) + 1].first;
    return {sh_.tensors.data() + begin + n, end - begin - n};
  }

  // ---- steady-state fast-forward ---------------------------------------------------------------
  // Once the host has issued everything, only GPU-side state decides the rest of the run. The
  // kernels are scanned for a period K (identical layers: same model, stream and tensors, the
  // layer scope of the tensors advancing by D). At every K-th kernel's start (an anchor) the
  // state is taken relative to that period: running and waiting kernels with their progress,
  // the SM groups, the live L2 tensors, all shifted back by K kernels, R records and the time.
  // When two consecutive anchors give the same state, and the program ahead repeats the window
  // between them m more times, the run after those m periods is that state shifted by m
  // periods: the window's notifications are replayed m times and the state is moved at once.
  // Exact because every time is on the time grid and L2 traffic is counted in whole bytes.
  struct FfTensor {
    int id, name, scope, readers;
    std::int64_t since;
    bool operator<(const FfTensor& o) const {
      return name != o.name ? name < o.name : scope < o.scope;
    }
  };
  struct FfSnapshot {
    int anchor = 0;
    double t = 0;
    std::int64_t steps = 0, streamed = 0, fired = 0;
    size_t done = 0;
    std::vector<size_t> heads;
    std::vector<int> running, ready, spinners;
    std::vector<KernelRun> runs;  // running_, then ready_
    std::vector<SmPool::Group> groups;
    std::vector<FfTensor> tensors;  // sorted
    bool rates_dirty = false, solver_has_base = false;
  };

  bool host_done() const {
    return action_ >= p_.actions.size() && pending_action_ < 0 && blocked_on_ < 0;
  }

  void steady_state() {
    if (!host_done()) return;
    if (ff_period_ == 0) {
      if (done_count_ < ff_redetect_at_ || ff_detections_ >= 8) return;
      detect_period();
      if (ff_period_ == 0) {
        ff_redetect_at_ = done_count_ + std::max<size_t>(64, (kr_.size() - done_count_) / 8);
        return;
      }
    }
    if (ff_anchor_ >= static_cast<int>(kr_.size())) return;
    const KState st = kr_[ff_anchor_].state;
    if (st == KState::queued || st == KState::ready || st == KState::not_issued) return;
    const int anchor = ff_anchor_;
    ff_anchor_ += ff_period_;
    if (streams_dirty_ || capacity_freed_ || ready_added_ || !new_ready_.empty() || gpu_t_ != t_) {
      ff_have_prev_ = false;
      log_.start_recording();
      return;
    }
    snapshot(anchor, ff_cur_);
    std::int64_t jumped = 0;
    if (ff_have_prev_ && ff_prev_.anchor + ff_period_ == anchor && log_.saw_kernel_end() &&
        same_relative(ff_prev_, ff_cur_))
      jumped = jump(ff_prev_, ff_cur_);
    if (jumped > 0) {
      ff_anchor_ = anchor + static_cast<int>((jumped + 1) * ff_period_);
      ff_have_prev_ = false;
    } else {
      std::swap(ff_prev_, ff_cur_);
      ff_have_prev_ = true;
    }
    log_.start_recording();
  }

  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  }
  static std::uint64_t bits(double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  }
  static bool same_model(const KernelModel& a, const KernelModel& b) {
    return a.given == b.given && a.duration_us == b.duration_us && a.grid == b.grid &&
           a.max_resident == b.max_resident && a.request_sms == b.request_sms &&
           a.share == b.share && a.ctas_per_sm == b.ctas_per_sm && a.occupancy == b.occupancy &&
           a.compute_us_one_sm == b.compute_us_one_sm && a.pipe_us == b.pipe_us &&
           a.units == b.units && a.latency_us == b.latency_us && a.hbm_bytes == b.hbm_bytes &&
           a.l2_bytes == b.l2_bytes && a.link_bytes == b.link_bytes;
  }
  // A kernel's signature: its content (model, tensor names and bytes), stream, whether it spins,
  // and which of its tensors are layer-scoped. Equal content gives equal signatures; the content
  // part is hashed once per work class (whose kernels share it).
  std::uint64_t signature(int k) {
    const int cls = sh_.class_of[static_cast<size_t>(k)];
    std::uint64_t content;
    if (cls < 0) {
      content = content_hash(k);
    } else {
      if (static_cast<size_t>(cls) >= ff_class_hash_.size())
        ff_class_hash_.resize(static_cast<size_t>(cls) + 1, 0);
      std::uint64_t& c = ff_class_hash_[static_cast<size_t>(cls)];
      if (c == 0) c = content_hash(k) | 1;  // 0: not hashed yet
      content = c;
    }
    const KernelSpec& s = p_.kernels[k];
    std::uint64_t h = mix(content, static_cast<std::uint64_t>(s.stream));
    h = mix(h, s.spin_on_event >= 0 ? 1 : 2);  // events are per layer: the record shift checks them
    std::uint64_t scoped = 1;
    for (const auto& t : all_tensors(k))
      scoped = scoped * 2 + (sh_.l2.scope_of(t.id) == -1 ? 0 : 1);
    return mix(h, scoped);
  }
  std::uint64_t content_hash(int k) const {
    const KernelModel& m = models_[k];
    std::uint64_t h = 0;
    for (double d : {m.duration_us, m.compute_us_one_sm, m.pipe_us, m.units, m.latency_us,
                     m.hbm_bytes, m.l2_bytes, m.link_bytes[0], m.link_bytes[1]})
      h = mix(h, bits(d));
    h = mix(h, static_cast<std::uint64_t>(m.grid) * 31 + static_cast<std::uint64_t>(m.given));
    const auto [begin, n] = sh_.tensors_begin[static_cast<size_t>(k)];
    h = mix(h, n);
    for (const auto& t : all_tensors(k)) {
      h = mix(h, static_cast<std::uint64_t>(sh_.l2.name_of(t.id)));
      h = mix(h, bits(t.bytes));
    }
    return h;
  }

  // The lowest kernel not done: the first kernel at or after some stream's head.
  int lowest_live_kernel() const {
    int lo = static_cast<int>(kr_.size());
    for (const auto& s : streams_)
      for (size_t j = s.head; j < s.items.size(); ++j)
        if (s.items[j].type == StreamItem::kernel) {
          lo = std::min(lo, s.items[j].index);
          break;
        }
    return lo;
  }

  void detect_period() {
    ++ff_detections_;
    const int n = static_cast<int>(kr_.size());
    const int lo = lowest_live_kernel();
    // Three periods of at least two kernels need six kernels left.
    if (n - lo < 6) return;
    if (ff_sig_.empty()) ff_sig_.resize(kr_.size());
    for (int k = lo; k < std::min(ff_sig_from_, n); ++k) ff_sig_[k] = signature(k);
    ff_sig_from_ = std::min(ff_sig_from_, lo);
    const LeadingPeriod lp = leading_period(ff_sig_, static_cast<size_t>(lo), 3);
    if (lp.period <= 0) return;
    const int K = lp.period;
    int D = 0;
    for (int k = lo; k < lo + K && D == 0; ++k) {
      const auto a = all_tensors(k), b = all_tensors(k + K);
      for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (sh_.l2.scope_of(a[i].id) != -1 && sh_.l2.scope_of(b[i].id) != -1) {
          D = sh_.l2.scope_of(b[i].id) - sh_.l2.scope_of(a[i].id);
          break;
        }
    }
    int anchor = lo + K;
    while (anchor < n && kr_[anchor].state != KState::queued) anchor += K;
    if (anchor >= n) return;
    if (record_stream_.empty()) {
      record_stream_.assign(records_.size(), -1);
      record_pos_.assign(records_.size(), 0);
      for (size_t s = 0; s < streams_.size(); ++s)
        for (size_t j = 0; j < streams_[s].items.size(); ++j)
          if (streams_[s].items[j].type == StreamItem::record) {
            record_stream_[streams_[s].items[j].index] = static_cast<int>(s);
            record_pos_[streams_[s].items[j].index] = j;
          }
    }
    ff_period_ = K;
    ff_scope_step_ = D;
    ff_anchor_ = anchor;
    ff_have_prev_ = false;
    ff_equiv_.assign(kr_.size(), -1);
  }

  std::span<const TensorRef> all_tensors(int k) const {
    const size_t begin = sh_.tensors_begin[static_cast<size_t>(k)].first;
    const size_t end = sh_.tensors_begin[static_cast<size_t>(k) + 1].first;
    return {sh_.tensors.data() + begin, end - begin};
  }

  void snapshot(int anchor, FfSnapshot& s) {
    s.anchor = anchor;
    s.t = t_;
    s.steps = result_.steps;
    s.streamed = sh_.l2.streamed_bytes();
    s.fired = records_fired_;
    s.done = done_count_;
    s.heads.resize(streams_.size());
    for (size_t i = 0; i < streams_.size(); ++i) s.heads[i] = streams_[i].head;
    s.running = running_;
    s.ready = ready_;
    s.spinners = spinners_;
    s.runs.clear();
    for (int k : running_) s.runs.push_back(kr_[k]);
    for (int k : ready_) s.runs.push_back(kr_[k]);
    s.groups = pool_.groups();
    s.tensors.clear();
    const int lo = lowest_live_kernel();
    for (int id : sh_.l2.live_tensors())
      if (sh_.last_use[id] >= lo)
        s.tensors.push_back(
            {id, sh_.l2.name_of(id), sh_.l2.scope_of(id), sh_.l2.readers(id), sh_.l2.since(id)});
    std::sort(s.tensors.begin(), s.tensors.end());
    s.rates_dirty = rates_dirty_;
    s.solver_has_base = solver_has_base_;
  }

  static bool shifted(const std::vector<int>& a, const std::vector<int>& b, int K) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (b[i] != a[i] + K) return false;
    return true;
  }

  // b is a shifted by one period (K kernels, R records, E launches, D layers, b.t - a.t).
  bool same_relative(const FfSnapshot& a, const FfSnapshot& b) const {
    const int K = ff_period_;
    const std::int64_t R = b.fired - a.fired;
    const std::int64_t E = kr_[b.anchor].enqueue_seq - kr_[a.anchor].enqueue_seq;
    if (!(b.t > a.t) || b.done - a.done != static_cast<size_t>(K)) return false;
    if (!shifted(a.running, b.running, K) || !shifted(a.ready, b.ready, K) ||
        !shifted(a.spinners, b.spinners, K) || a.runs.size() != b.runs.size())
      return false;
    if (a.rates_dirty != b.rates_dirty || a.solver_has_base != b.solver_has_base) return false;
    for (size_t i = 0; i < a.runs.size(); ++i) {
      const KernelRun& x = a.runs[i];
      const KernelRun& y = b.runs[i];
      if (x.state != y.state || x.resident != y.resident || x.sms != y.sms ||
          bits(x.remaining) != bits(y.remaining) || bits(x.latency_left) != bits(y.latency_left) ||
          bits(x.rate) != bits(y.rate) || bits(x.cap_sm) != bits(y.cap_sm) ||
          bits(x.cap_link) != bits(y.cap_link) || x.cap_resident != y.cap_resident ||
          x.stream != y.stream || x.priority != y.priority || x.usage != y.usage ||
          x.ready_us - a.t != y.ready_us - b.t || y.enqueue_seq - x.enqueue_seq != E ||
          x.spinning != y.spinning || x.fresh != y.fresh)
        return false;
      if ((x.spin_record < 0) != (y.spin_record < 0)) return false;
      if (x.spin_record >= 0 && y.spin_record - x.spin_record != R) return false;
    }
    if (a.groups.size() != b.groups.size()) return false;
    for (size_t g = 0; g < a.groups.size(); ++g) {
      const auto& x = a.groups[g];
      const auto& y = b.groups[g];
      if (x.count != y.count || x.used != y.used || x.residents.size() != y.residents.size())
        return false;
      for (size_t r = 0; r < x.residents.size(); ++r)
        if (y.residents[r].kernel != x.residents[r].kernel + K ||
            y.residents[r].ctas != x.residents[r].ctas)
          return false;
    }
    if (a.tensors.size() != b.tensors.size()) return false;
    ff_scratch_.assign(a.tensors.begin(), a.tensors.end());
    for (auto& t : ff_scratch_)
      if (t.scope != -1) t.scope += ff_scope_step_;
    std::sort(ff_scratch_.begin(), ff_scratch_.end());
    for (size_t i = 0; i < ff_scratch_.size(); ++i) {
      const FfTensor& x = ff_scratch_[i];
      const FfTensor& y = b.tensors[i];
      if (x.name != y.name || x.scope != y.scope || x.readers != y.readers || x.since != y.since)
        return false;
    }
    return true;
  }

  // Kernel k is kernel k - K again: same stream, model and tensors (layer scopes + D).
  bool equivalent(int k) {
    signed char& c = ff_equiv_[k];
    if (c >= 0) return c == 1;
    const int a = k - ff_period_;
    // Kernels of one work class share their model, tensor names and bytes (see KernelSpec).
    const bool one_class =
        a >= 0 && sh_.class_of[static_cast<size_t>(a)] >= 0 &&
        sh_.class_of[static_cast<size_t>(a)] == sh_.class_of[static_cast<size_t>(k)];
    bool same = a >= 0 && p_.kernels[a].stream == p_.kernels[k].stream &&
                (p_.kernels[a].spin_on_event >= 0) == (p_.kernels[k].spin_on_event >= 0) &&
                (one_class || same_model(models_[a], models_[k])) &&
                sh_.tensors_begin[a].second == sh_.tensors_begin[k].second;
    if (same) {
      const auto x = all_tensors(a), y = all_tensors(k);
      same = x.size() == y.size();
      for (size_t i = 0; same && i < x.size(); ++i) {
        const int s = sh_.l2.scope_of(x[i].id);
        same =
            (one_class ||
             (sh_.l2.name_of(x[i].id) == sh_.l2.name_of(y[i].id) && x[i].bytes == y[i].bytes)) &&
            (s == -1 ? y[i].id == x[i].id
                     : sh_.l2.scope_of(y[i].id) == s + ff_scope_step_ && s + ff_scope_step_ != -1);
      }
    }
    c = same ? 1 : 0;
    return same;
  }

  // Record r + R is recorded where record r is, one period later on its stream, of the event
  // ff_event_step_ events on (events are per layer; the first record checked sets the step).
  bool record_shifts(int r, std::int64_t R, const std::vector<size_t>& period_items) {
    const std::int64_t q = r + R;
    if (q < 0 || q >= static_cast<std::int64_t>(records_.size())) return false;
    const int s = record_stream_[r];
    if (s < 0 || record_stream_[q] != s || record_pos_[q] != record_pos_[r] + period_items[s])
      return false;
    const int step = records_[q].event - records_[r].event;
    if (!ff_event_step_known_) {
      ff_event_step_ = step;
      ff_event_step_known_ = true;
    }
    return step == ff_event_step_;
  }

  // Moves the run on by as many periods as the program ahead repeats the window a -> b; returns
  // how many (0: none).
  std::int64_t jump(const FfSnapshot& a, const FfSnapshot& b) {
    const int K = ff_period_;
    const std::int64_t R = b.fired - a.fired;
    const std::int64_t E = kr_[b.anchor].enqueue_seq - kr_[a.anchor].enqueue_seq;
    std::vector<size_t> ps(streams_.size());
    ff_event_step_known_ = false;
    ff_event_step_ = 0;
    std::int64_t m = std::numeric_limits<int>::max() / std::max(1, K);
    for (size_t s = 0; s < streams_.size(); ++s) {
      const size_t size = streams_[s].items.size();
      ps[s] = b.heads[s] - a.heads[s];
      if (ps[s] == 0) {
        if (b.heads[s] != size) return 0;
        continue;
      }
      if (b.heads[s] >= size) return 0;
      m = std::min<std::int64_t>(m, static_cast<std::int64_t>((size - 1 - b.heads[s]) / ps[s]));
    }
    if (m <= 0) return 0;
    for (size_t s = 0; s < streams_.size() && m > 0; ++s) {
      if (ps[s] == 0) continue;
      const auto& items = streams_[s].items;
      // Items a.head .. b.head + (m - 1) ps must repeat one period later.
      const size_t last = b.heads[s] + static_cast<size_t>(m - 1) * ps[s];
      for (size_t j = a.heads[s]; j <= last; ++j) {
        const StreamItem x = items[j];
        const StreamItem y = items[j + ps[s]];
        bool ok = x.type == y.type;
        if (ok && x.type == StreamItem::kernel) {
          const KernelRun& kx = kr_[x.index];
          const KernelRun& ky = kr_[y.index];
          ok = y.index == x.index + K && equivalent(y.index) &&
               ky.enqueue_seq - kx.enqueue_seq == E &&
               (kx.spin_record < 0) == (ky.spin_record < 0) &&
               (kx.spin_record < 0 ||
                (ky.spin_record - kx.spin_record == R && record_shifts(kx.spin_record, R, ps)));
        } else if (ok) {
          ok = y.index - x.index == R && record_shifts(x.index, R, ps);
        }
        if (!ok) {
          // j must lie beyond b.head + (m - 1) ps: m - 1 < (j - b.head) / ps.
          if (j < b.heads[s] + 1) return 0;
          m = std::min<std::int64_t>(m,
                                     static_cast<std::int64_t>((j - 1 - b.heads[s]) / ps[s]) + 1);
          break;
        }
      }
    }
    if (m <= 0) return 0;
    // Traffic counts that would pass the tracker's ceiling: no jump (absurd inputs only).
    const std::int64_t streamed = b.streamed - a.streamed;
    if (b.streamed >= L2Tracker::kMaxStreamed / 2 ||
        (streamed > 0 && m > (L2Tracker::kMaxStreamed / 2 - b.streamed) / streamed))
      return 0;
    // The live tensors' images m periods on must exist.
    for (const FfTensor& t : b.tensors)
      if (t.scope != -1 && sh_.l2.find(t.name, t.scope + static_cast<int>(m) * ff_scope_step_) < 0)
        return 0;

    const double dt = static_cast<double>(m) * (b.t - a.t);
    const int dk = static_cast<int>(m * K);
    log_.replay(m, b.t - a.t, K, ff_event_step_);
    log_.start_recording();
    result_.steps += m * (b.steps - a.steps);
    result_.periods_fast_forwarded += m;
    t_ += dt;
    gpu_t_ = t_;
    ends_dirty_ = true;
    gpu_end_ += dt;
    done_count_ += static_cast<size_t>(m) * (b.done - a.done);
    records_fired_ += m * R;
    sh_.l2.advance_streamed(m * (b.streamed - a.streamed));
    for (const FfTensor& t : b.tensors) sh_.l2.set_state(t.id, 0, L2Tracker::kNever);
    for (const FfTensor& t : b.tensors) {
      const int id = t.scope == -1
                         ? t.id
                         : sh_.l2.find(t.name, t.scope + static_cast<int>(m) * ff_scope_step_);
      sh_.l2.set_state(id, t.readers, t.since);
    }
    for (size_t s = 0; s < streams_.size(); ++s) {
      StreamRun& st = streams_[s];
      const size_t to = st.head + static_cast<size_t>(m) * ps[s];
      for (size_t j = st.head; j < to; ++j) {
        const StreamItem it = st.items[j];
        if (it.type == StreamItem::kernel) {
          kr_[it.index].state = KState::done;
          kr_[it.index].remaining = 0;
        } else if (it.type == StreamItem::record) {
          records_[it.index].fired = true;
        }
      }
      st.head = to;
    }
    const size_t nr = b.running.size();
    for (size_t i = 0; i < b.runs.size(); ++i) {
      const int k = i < nr ? b.running[i] : b.ready[i - nr];
      KernelRun& dst = kr_[k + dk];
      KernelRun run = b.runs[i];
      run.enqueue_seq = dst.enqueue_seq;
      run.spin_record = dst.spin_record;
      run.ready_us += dt;
      run.end_us += dt;
      dst = run;
    }
    for (int& k : running_) k += dk;
    for (int& k : ready_) k += dk;
    for (int& k : spinners_) k += dk;
    pool_.shift_kernels(dk);
    return m;
  }

  const Hardware& hw_;
  const Program& p_;
  Observer null_;
  Observer* obs_;
  ObserverLog log_;  // obs_ while the fast-forward is on
  Skeleton sh_;      // what depends on the program's shape alone
  ShareSolver solver_;
  SmPool pool_;
  std::vector<double> base_capacity_;
  std::vector<double> capacity_;  // scratch
  std::vector<double> usage_;     // scratch
  std::vector<double> loaded_;    // scratch: loaded-latency factor per solver consumer
  std::vector<int> shared_groups_;
  std::vector<KernelModel> models_;
  mutable std::vector<double> solo_us_;  // by kernel: solo_time_us, -1 until asked (peer lookahead)
  std::vector<KernelRun> kr_;
  std::vector<StreamRun> streams_;
  std::vector<Record> records_;
  std::vector<int> latest_record_;
  std::vector<int> ready_;
  std::vector<int> new_ready_;     // became ready since the last placement round
  std::vector<int> donors_;        // scratch of interleave()
  std::vector<char> stream_seen_;  // scratch of interleave()
  std::vector<int> running_;       // in start order
  std::vector<int> spinners_;      // running kernels polling for a record that has not fired
  std::vector<int> solver_index_;
  std::vector<int> finishing_;
  double t_ = 0;
  double gpu_t_ = 0;        // the time the running kernels' progress is as of (see sync())
  double gpu_next_ = 0;     // the earliest running kernel's finish time, as of gpu_t_
  bool ends_dirty_ = true;  // gpu_next_ and the kernels' end_us need computing again
  double gpu_end_ = 0;
  size_t action_ = 0;
  int pending_action_ = -1;
  double pending_start_ = 0;
  double host_free_at_ = 0;
  int blocked_on_ = -1;
  int blocked_action_ = -1;
  double blocked_since_ = 0;
  size_t done_count_ = 0;
  std::int64_t enqueue_seq_ = 0;
  bool streams_dirty_ = false;
  int last_marked_ = -1;  // the stream mark_stream() marked last
  bool capacity_freed_ = false;
  bool solver_has_base_ = false;  // the solver holds exactly the four GPU-wide capacities
  bool observed_ = false;         // someone reads the counters
  bool host_observed_ = false;    // someone reads the host's spans
  bool ready_added_ = false;
  bool rates_dirty_ = true;
  RunResult result_;
  // fast-forward (see steady_state())
  bool ff_ = false;
  std::int64_t records_fired_ = 0;
  int ff_period_ = 0;      // K: kernels per period; 0 while none is known
  int ff_scope_step_ = 0;  // D: layer scopes per period
  int ff_anchor_ = 0;      // the kernel whose start takes the next snapshot
  int ff_detections_ = 0;
  int ff_event_step_ = 0;  // events per period (the jump being checked)
  bool ff_event_step_known_ = false;
  size_t ff_redetect_at_ = 0;
  bool ff_have_prev_ = false;
  FfSnapshot ff_prev_, ff_cur_;
  mutable std::vector<FfTensor> ff_scratch_;
  std::vector<std::uint64_t> ff_sig_;         // by kernel, from ff_sig_from_ on
  std::vector<std::uint64_t> ff_class_hash_;  // by work class: content_hash(), | 1; 0: not yet
  int ff_sig_from_ = std::numeric_limits<int>::max();
  std::vector<signed char> ff_equiv_;  // by kernel: -1 not checked, 0 no, 1 equivalent()
  std::vector<int> record_stream_;     // by record: the stream its record item is on
  std::vector<size_t> record_pos_;     // by record: its item's position on that stream
};

}  // namespace

Engine::Engine(Hardware hw) : hw_(std::move(hw)) {}

RunResult Engine::run(const Program& program, Observer* observer) const {
  Run r(hw_, program, observer);
  return r.go();
}

double Engine::solo_time_us(const KernelSpec& kernel) const {
  return ovs::solo_time_us(hw_, kernel);
}

void ObserverList::on_host_action(double s, double e, int i, const HostAction& a) {
  for (auto* o : list_) o->on_host_action(s, e, i, a);
}
void ObserverList::on_host_blocked(double s, double e, int i, int ev) {
  for (auto* o : list_) o->on_host_blocked(s, e, i, ev);
}
void ObserverList::on_kernel_enqueued(double t, int k) {
  for (auto* o : list_) o->on_kernel_enqueued(t, k);
}
void ObserverList::on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) {
  for (auto* o : list_) o->on_kernel_start(t, k, sms, tr);
}
void ObserverList::on_kernel_sms(double t, int k, int sms) {
  for (auto* o : list_) o->on_kernel_sms(t, k, sms);
}
void ObserverList::on_kernel_end(double t, int k) {
  for (auto* o : list_) o->on_kernel_end(t, k);
}
void ObserverList::on_event_fired(double t, int ev) {
  for (auto* o : list_) o->on_event_fired(t, ev);
}
bool ObserverList::wants_counters() const {
  for (auto* o : list_)
    if (o->wants_counters()) return true;
  return false;
}
bool ObserverList::wants_host() const {
  for (auto* o : list_)
    if (o->wants_host()) return true;
  return false;
}
void ObserverList::on_counters(double t, const Counters& c) {
  for (auto* o : list_)
    if (o->wants_counters()) o->on_counters(t, c);
}
void ObserverList::on_run_end(double t) {
  for (auto* o : list_) o->on_run_end(t);
}

}  // namespace ovs
