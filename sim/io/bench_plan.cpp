#include "sim/io/bench_plan.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

namespace ovs::bench_plan {

namespace {

constexpr std::string_view kMagic = "overlapsim-bench-plan";
constexpr int kVersion = 1;

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

class Reader {
 public:
  Reader(const std::string& file, int line) : file_(file), line_(line) {}

  [[noreturn]] void fail(std::string_view field, const std::string& why) const {
    throw PlanError(file_ + ":" + std::to_string(line_) + ": " + std::string(field) + ": " + why);
  }
  double number(std::string_view field, std::string_view text) const {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
      fail(field, "'" + std::string(text) + "' is not a number");
    if (v < 0) fail(field, "must not be negative");
    return v;
  }
  std::int64_t integer(std::string_view field, std::string_view text, std::int64_t lo,
                       std::int64_t hi) const {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(field, "'" + std::string(text) + "' is not an integer");
    if (v < lo || v > hi)
      fail(field,
           std::to_string(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
  }

 private:
  const std::string& file_;
  int line_;
};

Kind parse_kind(const Reader& r, std::string_view s) {
  for (Kind k : {Kind::gemm, Kind::attention, Kind::memory, Kind::standin})
    if (kind_name(k) == s) return k;
  r.fail("kind", "'" + std::string(s) + "' is not gemm, attention, memory or standin");
}

// key=value fields of a kernel line; each key once, none unknown.
void parse_kernel_fields(const Reader& r, const std::vector<std::string_view>& words, Kernel& k) {
  std::set<std::string_view> seen;
  for (size_t i = 3; i < words.size(); ++i) {
    const std::string_view w = words[i];
    const size_t eq = w.find('=');
    if (eq == std::string_view::npos || eq == 0) r.fail(w, "expected key=value");
    const std::string_view key = w.substr(0, eq), v = w.substr(eq + 1);
    if (!seen.insert(key).second) r.fail(key, "given twice");
    constexpr std::int64_t kBig = std::int64_t{1} << 40;
    if (key == "stream")
      k.stream = static_cast<int>(r.integer(key, v, 0, 63));
    else if (key == "name")
      k.name = std::string(v);
    else if (key == "m")
      k.m = r.integer(key, v, 1, kBig);
    else if (key == "n")
      k.n = r.integer(key, v, 1, kBig);
    else if (key == "k")
      k.k = r.integer(key, v, 1, kBig);
    else if (key == "groups")
      k.groups = static_cast<int>(r.integer(key, v, 1, 1 << 20));
    else if (key == "dtype") {
      if (v != "bf16" && v != "fp8" && v != "fp4") r.fail(key, "not bf16, fp8 or fp4");
      k.dtype = std::string(v);
    } else if (key == "weight")
      k.weight = std::string(v);
    else if (key == "sm_cap")
      k.sm_cap = static_cast<int>(r.integer(key, v, 0, 1 << 16));
    else if (key == "tensor_flops")
      k.tensor_flops = r.number(key, v);
    else if (key == "cuda_core_flops")
      k.cuda_core_flops = r.number(key, v);
    else if (key == "read_bytes")
      k.read_bytes = r.number(key, v);
    else if (key == "write_bytes")
      k.write_bytes = r.number(key, v);
    else if (key == "ctas")
      k.ctas = r.integer(key, v, 0, kBig);
    else if (key == "duration_us")
      k.duration_us = r.number(key, v);
    else if (key == "sms")
      k.sms = static_cast<int>(r.integer(key, v, 0, 1 << 16));
    else if (key == "predicted_alone_us")
      k.predicted_alone_us = r.number(key, v);
    else if (key == "predicted_in_run_us")
      k.predicted_in_run_us = r.number(key, v);
    else
      r.fail(key, "unknown field");
  }
  if (k.kind == Kind::gemm && (k.m == 0 || k.n == 0 || k.k == 0))
    r.fail("m", "a gemm needs m, n and k");
}

}  // namespace

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::gemm:
      return "gemm";
    case Kind::attention:
      return "attention";
    case Kind::memory:
      return "memory";
    case Kind::standin:
      return "standin";
  }
  return "memory";
}

Plan parse(std::string_view text, const std::string& file) {
  Plan p;
  p.file = file;
  std::set<int> launched;
  std::vector<int> kernel_lines;
  std::vector<bool> recorded;
  bool header = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const Reader r(file, line_no);
    const auto words = split_words(line);
    if (words.empty() || words[0].front() == '#') {
      if (end == text.size()) break;
      continue;
    }
    const std::string_view verb = words[0];
    auto need = [&](size_t n) {
      if (words.size() < n) r.fail(verb, "expected " + std::to_string(n - 1) + " value(s)");
    };
    auto rest = [&] {
      const size_t at = line.find(words[1]);
      return std::string(line.substr(at));
    };
    if (!header) {
      if (verb != kMagic)
        r.fail("header",
               "not an overlapsim bench plan (first line '" + std::string(kMagic) + " 1')");
      need(2);
      if (r.integer("version", words[1], 1, 1000) != kVersion)
        r.fail("version", "this reader knows version " + std::to_string(kVersion));
      header = true;
    } else if (verb == "point") {
      need(2);
      p.point = rest();
    } else if (verb == "strategy") {
      need(2);
      p.strategy = std::string(words[1]);
    } else if (verb == "hardware") {
      need(2);
      p.hardware = std::string(words[1]);
    } else if (verb == "layers") {
      need(3);
      p.first_layer = static_cast<int>(r.integer("layers", words[1], -1, 100000));
      p.layers = static_cast<int>(r.integer("layers", words[2], 1, 100000));
    } else if (verb == "launch_mode") {
      need(2);
      if (words[1] != "eager" && words[1] != "graph") r.fail(verb, "not eager or graph");
      p.launch_mode = std::string(words[1]);
    } else if (verb == "stream") {
      need(4);
      if (r.integer("stream", words[1], 0, 63) != static_cast<std::int64_t>(p.streams.size()))
        r.fail("stream", "streams are numbered 0, 1, ... in order");
      p.streams.push_back(
          {std::string(words[2]), static_cast<int>(r.integer("priority", words[3], -100, 100))});
    } else if (verb == "events") {
      need(2);
      p.events = static_cast<int>(r.integer("events", words[1], 0, 1 << 24));
      recorded.assign(static_cast<size_t>(p.events), false);
    } else if (verb == "kernel") {
      need(3);
      Kernel k;
      k.id = static_cast<int>(r.integer("kernel", words[1], 0, 1 << 24));
      if (k.id != static_cast<int>(p.kernels.size()))
        r.fail("kernel", "kernels are numbered 0, 1, ... in order");
      k.kind = parse_kind(r, words[2]);
      parse_kernel_fields(r, words, k);
      if (k.stream >= static_cast<int>(p.streams.size()))
        r.fail("stream", "stream " + std::to_string(k.stream) + " is not declared");
      p.kernels.push_back(std::move(k));
      kernel_lines.push_back(line_no);
    } else if (verb == "launch") {
      need(2);
      Step s;
      s.a = static_cast<int>(r.integer("launch", words[1], 0, 1 << 24));
      if (s.a >= static_cast<int>(p.kernels.size()))
        r.fail("launch", "kernel " + std::to_string(s.a) + " is not declared");
      if (!launched.insert(s.a).second) r.fail("launch", "kernel launched twice");
      if (words.size() > 2) {
        if (words[2].substr(0, 8) != "host_us=") r.fail(words[2], "unknown field");
        s.us = r.number("host_us", words[2].substr(8));
      }
      p.steps.push_back(s);
    } else if (verb == "record" || verb == "wait") {
      need(3);
      Step s;
      s.op = verb == "record" ? Step::Op::record : Step::Op::wait;
      s.a = static_cast<int>(r.integer("event", words[1], 0, std::max(0, p.events - 1)));
      s.b = static_cast<int>(r.integer("stream", words[2], 0, 63));
      if (s.a >= p.events) r.fail("event", "no events declared");
      if (s.b >= static_cast<int>(p.streams.size())) r.fail("stream", "not declared");
      if (s.op == Step::Op::record) recorded[static_cast<size_t>(s.a)] = true;
      if (s.op == Step::Op::wait && !recorded[static_cast<size_t>(s.a)])
        r.fail("event", "waited on before any record");
      p.steps.push_back(s);
    } else if (verb == "block") {
      need(2);
      Step s;
      s.op = Step::Op::block;
      s.a = static_cast<int>(r.integer("event", words[1], 0, std::max(0, p.events - 1)));
      if (s.a >= p.events || !recorded[static_cast<size_t>(s.a)])
        r.fail("event", "blocked on before any record");
      p.steps.push_back(s);
    } else if (verb == "delay") {
      need(2);
      Step s;
      s.op = Step::Op::delay;
      s.us = r.number("delay", words[1]);
      p.steps.push_back(s);
    } else if (verb == "predicted") {
      for (size_t i = 1; i < words.size(); ++i) {
        const size_t eq = words[i].find('=');
        if (eq == std::string_view::npos) r.fail(words[i], "expected key=value");
        p.predicted[std::string(words[i].substr(0, eq))] =
            r.number(words[i].substr(0, eq), words[i].substr(eq + 1));
      }
    } else {
      r.fail(verb,
             "unknown line (point, strategy, hardware, layers, launch_mode, stream, events, "
             "kernel, launch, record, wait, block, delay, predicted)");
    }
    if (end == text.size()) break;
  }
  const Reader r(file, line_no);
  if (!header) r.fail("header", "empty file");
  if (p.streams.empty()) r.fail("stream", "no streams declared");
  for (size_t k = 0; k < p.kernels.size(); ++k)
    if (!launched.count(static_cast<int>(k)))
      Reader(file, kernel_lines[k])
          .fail("launch", "kernel " + std::to_string(k) + " is never launched");
  return p;
}

Plan load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

namespace {
// The shortest text that reads back as the same double.
struct Num {
  double v;
};
std::ostream& operator<<(std::ostream& out, Num n) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, n.v);
  return out.write(text, ec == std::errc() ? end - text : 0);
}
}  // namespace

void write(std::ostream& out, const Plan& p) {
  out << kMagic << ' ' << kVersion << '\n';
  if (!p.point.empty()) out << "point " << p.point << '\n';
  if (!p.strategy.empty()) out << "strategy " << p.strategy << '\n';
  if (!p.hardware.empty()) out << "hardware " << p.hardware << '\n';
  out << "layers " << p.first_layer << ' ' << p.layers << '\n';
  out << "launch_mode " << p.launch_mode << '\n';
  for (size_t i = 0; i < p.streams.size(); ++i)
    out << "stream " << i << ' ' << p.streams[i].name << ' ' << p.streams[i].priority << '\n';
  out << "events " << p.events << '\n';
  for (const Kernel& k : p.kernels) {
    out << "kernel " << k.id << ' ' << kind_name(k.kind) << " stream=" << k.stream;
    if (!k.name.empty()) out << " name=" << k.name;
    if (k.kind == Kind::gemm) {
      out << " m=" << k.m << " n=" << k.n << " k=" << k.k << " groups=" << k.groups
          << " dtype=" << k.dtype;
      if (!k.weight.empty()) out << " weight=" << k.weight;
      if (k.sm_cap > 0) out << " sm_cap=" << k.sm_cap;
    }
    if (k.kind == Kind::standin) {
      out << " duration_us=" << Num{k.duration_us} << " sms=" << k.sms;
    } else {
      if (k.tensor_flops > 0) out << " tensor_flops=" << Num{k.tensor_flops};
      if (k.cuda_core_flops > 0) out << " cuda_core_flops=" << Num{k.cuda_core_flops};
      out << " read_bytes=" << Num{k.read_bytes} << " write_bytes=" << Num{k.write_bytes}
          << " ctas=" << k.ctas;
    }
    out << " predicted_alone_us=" << Num{k.predicted_alone_us}
        << " predicted_in_run_us=" << Num{k.predicted_in_run_us} << '\n';
  }
  for (const Step& s : p.steps) {
    switch (s.op) {
      case Step::Op::launch:
        out << "launch " << s.a;
        if (s.us >= 0) out << " host_us=" << Num{s.us};
        out << '\n';
        break;
      case Step::Op::record:
        out << "record " << s.a << ' ' << s.b << '\n';
        break;
      case Step::Op::wait:
        out << "wait " << s.a << ' ' << s.b << '\n';
        break;
      case Step::Op::block:
        out << "block " << s.a << '\n';
        break;
      case Step::Op::delay:
        out << "delay " << Num{s.us} << '\n';
        break;
    }
  }
  if (!p.predicted.empty()) {
    out << "predicted";
    for (const auto& [key, v] : p.predicted) out << ' ' << key << '=' << Num{v};
    out << '\n';
  }
}

}  // namespace ovs::bench_plan
