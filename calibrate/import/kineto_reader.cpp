#include "calibrate/import/kineto_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <streambuf>

#include "sim/core/error.hpp"

namespace ovs::trace {
namespace {

using Json = nlohmann::json;

// Reads another streambuf in 1 MiB blocks and knows how many bytes (and lines) the parser has
// taken, so that an error can name its line and byte offset.
class CountingBuf : public std::streambuf {
 public:
  // The block is not zeroed: only what sgetn wrote is ever read (a small file touches one page).
  explicit CountingBuf(std::streambuf* src) : src_(src), buf_(new char[kBlock]) {}
  long long offset() const { return before_ + (gptr() - eback()); }
  int line() const {
    return static_cast<int>(lines_before_ + std::count(eback(), gptr(), '\n') + 1);
  }
  bool at_end() { return sgetc() == traits_type::eof(); }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    before_ += egptr() - eback();
    lines_before_ += std::count(eback(), egptr(), '\n');
    const std::streamsize n = src_->sgetn(buf_.get(), kBlock);
    char* b = buf_.get();
    setg(b, b, b + (n > 0 ? n : 0));
    return n > 0 ? traits_type::to_int_type(*gptr()) : traits_type::eof();
  }

 private:
  std::streambuf* src_;
  static constexpr std::streamsize kBlock = 1 << 20;
  std::unique_ptr<char[]> buf_;
  long long before_ = 0;
  long long lines_before_ = 0;
};

bool iequals(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

bool icontains(const std::string& a, const char* b) {
  std::string low(a);
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return low.find(b) != std::string::npos;
}

// A scalar seen in the event being read.
struct Scalar {
  enum Kind { absent, integer, real, text, other } kind = absent;
  long long i = 0;
  double d = 0;
  std::string s;

  void reset() { kind = absent; }
  bool is_number() const { return kind == integer || kind == real; }
  double number() const { return kind == integer ? static_cast<double>(i) : d; }
  // An integer id: an integer, an integral float, or a string ending in digits ("stream 7").
  std::optional<long long> id() const {
    if (kind == integer) return i;
    if (kind == real && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18)
      return static_cast<long long>(d);
    if (kind == text) {
      size_t e = s.size();
      while (e > 0 && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
      size_t b = e;
      while (b > 0 && std::isdigit(static_cast<unsigned char>(s[b - 1]))) --b;
      if (b < e && e - b < 18) return std::stoll(s.substr(b, e - b));
    }
    return std::nullopt;
  }
  const char* kind_name() const {
    switch (kind) {
      case absent:
        return "nothing";
      case integer:
      case real:
        return "a number";
      case text:
        return "a string";
      default:
        return "a non-scalar value";
    }
  }
};

struct PendingEvent {
  Scalar ph, cat, name, pid, tid, ts, dur;
  Scalar a_stream, a_correlation, a_device;
  std::array<long long, 3> grid{};
  int grid_n = 0;
  bool grid_ok = true;

  void reset() {
    for (Scalar* s :
         {&ph, &cat, &name, &pid, &tid, &ts, &dur, &a_stream, &a_correlation, &a_device})
      s->reset();
    grid = {0, 0, 0};
    grid_n = 0;
    grid_ok = true;
  }
  Scalar* field(const std::string& key) {
    if (key == "ph") return &ph;
    if (key == "cat") return &cat;
    if (key == "name") return &name;
    if (key == "pid") return &pid;
    if (key == "tid") return &tid;
    if (key == "ts") return &ts;
    if (key == "dur") return &dur;
    return nullptr;
  }
  Scalar* arg(const std::string& key) {
    if (key == "stream") return &a_stream;
    if (key == "correlation") return &a_correlation;
    if (key == "device") return &a_device;
    return nullptr;
  }
};

struct Failure {
  std::string field;
  std::string message;
  int line = 0;
};

// Containers the handler is inside of. `skip` is any subtree it does not read.
enum class Ctx { root, events, event, args, grid, dev_props, dev_prop, skip };

class Handler final : public nlohmann::json_sax<Json> {
 public:
  Handler(KinetoTrace& out, CountingBuf& buf) : out_(out), buf_(buf) {}

  std::optional<Failure> failure;
  bool saw_events = false;

  bool null() override { return scalar(Scalar::other); }
  bool boolean(bool) override { return scalar(Scalar::other); }
  bool number_integer(number_integer_t v) override {
    value_.i = v;
    return scalar(Scalar::integer);
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<number_unsigned_t>(INT64_MAX)) {
      value_.d = static_cast<double>(v);
      return scalar(Scalar::real);
    }
    value_.i = static_cast<long long>(v);
    return scalar(Scalar::integer);
  }
  bool number_float(number_float_t v, const string_t&) override {
    value_.d = v;
    return scalar(Scalar::real);
  }
  bool string(string_t& v) override {
    value_.s.assign(v);
    return scalar(Scalar::text);
  }
  bool binary(binary_t&) override { return scalar(Scalar::other); }

  bool key(string_t& k) override {
    key_.assign(k);
    return true;
  }

  bool start_object(std::size_t) override {
    if (stack_.empty()) return push(Ctx::root);
    switch (stack_.back()) {
      case Ctx::root:
        if (key_ == "traceEvents")
          return fail("traceEvents", "expected an array of events, got an object");
        return push(Ctx::skip);
      case Ctx::events:
        ++event_index_;
        pending_.reset();
        return push(Ctx::event);
      case Ctx::event:
        return push(key_ == "args" ? Ctx::args : Ctx::skip);
      case Ctx::dev_props:
        dev_id_.reset();
        dev_sms_.reset();
        return push(Ctx::dev_prop);
      default:
        return push(Ctx::skip);
    }
  }

  bool end_object() override {
    const Ctx c = stack_.back();
    stack_.pop_back();
    if (c == Ctx::event) return finish_event();
    if (c == Ctx::dev_prop) {
      const auto id = dev_id_.id(), sms = dev_sms_.id();
      if (id && sms && *sms > 0) out_.device_sms[*id] = static_cast<int>(*sms);
    }
    return true;
  }

  bool start_array(std::size_t) override {
    if (stack_.empty()) {  // Chrome's JSON array format: the document is the event list
      saw_events = true;
      return push(Ctx::events);
    }
    switch (stack_.back()) {
      case Ctx::root:
        if (key_ == "traceEvents") {
          saw_events = true;
          return push(Ctx::events);
        }
        return push(key_ == "deviceProperties" ? Ctx::dev_props : Ctx::skip);
      case Ctx::events:
        ++event_index_;
        return fail(event_path(), "expected an event object, got an array");
      case Ctx::args:
        if (key_ == "grid") {
          pending_.grid_n = 0;
          return push(Ctx::grid);
        }
        return push(Ctx::skip);
      default:
        return push(Ctx::skip);
    }
  }

  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 7: syntax error ..."
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    if (auto p = what.find(": "); p != std::string::npos && what.rfind("parse error", 0) == 0)
      what = what.substr(p + 2);
    // The lexer counts the end of input as one more character; name the bytes really read.
    const long long at = std::min(static_cast<long long>(position), buf_.offset());
    std::string msg = "invalid JSON at byte " + std::to_string(at) + ": " + what;
    if (buf_.at_end()) msg += " (the file ends early: truncated?)";
    failure = Failure{current_path(), msg, buf_.line()};
    return false;
  }

  long long events() const { return event_index_ + 1; }

 private:
  bool push(Ctx c) {
    stack_.push_back(c);
    return true;
  }

  bool fail(std::string field, std::string message) {
    if (!failure) failure = Failure{std::move(field), std::move(message), buf_.line()};
    return false;
  }

  std::string event_path() const { return "traceEvents[" + std::to_string(event_index_) + "]"; }

  std::string current_path() const {
    if (stack_.empty()) return "";
    switch (stack_.back()) {
      case Ctx::root:
        return key_;
      case Ctx::events:
        return "traceEvents";
      case Ctx::event:
        return event_path() + (key_.empty() ? "" : "." + key_);
      case Ctx::args:
        return event_path() + ".args." + key_;
      case Ctx::grid:
        return event_path() + ".args.grid";
      default:
        break;
    }
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (*it == Ctx::event || *it == Ctx::args) return event_path();
    return "";
  }

  bool scalar(Scalar::Kind kind) {
    value_.kind = kind;
    if (stack_.empty())
      return fail("", std::string("the document is ") + value_.kind_name() +
                          ", not an object with 'traceEvents'");
    switch (stack_.back()) {
      case Ctx::root:
        if (key_ == "traceEvents")
          return fail("traceEvents",
                      std::string("expected an array of events, got ") + value_.kind_name());
        return true;
      case Ctx::events:
        ++event_index_;
        return fail(event_path(),
                    std::string("expected an event object, got ") + value_.kind_name());
      case Ctx::event:
        if (Scalar* f = pending_.field(key_)) *f = value_;
        return true;
      case Ctx::args:
        if (Scalar* f = pending_.arg(key_)) *f = value_;
        return true;
      case Ctx::grid:
        if (pending_.grid_n < 3 && value_.kind == Scalar::integer && value_.i >= 0)
          pending_.grid[pending_.grid_n] = value_.i;
        else
          pending_.grid_ok = false;
        ++pending_.grid_n;
        return true;
      case Ctx::dev_prop:
        if (key_ == "id") dev_id_ = value_;
        if (key_ == "numSms") dev_sms_ = value_;
        return true;
      default:
        return true;
    }
  }

  bool finish_event() {
    const PendingEvent& e = pending_;
    if (e.ph.kind != Scalar::text || e.ph.s != "X" || e.cat.kind != Scalar::text) return true;
    if (iequals(e.cat.s, "kernel")) return add_kernel();
    if (e.name.kind == Scalar::text && is_launch_api(e.name.s) &&
        (icontains(e.cat.s, "runtime") || icontains(e.cat.s, "driver")))
      add_launch();
    return true;
  }

  std::string at_byte() const {
    return "kernel event ending at byte " + std::to_string(buf_.offset());
  }

  bool add_kernel() {
    const PendingEvent& e = pending_;
    const std::string where = event_path();
    if (e.name.kind != Scalar::text || e.name.s.empty())
      return fail(where + ".name",
                  at_byte() + ": expected a kernel name, got " + e.name.kind_name());
    if (!e.ts.is_number() || !std::isfinite(e.ts.number()))
      return fail(where + ".ts",
                  at_byte() + ": expected a start time in us, got " + e.ts.kind_name());
    if (!e.dur.is_number() || !std::isfinite(e.dur.number()) || e.dur.number() < 0)
      return fail(where + ".dur",
                  at_byte() + ": expected a duration in us >= 0, got " +
                      (e.dur.is_number() ? std::to_string(e.dur.number()) : e.dur.kind_name()));
    std::optional<long long> stream = e.a_stream.id();
    if (!stream) stream = e.tid.id();
    if (!stream)
      return fail(where + ".tid",
                  at_byte() + ": no stream (neither args.stream nor a numeric tid)");
    std::optional<long long> device = e.a_device.id();
    if (!device) device = e.pid.id();
    KernelEvent k;
    k.name = intern(e.name.s);
    k.stream = stream_index(device.value_or(0), *stream);
    k.ts_us = e.ts.number();
    k.dur_us = e.dur.number();
    if (e.grid_ok && e.grid_n == 3) k.grid = e.grid;
    if (auto c = e.a_correlation.id()) k.correlation = *c;
    out_.kernels.push_back(k);
    return true;
  }

  void add_launch() {
    const PendingEvent& e = pending_;
    const auto corr = e.a_correlation.id();
    if (!corr || !e.ts.is_number() || !e.dur.is_number()) return;
    int api = 0;
    while (api < static_cast<int>(out_.launch_apis.size()) && out_.launch_apis[api] != e.name.s)
      ++api;
    if (api == static_cast<int>(out_.launch_apis.size())) out_.launch_apis.push_back(e.name.s);
    out_.launches[*corr] = LaunchCall{e.ts.number(), e.dur.number(), api};
  }

  int intern(const std::string& name) {
    auto [it, inserted] = name_ids_.try_emplace(name, static_cast<int>(out_.names.size()));
    if (inserted) out_.names.push_back(name);
    return it->second;
  }

  int stream_index(long long device, long long stream) {
    for (size_t i = 0; i < out_.streams.size(); ++i)
      if (out_.streams[i].device == device && out_.streams[i].stream == stream)
        return static_cast<int>(i);
    out_.streams.push_back({device, stream});
    return static_cast<int>(out_.streams.size()) - 1;
  }

  KinetoTrace& out_;
  CountingBuf& buf_;
  std::vector<Ctx> stack_;
  std::string key_;
  Scalar value_;
  PendingEvent pending_;
  Scalar dev_id_, dev_sms_;
  long long event_index_ = -1;
  std::unordered_map<std::string, int> name_ids_;
};

}  // namespace

bool is_launch_api(const std::string& name) {
  return name.find("Launch") != std::string::npos && name.find("Kernel") != std::string::npos;
}

KinetoTrace read_kineto_trace(std::istream& in, const std::string& label) {
  KinetoTrace out;
  out.file = label;
  CountingBuf buf(in.rdbuf());
  std::istream counted(&buf);
  Handler handler(out, buf);
  Json::sax_parse(counted, &handler);
  out.bytes = buf.offset();
  out.events = handler.events();
  if (handler.failure)
    throw InputError(label, handler.failure->line, handler.failure->field,
                     handler.failure->message);
  if (!handler.saw_events)
    throw InputError(label, 0, "traceEvents",
                     "no 'traceEvents' array: not a Chrome/Kineto trace (" +
                         std::to_string(out.bytes) + " bytes read)");
  if (out.kernels.empty())
    throw InputError(
        label, 0, "traceEvents",
        "no kernel events (\"cat\": \"kernel\", \"ph\": \"X\") among " +
            std::to_string(out.events) +
            " events: was the profiler run with CUDA activities (ProfilerActivity.CUDA)?");
  return out;
}

KinetoTrace read_kineto_trace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, expected a trace JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", std::string("cannot open trace: ") + std::strerror(errno));
  return read_kineto_trace(in, path);
}

}  // namespace ovs::trace
