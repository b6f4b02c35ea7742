#include "app/program/program_loader.hpp"

#include <map>
#include <set>

#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

using yaml::Map;
using yaml::Value;

// More host actions than this (after repeats) is a mistake, not a program: it would take
// gigabytes to hold.
constexpr long long kMaxActions = 10'000'000;

void read_accesses(const Value& v, std::vector<TensorAccess>& out) {
  for (const auto& item : v.items()) {
    Map m(item, {"tensor", "bytes"});
    out.push_back({m.required("tensor").str(), m.required("bytes").number(yaml::kNonNegative)});
  }
}

class Parser {
 public:
  explicit Parser(LoadedProgram& out) : out_(out), p_(out.program) {}

  void parse(const Value& root) {
    Map m(root, {"hardware", "launch_mode", "streams", "program", "description"});
    auto hv = m.required("hardware");
    if (hv.is_map()) {
      // A profile keeps the path and line of its numbers: only yaml-cpp values have them.
      if (hv.from_fast_doc()) throw yaml::NotFastReadable();
      out_.hw = parse_hw_profile(hv);
    } else {
      std::string path;
      try {
        path = resolve_data_file(hv.str(), "hw_profiles", "hardware profile");
      } catch (const NameError& e) {
        hv.fail(e.what());
      }
      out_.hw = parse_hw_profile(yaml::load_file(path));
    }
    if (auto lm = m.optional("launch_mode"))
      p_.launch_mode =
          lm->choice({"eager", "graph"}) == "graph" ? LaunchMode::graph : LaunchMode::eager;
    parse_streams(m.required("streams"));
    auto prog = m.required("program");
    collect_records(prog);
    parse_actions(prog);
    if (p_.actions.empty()) prog.fail("the program has no action");
  }

 private:
  void parse_streams(const Value& v) {
    auto items = v.items();
    if (items.empty()) v.fail("at least one stream is needed");
    for (const auto& item : items) {
      StreamSpec s;
      if (item.is_scalar()) {
        s.name = item.str();
      } else {
        Map m(item, {"name", "priority"});
        s.name = m.required("name").str();
        if (auto pr = m.optional("priority")) s.priority = static_cast<int>(pr->integer(-100, 100));
      }
      if (stream_ids_.count(s.name)) item.fail("duplicate stream '" + s.name + "'");
      stream_ids_[s.name] = static_cast<int>(p_.streams.size());
      stream_names_.push_back(s.name);
      p_.streams.push_back(s);
    }
  }

  // Every event name that some record action names, so that a wait on a name that is never
  // recorded is reported as such (with "did you mean") rather than as a deadlock.
  void collect_records(const Value& list) {
    for (const auto& item : list.items()) {
      if (!item.is_map()) continue;
      if (auto r = item.find("record"); r && r->is_map())
        if (auto e = r->find("event"); e && e->is_scalar()) recorded_names_.insert(e->scalar());
      if (auto rep = item.find("repeat"); rep && rep->is_map() && rep->find("body")) {
        Map rm(item, {"repeat"});
        auto body = Map(rm.required("repeat"), {"count", "body"}).optional("body");
        if (body) collect_records(*body);
      }
    }
  }

  int stream_of(const Value& v) {
    const std::string name = v.str();
    auto it = stream_ids_.find(name);
    if (it == stream_ids_.end()) {
      const std::string near = yaml::did_you_mean(name, stream_names_);
      v.fail("unknown stream '" + name + "'" +
             (near.empty() ? "" : " (did you mean '" + near + "'?)") +
             "; streams: " + yaml::join(stream_names_));
    }
    return it->second;
  }

  int event_for_record(const Value& v) {
    const std::string name = v.str();
    auto [it, inserted] = event_ids_.try_emplace(name, static_cast<int>(p_.events.size()));
    if (inserted) p_.events.push_back(name);
    recorded_.insert(it->second);
    return it->second;
  }

  int event_for_wait(const Value& v) {
    const std::string name = v.str();
    if (!recorded_names_.count(name)) {
      const std::vector<std::string> known(recorded_names_.begin(), recorded_names_.end());
      const std::string near = yaml::did_you_mean(name, known);
      v.fail("unknown event '" + name + "': no action records it" +
             (near.empty() ? "" : " (did you mean '" + near + "'?)") +
             "; a wait on it could never be satisfied (deadlock)");
    }
    auto it = event_ids_.find(name);
    if (it == event_ids_.end() || !recorded_.count(it->second))
      v.fail("event '" + name + "' is waited on before any record of it");
    return it->second;
  }

  void parse_actions(const Value& list) {
    for (const auto& item : list.items()) parse_action(item);
  }

  void parse_action(const Value& item) {
    Map m(item, {"launch", "record", "wait", "block", "delay", "repeat"});
    if (m.size() != 1)
      item.fail("each action has exactly one of launch, record, wait, block, delay, repeat");
    const std::string kind = m.key(0);
    const Value v = m.required(kind);
    if (kind == "launch") {
      parse_launch(v);
    } else if (kind == "record") {
      Map r(v, {"event", "stream"});
      const int s = stream_of(r.required("stream"));
      p_.actions.push_back({RecordAction{event_for_record(r.required("event")), s}, {}});
    } else if (kind == "wait") {
      Map w(v, {"event", "stream"});
      const int s = stream_of(w.required("stream"));
      p_.actions.push_back({WaitAction{event_for_wait(w.required("event")), s}, {}});
    } else if (kind == "block") {
      Map b(v, {"event"});
      p_.actions.push_back({BlockAction{event_for_wait(b.required("event"))}, {}});
    } else if (kind == "delay") {
      Map d(v, {"us", "label"});
      DelayAction a{d.required("us").number(yaml::kNonNegative), {}};
      if (auto l = d.optional("label")) a.label = l->str();
      p_.actions.push_back({a, {}});
    } else {
      Map r(v, {"count", "body"});
      const Value count = r.required("count");
      const long long n = count.integer(1, 1000000);
      const Value body = r.required("body");
      if (body.items().empty()) body.fail("empty repeat body");
      // The body is read once, then copied: nested repeats multiply, so the size is checked
      // before anything is copied.
      const size_t first = p_.actions.size();
      parse_actions(body);
      const size_t len = p_.actions.size() - first;
      if (double(first) + double(n) * double(len) > double(kMaxActions))
        count.fail("too many actions: the program would have more than " +
                   std::to_string(kMaxActions) + " after its repeats");
      for (long long i = 1; i < n; ++i)
        for (size_t a = first; a < first + len; ++a) {
          HostAction copy = p_.actions[a];
          if (auto* l = std::get_if<LaunchAction>(&copy.step)) {
            p_.kernels.push_back(p_.kernels[static_cast<size_t>(l->kernel)]);
            l->kernel = static_cast<int>(p_.kernels.size()) - 1;
          }
          p_.actions.push_back(std::move(copy));
        }
    }
  }

  void parse_launch(const Value& v) {
    Map m(v, {"name", "stream", "work", "duration_us", "sms", "sm_cap", "fixed_sms", "host_us",
              "op", "micro_batch", "category", "spin_on"});
    KernelSpec k;
    k.name = m.required("name").str();
    k.stream = stream_of(m.required("stream"));
    const Hardware& hw = out_.hw.engine;
    const bool has_work = m.has("work"), has_duration = m.has("duration_us");
    if (has_work == has_duration) v.fail("a launch needs exactly one of 'work' or 'duration_us'");
    if (has_work) k.work = parse_work(m.required("work"), hw);
    if (has_duration) k.duration_us = m.required("duration_us").number(yaml::kNonNegative);
    if (auto s = m.optional("sms")) {
      if (!has_duration)
        s->fail("'sms' applies to given-duration kernels; Work kernels ask for ctas");
      k.sms = static_cast<int>(s->integer(0, hw.sm_count));
    }
    if (auto s = m.optional("sm_cap")) k.sm_cap = static_cast<int>(s->integer(1, hw.sm_count));
    if (auto s = m.optional("fixed_sms"))
      k.fixed_sms = static_cast<int>(s->integer(0, hw.sm_count));
    if (has_work && k.fixed_sms == 0 &&
        (k.work.total_tensor_flops() > 0 || k.work.cuda_core_flops > 0))
      m.required("fixed_sms").fail("a kernel with FLOPs cannot hold 0 SMs");
    if (auto s = m.optional("op")) k.op = s->str();
    if (auto s = m.optional("category")) k.category = s->str();
    if (auto s = m.optional("spin_on")) k.spin_on_event = event_for_wait(*s);
    if (auto s = m.optional("micro_batch")) k.micro_batch = static_cast<int>(s->integer(0, 1));
    LaunchAction a{static_cast<int>(p_.kernels.size()), std::nullopt};
    if (auto s = m.optional("host_us")) a.host_us = s->number(yaml::kNonNegative);
    p_.kernels.push_back(std::move(k));
    p_.actions.push_back({a, p_.kernels.back().op});
  }

  LoadedProgram& out_;
  Program& p_;
  std::map<std::string, int> stream_ids_;
  std::vector<std::string> stream_names_;
  std::map<std::string, int> event_ids_;
  std::set<int> recorded_;
  std::set<std::string> recorded_names_;
};

}  // namespace

Work parse_work(const yaml::Value& v, const Hardware& hw) {
  Map m(v, {"tensor_flops", "cuda_core_flops", "hbm_bytes", "l2_bytes", "link_bytes", "ctas",
            "ctas_per_sm", "tiles", "compute_efficiency", "fixed_latency_us", "peer_lead_us",
            "tile_overhead_us", "tile_serial_bytes", "cta", "reads", "writes"});
  Work w;
  if (auto t = m.optional("tensor_flops")) {
    Map tm(*t, {"bf16", "fp8", "fp4"});
    for (int d = 0; d < kNumDtypes; ++d) {
      auto f = tm.optional(kDtypeNames[d]);
      if (!f) continue;
      w.tensor_flops[d] = f->number(yaml::kNonNegative);
      if (w.tensor_flops[d] > 0 && hw.tensor_flops_per_us_per_sm[d] <= 0)
        f->fail("hardware '" + hw.name + "' has no " + std::string(kDtypeNames[d]) +
                " tensor cores");
    }
  }
  if (auto f = m.optional("cuda_core_flops")) w.cuda_core_flops = f->number(yaml::kNonNegative);
  if (auto f = m.optional("hbm_bytes")) w.hbm_bytes = f->number(yaml::kNonNegative);
  if (auto f = m.optional("l2_bytes")) w.l2_bytes = f->number(yaml::kNonNegative);
  if (auto l = m.optional("link_bytes")) {
    Map lm(*l, {"nvlink", "rdma"});
    for (int i = 0; i < kNumLinks; ++i) {
      auto f = lm.optional(kLinkNames[i]);
      if (!f) continue;
      w.link_bytes[i] = f->number(yaml::kNonNegative);
      if (w.link_bytes[i] > 0 && hw.links[i].bytes_per_us <= 0)
        f->fail("hardware '" + hw.name + "' has no " + std::string(kLinkNames[i]) + " link");
    }
  }
  if (auto f = m.optional("ctas")) w.ctas = f->integer(0, 1LL << 40);
  if (auto f = m.optional("ctas_per_sm")) w.ctas_per_sm = static_cast<int>(f->integer(1, 64));
  if (auto f = m.optional("tiles")) w.tiles = f->integer(0, 1LL << 40);
  if (auto f = m.optional("compute_efficiency")) w.compute_efficiency = f->number(yaml::kFraction);
  if (auto f = m.optional("fixed_latency_us")) w.fixed_latency_us = f->number(yaml::kNonNegative);
  if (auto f = m.optional("peer_lead_us")) w.peer_lead_us = f->number(yaml::kNonNegative);
  if (auto f = m.optional("tile_overhead_us")) w.tile_overhead_us = f->number(yaml::kNonNegative);
  if (auto f = m.optional("tile_serial_bytes")) w.tile_serial_bytes = f->number(yaml::kNonNegative);
  if (auto c = m.optional("cta")) {
    Map cm(*c, {"threads", "registers_per_thread", "shared_bytes"});
    w.cta.threads = static_cast<int>(cm.required("threads").integer(1, 4096));
    if (auto f = cm.optional("registers_per_thread"))
      w.cta.registers_per_thread = static_cast<int>(f->integer(0, 255));
    if (auto f = cm.optional("shared_bytes")) w.cta.shared_bytes = f->number(yaml::kNonNegative);
  }
  if (auto f = m.optional("reads")) read_accesses(*f, w.reads);
  if (auto f = m.optional("writes")) read_accesses(*f, w.writes);
  if (w.ctas == 0 && (w.total_tensor_flops() > 0 || w.cuda_core_flops > 0))
    m.required("ctas").fail("a kernel with FLOPs needs at least one CTA");
  return w;
}

LoadedProgram parse_program(const yaml::Value& root) {
  LoadedProgram out;
  out.file = root.file();
  Parser(out).parse(root);
  return out;
}

std::optional<LoadedProgram> parse_program_fast(std::string_view text, const std::string& file) {
  const auto doc = yaml::FastDoc::parse(text);
  if (!doc) return std::nullopt;
  try {
    return parse_program(
        yaml::Value(std::make_shared<const std::string>(file), doc.get(), &doc->root()));
  } catch (...) {  // not readable without yaml-cpp, or bad input: the caller reads it again
    return std::nullopt;
  }
}

// Large programs are read by FastDoc, 50x faster than yaml-cpp. Anything it does not read, and
// any error at all, sends the text to yaml-cpp: the result is the same program, and a bad input
// gets yaml-cpp's located error.
LoadedProgram load_program(const std::string& path) {
  const std::string text = yaml::read_file(path);
  if (auto fast = parse_program_fast(text, path)) return std::move(*fast);
  return parse_program(yaml::load_string(text, path));
}

}  // namespace ovs
