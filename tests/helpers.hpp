#pragma once
// Shared test fixtures: a toy GPU with round numbers so that every expected value in a test is
// arithmetic a reader can check by hand, and small builders for programs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "sim/engine/engine.hpp"

namespace ovs::test {

// Toy GPU: 100 SMs; 1 TFLOP/s bf16 per SM (1e6 FLOP/us); HBM 1 TB/s (1e6 B/us), reached by a
// kernel on >= 50 SMs; L2 4 TB/s, 50 MiB; NVLink 100 GB/s (1e5 B/us) with 2 us latency; no
// launch cost unless a test sets one.
inline Hardware toy_gpu(int sms = 100) {
  Hardware hw;
  hw.name = "toy";
  hw.sm_count = sms;
  hw.tensor_flops_per_us_per_sm = {1e6, 2e6, 0};
  hw.cuda_core_flops_per_us_per_sm = 1e5;
  hw.hbm_bytes_per_us = 1e6;
  hw.hbm_saturation_sms = 50;
  hw.l2_bytes_per_us = 4e6;
  hw.l2_saturation_sms = 50;
  hw.l2_size_bytes = 50.0 * 1024 * 1024;
  hw.links[0] = {1e5, 2.0};
  hw.links[1] = {5e4, 5.0};
  return hw;
}

// A program under construction.
struct ProgramBuilder {
  Program p;
  explicit ProgramBuilder(int streams = 1) {
    for (int i = 0; i < streams; ++i) p.streams.push_back({"s" + std::to_string(i), 0});
  }
  int kernel(const std::string& name, int stream, Work w, double host_us = 0) {
    KernelSpec k;
    k.name = name;
    k.stream = stream;
    k.work = std::move(w);
    return add(std::move(k), host_us);
  }
  int given(const std::string& name, int stream, double duration_us, int sms = 0,
            double host_us = 0) {
    KernelSpec k;
    k.name = name;
    k.stream = stream;
    k.duration_us = duration_us;
    k.sms = sms;
    return add(std::move(k), host_us);
  }
  int add(KernelSpec k, double host_us = 0) {
    p.kernels.push_back(std::move(k));
    const int id = static_cast<int>(p.kernels.size()) - 1;
    p.actions.push_back({LaunchAction{id, host_us}, {}});
    return id;
  }
  int event(const std::string& name) {
    for (size_t i = 0; i < p.events.size(); ++i)
      if (p.events[i] == name) return static_cast<int>(i);
    p.events.push_back(name);
    return static_cast<int>(p.events.size()) - 1;
  }
  void record(const std::string& ev, int stream) {
    p.actions.push_back({RecordAction{event(ev), stream}, {}});
  }
  void wait(const std::string& ev, int stream) {
    p.actions.push_back({WaitAction{event(ev), stream}, {}});
  }
  void block(const std::string& ev) { p.actions.push_back({BlockAction{event(ev)}, {}}); }
  void delay(double us) { p.actions.push_back({DelayAction{us, "delay"}, {}}); }
};

inline Work compute_work(double bf16_flops, long long ctas, double hbm_bytes = 0) {
  Work w;
  w.tensor_flops[0] = bf16_flops;
  w.ctas = ctas;
  w.hbm_bytes = hbm_bytes;
  return w;
}

inline Work memory_work(double hbm_bytes, long long ctas) {
  Work w;
  w.hbm_bytes = hbm_bytes;
  w.ctas = ctas;
  return w;
}

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

inline CliResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), "overlapsim");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

// A file under the temporary directory for a group of tests (the directory is created).
inline std::filesystem::path scratch_path(const std::string& group, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "overlapsim-tests" / group;
  std::filesystem::create_directories(dir);
  return dir / name;
}

// A file's bytes ("" if it cannot be read).
inline std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Whether `items` holds `item`.
inline bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

inline std::string source_path(const std::string& rel) {
  return std::string(OVS_SOURCE_DIR) + "/" + rel;
}

// Minimal XML well-formedness: declarations, balanced tags, quoted attributes.
inline bool well_formed_xml(const std::string& s, std::string* why) {
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = s.find('<', i)) != std::string::npos) {
    const size_t j = s.find('>', i);
    if (j == std::string::npos) return *why = "unterminated tag", false;
    std::string tag = s.substr(i + 1, j - i - 1);
    i = j + 1;
    if (tag.empty()) return *why = "empty tag", false;
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (std::count(tag.begin(), tag.end(), '"') % 2)
      return *why = "unbalanced quotes in <" + tag + ">", false;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return *why = "mismatched </" + name + ">", false;
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return *why = "unclosed <" + stack.back() + ">", false;
  return true;
}

// The text a reader sees in an SVG: the content of every <text> element, XML entities decoded.
inline std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> out;
  size_t i = 0;
  while ((i = svg.find("<text", i)) != std::string::npos) {
    const size_t open_end = svg.find('>', i);
    const size_t close = svg.find("</text>", open_end);
    std::string t = svg.substr(open_end + 1, close - open_end - 1);
    for (auto [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                            {"&gt;", ">"},
                            {"&quot;", "\""},
                            {"&amp;", "&"}})
      for (size_t k; (k = t.find(from)) != std::string::npos;) t.replace(k, from.size(), to);
    out.push_back(t);
    i = close;
  }
  return out;
}

}  // namespace ovs::test
