#include "sim/io/chrome_trace.hpp"

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/core/units.hpp"

namespace ovs {

using Json = nlohmann::ordered_json;

TraceSink::TraceSink(std::ostream& out) : out_(out) {
  out_ << "{\"traceEvents\":[\n";
}
TraceSink::~TraceSink() {
  finish();
}

void TraceSink::append(const std::string& json_object) {
  if (finished_) return;
  if (!first_) out_ << ",\n";
  first_ = false;
  out_ << json_object;
}

void TraceSink::finish() {
  if (finished_) return;
  finished_ = true;
  out_ << "\n],\"displayTimeUnit\":\"ns\"}\n";
  out_.flush();
}

namespace {
constexpr int kHostTid = 0;
constexpr int kEventTid = 1;
int stream_tid(int stream) {
  return 10 + stream;
}
}  // namespace

struct ChromeTraceWriter::Impl {
  TraceSink& sink;
  const Program& p;
  int pid;
  std::vector<double> start{};
  std::vector<double> enqueue{};
  std::vector<int> sms{};
  std::vector<KernelTraffic> traffic{};
  std::vector<bool> launched{};  // a host launch slice exists: draw an arrow to the kernel
  bool have_counters = false;
  double counter_t = 0;
  Counters counters{};
  bool split = false;         // the program runs two micro-batches
  std::vector<bool> named{};  // by tid: the track's name is out (tracks appear when used)

  void emit(const Json& j) { sink.append(j.dump()); }

  // A flow arrow's id, unique in a file that holds several runs (one per pid).
  long long flow_id(int k) const { return static_cast<long long>(pid) * (1LL << 24) + k; }

  // The name of a stream's track. The data-in-flight streams are per micro-batch (net.A,
  // net.B): they say so only where the batch is split.
  std::string stream_track(int s) const {
    const std::string& n = p.streams[s].name;
    if (n.rfind("net.", 0) == 0)
      return split ? "data in flight, micro-batch " + n.substr(4) : "data in flight";
    return "stream " + n;
  }

  // Names a track the first time something is drawn on it, so no track is empty.
  void use_track(int tid) {
    if (tid >= static_cast<int>(named.size())) named.resize(tid + 1, false);
    if (named[tid]) return;
    named[tid] = true;
    if (tid == kHostTid)
      meta("thread_name", tid, "host thread", 0);
    else if (tid == kEventTid)
      meta("thread_name", tid, "events", 1);
    else
      meta("thread_name", tid, stream_track(tid - stream_tid(0)), tid);
  }

  void meta(const char* what, int tid, const std::string& name, int sort) {
    emit(Json{{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
    const char* sort_key =
        std::string(what) == "process_name" ? "process_sort_index" : "thread_sort_index";
    emit(Json{{"ph", "M"},
              {"name", sort_key},
              {"pid", pid},
              {"tid", tid},
              {"args", {{"sort_index", sort}}}});
  }

  void flush_counters() {
    if (!have_counters) return;
    have_counters = false;
    auto counter = [&](const char* name, Json args) {
      emit(Json{
          {"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", counter_t}, {"args", std::move(args)}});
    };
    counter("SMs busy", Json{{"sms", counters.sms_busy}});
    // Occupancy: CTAs resident, and SMs shared by CTAs of two or more kernels (co-residency).
    counter("occupancy",
            Json{{"CTAs resident", counters.ctas_resident}, {"SMs shared", counters.sms_shared}});
    counter("HBM GB/s", Json{{"GB/s", units::bytes_per_us_to_gbps(counters.hbm_bytes_per_us)}});
    counter("L2 GB/s", Json{{"GB/s", units::bytes_per_us_to_gbps(counters.l2_bytes_per_us)}});
    Json links;
    for (int l = 0; l < kNumLinks; ++l)
      links[std::string(kLinkNames[l])] =
          units::bytes_per_us_to_gbps(counters.link_bytes_per_us[l]);
    counter("link GB/s", links);
  }
};

ChromeTraceWriter::ChromeTraceWriter(TraceSink& sink, const Program& p,
                                     const std::string& process_name, int pid)
    : impl_(new Impl{sink, p, pid}) {
  const size_t n = p.kernels.size();
  impl_->start.assign(n, 0);
  impl_->enqueue.assign(n, 0);
  impl_->sms.assign(n, 0);
  impl_->traffic.assign(n, {});
  impl_->launched.assign(n, false);
  for (const auto& k : p.kernels) impl_->split = impl_->split || k.micro_batch >= 1;
  impl_->meta("process_name", 0, process_name, pid);
}

ChromeTraceWriter::~ChromeTraceWriter() = default;

namespace {
std::string host_name(const Program& p, const HostAction& a) {
  if (auto* l = std::get_if<LaunchAction>(&a.step)) return "launch " + p.kernels[l->kernel].name;
  if (auto* r = std::get_if<RecordAction>(&a.step)) return "record " + p.events[r->event];
  if (auto* w = std::get_if<WaitAction>(&a.step))
    return "stream " + p.streams[w->stream].name + " waits " + p.events[w->event];
  if (auto* d = std::get_if<DelayAction>(&a.step))
    return d->label.empty() ? "host delay" : d->label;
  return "host";
}
}  // namespace

void ChromeTraceWriter::on_host_action(double s, double e, int, const HostAction& a) {
  if (e <= s) return;
  impl_->use_track(kHostTid);
  Json j{{"ph", "X"},       {"name", host_name(impl_->p, a)},
         {"cat", "host"},   {"pid", impl_->pid},
         {"tid", kHostTid}, {"ts", s},
         {"dur", e - s}};
  if (!a.label.empty()) j["args"] = Json{{"op", a.label}};
  impl_->emit(j);
  // An arrow from the launch to its kernel: it starts inside this slice and ends where the
  // kernel starts (on_kernel_end).
  if (auto* l = std::get_if<LaunchAction>(&a.step)) {
    impl_->launched[l->kernel] = true;
    impl_->emit(Json{{"ph", "s"},
                     {"name", "launch"},
                     {"cat", "launch"},
                     {"id", impl_->flow_id(l->kernel)},
                     {"pid", impl_->pid},
                     {"tid", kHostTid},
                     {"ts", s + (e - s) / 2}});
  }
}

void ChromeTraceWriter::on_host_blocked(double s, double e, int, int ev) {
  impl_->use_track(kHostTid);
  impl_->emit(Json{{"ph", "X"},
                   {"name", "blocked on " + impl_->p.events[ev]},
                   {"cat", "host"},
                   {"pid", impl_->pid},
                   {"tid", kHostTid},
                   {"ts", s},
                   {"dur", e - s}});
}

void ChromeTraceWriter::on_kernel_enqueued(double t, int k) {
  impl_->enqueue[k] = t;
}

void ChromeTraceWriter::on_kernel_start(double t, int k, int sms, const KernelTraffic& tr) {
  impl_->start[k] = t;
  impl_->sms[k] = sms;
  impl_->traffic[k] = tr;
}

void ChromeTraceWriter::on_kernel_end(double t, int k) {
  const KernelSpec& ks = impl_->p.kernels[k];
  Json args{{"sms_at_start", impl_->sms[k]},
            {"enqueued_us", impl_->enqueue[k]},
            {"hbm_bytes", impl_->traffic[k].hbm_bytes},
            {"l2_bytes", impl_->traffic[k].l2_bytes}};
  if (!ks.op.empty()) args["op"] = ks.op;
  if (ks.micro_batch >= 0) args["micro_batch"] = ks.micro_batch;
  if (!ks.category.empty()) args["category"] = ks.category;
  args["stream"] = ks.stream;
  impl_->use_track(stream_tid(ks.stream));
  impl_->emit(Json{{"ph", "X"},
                   {"name", ks.name},
                   // As Kineto writes GPU kernels (import-trace reads them back); data in
                   // flight between a send and a receive kernel holds no SM: not a kernel.
                   {"cat", ks.data_in_flight() ? "data in flight" : "kernel"},
                   {"pid", impl_->pid},
                   {"tid", stream_tid(ks.stream)},
                   {"ts", impl_->start[k]},
                   {"dur", t - impl_->start[k]},
                   {"args", args}});
  if (impl_->launched[k])
    impl_->emit(Json{{"ph", "f"},
                     {"bp", "e"},
                     {"name", "launch"},
                     {"cat", "launch"},
                     {"id", impl_->flow_id(k)},
                     {"pid", impl_->pid},
                     {"tid", stream_tid(ks.stream)},
                     {"ts", impl_->start[k]}});
}

void ChromeTraceWriter::on_event_fired(double t, int ev) {
  impl_->use_track(kEventTid);
  impl_->emit(Json{{"ph", "i"},
                   {"name", impl_->p.events[ev]},
                   {"cat", "event"},
                   {"s", "t"},
                   {"pid", impl_->pid},
                   {"tid", kEventTid},
                   {"ts", t}});
}

void ChromeTraceWriter::on_counters(double t, const Counters& c) {
  if (impl_->have_counters && impl_->counter_t != t) impl_->flush_counters();
  impl_->have_counters = true;
  impl_->counter_t = t;
  impl_->counters = c;
}

void ChromeTraceWriter::on_run_end(double t) {
  impl_->flush_counters();
  impl_->have_counters = true;
  impl_->counter_t = t;
  impl_->counters = Counters{};
  impl_->flush_counters();
}

}  // namespace ovs
