#include "calibrate/fit/bench_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {
namespace fs = std::filesystem;

const std::vector<std::string>& bench_families() {
  static const std::vector<std::string> f{"launch", "hbm", "l2", "gemm", "concurrency"};
  return f;
}

bool BenchData::has(const std::string& family) const {
  return std::any_of(files.begin(), files.end(), [&](const BenchMeta& m) {
    return fs::path(m.file).filename() == family + ".csv";
  });
}

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

// A CSV's text with the line of its header row and its metadata.
struct CsvFile {
  CsvTable table;
  BenchMeta meta;
  int header_line = 1;
};

CsvFile load(const std::string& path) {
  const std::string text = CsvTable::read_text(path);
  CsvFile f{CsvTable::parse(text, path), {}, 1};
  f.meta.file = path;
  std::istringstream lines(text);
  std::string line;
  int lineno = 0;
  std::map<std::string, int> key_line;
  while (std::getline(lines, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] != '#') {
      f.header_line = lineno;
      break;
    }
    const std::string body = trim(line.substr(1));
    const auto colon = body.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(body.substr(0, colon));
    const std::string value = trim(body.substr(colon + 1));
    if (key_line.count(key)) continue;  // repeated keys (note: ...): the first counts
    key_line[key] = lineno;
    auto whole = [&](const std::string& field, double max) {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !std::isfinite(v) || v < 0 || v > max)
        throw InputError(
            path, lineno, field,
            fmt::format("expected a non-negative number up to {:g}, got '{}'", max, value));
      return v;
    };
    if (key == "gpu") {
      f.meta.gpu = value;
      f.meta.gpu_line = lineno;
    } else if (key == "date_utc") {
      static const std::regex iso("\\d{4}-\\d{2}-\\d{2}.*");
      if (!std::regex_match(value, iso))
        throw InputError(path, lineno, "date_utc",
                         "expected an ISO 8601 date (2025-12-02T14:08:00Z), got '" + value + "'");
      f.meta.date_utc = value;
    } else if (key == "command") {
      f.meta.command = value;
    } else if (key == "sm_count") {
      f.meta.sm_count = static_cast<int>(whole("sm_count", 1e6));
    } else if (key == "l2_bytes") {
      f.meta.l2_bytes = whole("l2_bytes", 1e15);
    }
  }
  if (f.meta.gpu.empty())
    throw InputError(path, 1, "gpu", "missing '# gpu: <device name>' metadata line");
  if (f.meta.date_utc.empty())
    throw InputError(path, 1, "date_utc", "missing '# date_utc: <ISO 8601 date>' metadata line");
  return f;
}

// Column checks and typed fields of one CSV, with errors naming file, line and column.
class Reader {
 public:
  Reader(const CsvFile& f, std::vector<std::string> required) : f_(f) {
    for (const auto& c : required)
      if (!f.table.has(c)) throw InputError(f.meta.file, f.header_line, c, "missing column");
  }
  size_t rows() const { return f_.table.rows(); }
  int line(size_t r) const { return f_.table.line_of(r); }
  const std::string& text(size_t r, const std::string& c) const { return f_.table.at(r, c); }
  bool has(const std::string& c) const { return f_.table.has(c); }
  double number(size_t r, const std::string& c) const { return f_.table.number(r, c); }
  double positive(size_t r, const std::string& c) const {
    const double v = number(r, c);
    if (v <= 0) fail(r, c, "expected a positive number, got '" + text(r, c) + "'");
    return v;
  }
  std::int64_t whole(size_t r, const std::string& c, std::int64_t lo) const {
    const double v = number(r, c);
    if (v != std::floor(v) || v < double(lo) || v > 9.0e15)
      fail(r, c, fmt::format("expected a whole number >= {}, got '{}'", lo, text(r, c)));
    return static_cast<std::int64_t>(v);
  }
  std::optional<double> optional_positive(size_t r, const std::string& c) const {
    if (text(r, c).empty()) return std::nullopt;
    return positive(r, c);
  }
  [[noreturn]] void fail(size_t r, const std::string& c, const std::string& why) const {
    throw InputError(f_.meta.file, line(r), c, why);
  }
  std::string where(size_t r) const {
    return fmt::format("{}:{}", fs::path(f_.meta.file).filename().string(), line(r));
  }
  // Whether row r's `value` (its `what`: "GEMM dtype", ...) is one of `known`; if not, the row
  // is to be skipped, and `skipped` says so.
  bool modelled(size_t r, const std::string& what, const std::string& value,
                const std::vector<std::string>& known, std::vector<std::string>& skipped) const {
    if (std::find(known.begin(), known.end(), value) != known.end()) return true;
    skipped.push_back(fmt::format("{}: {} '{}' not modelled", where(r), what, value));
    return false;
  }

 private:
  const CsvFile& f_;
};

void read_gemm(const CsvFile& f, BenchData& d) {
  const Reader r(f, {"dtype", "m", "n", "k", "batch", "sm_count_target", "time_us"});
  static const std::regex tile_re("(\\d+)x(\\d+)");
  for (size_t i = 0; i < r.rows(); ++i) {
    GemmBenchRow g;
    g.line = r.line(i);
    if (r.has("op")) g.op = r.text(i, "op");
    g.dtype = r.text(i, "dtype");
    g.m = r.whole(i, "m", 1);
    g.n = r.whole(i, "n", 1);
    g.k = r.whole(i, "k", 1);
    g.batch = static_cast<int>(r.whole(i, "batch", 1));
    g.sm_count_target = static_cast<int>(r.whole(i, "sm_count_target", 0));
    g.time_us = r.positive(i, "time_us");
    if (r.has("tile")) {
      std::smatch mt;
      const std::string tile = r.text(i, "tile");
      if (std::regex_match(tile, mt, tile_re)) {
        if (mt[1].length() > 6 || mt[2].length() > 6)
          r.fail(i, "tile", "expected a CTA tile such as 128x256, got '" + tile + "'");
        g.tile_n = std::stoi(mt[1]);  // cuBLAS m = output features
        g.tile_m = std::stoi(mt[2]);  // cuBLAS n = tokens
      }
    }
    if (r.has("splitk") && !r.text(i, "splitk").empty())
      g.splitk = static_cast<int>(r.whole(i, "splitk", 1));
    if (!r.modelled(i, "GEMM dtype", g.dtype, {"bf16", "fp8_e4m3", "fp8_block128"}, d.skipped))
      continue;
    d.gemm.push_back(g);
  }
}

void read_hbm(const CsvFile& f, BenchData& d) {
  const Reader r(f, {"kernel", "sms_used", "ctas", "bytes_moved", "time_us"});
  for (size_t i = 0; i < r.rows(); ++i) {
    HbmBenchRow h;
    h.line = r.line(i);
    h.kernel = r.text(i, "kernel");
    h.sms_used = static_cast<int>(r.whole(i, "sms_used", 1));
    h.ctas = r.whole(i, "ctas", 1);
    h.bytes_moved = r.positive(i, "bytes_moved");
    h.time_us = r.positive(i, "time_us");
    if (!r.modelled(i, "memory kernel", h.kernel, {"read", "write", "copy"}, d.skipped)) continue;
    d.hbm.push_back(h);
  }
}

void read_l2(const CsvFile& f, BenchData& d) {
  const Reader r(f, {"test", "working_set_bytes", "ctas", "bytes_read", "time_us"});
  for (size_t i = 0; i < r.rows(); ++i) {
    L2BenchRow l;
    l.line = r.line(i);
    l.test = r.text(i, "test");
    l.working_set_bytes = r.positive(i, "working_set_bytes");
    l.ctas = r.whole(i, "ctas", 1);
    l.bytes_read = r.positive(i, "bytes_read");
    l.time_us = r.positive(i, "time_us");
    if (!r.modelled(i, "L2 test", l.test, {"sweep", "reuse_first", "reuse_second"}, d.skipped))
      continue;
    d.l2.push_back(l);
  }
}

void read_launch(const CsvFile& f, BenchData& d) {
  const Reader r(f, {"mode", "kernel", "host_us_per_item", "gpu_us_per_item"});
  static const std::vector<std::string> modes{"eager", "eager_unqueued", "graph", "event_record",
                                              "stream_wait_event"};
  for (size_t i = 0; i < r.rows(); ++i) {
    LaunchBenchRow l;
    l.line = r.line(i);
    l.mode = r.text(i, "mode");
    l.kernel = r.text(i, "kernel");
    l.host_us_per_item = r.positive(i, "host_us_per_item");
    l.gpu_us_per_item = r.optional_positive(i, "gpu_us_per_item");
    if (!r.modelled(i, "launch mode", l.mode, modes, d.skipped)) continue;
    if ((l.mode == "eager" || l.mode == "graph") && !l.gpu_us_per_item)
      r.fail(i, "gpu_us_per_item", "expected a number for mode " + l.mode + ", got ''");
    d.launch.push_back(l);
  }
}

void read_concurrency(const CsvFile& f, BenchData& d) {
  const Reader r(
      f, {"pair", "a", "b", "alone_a_us", "alone_b_us", "together_us", "a_done_us", "b_done_us"});
  for (size_t i = 0; i < r.rows(); ++i) {
    ConcurrencyBenchRow c;
    c.line = r.line(i);
    c.pair = r.text(i, "pair");
    c.a = r.text(i, "a");
    c.b = r.text(i, "b");
    c.alone_a_us = r.positive(i, "alone_a_us");
    c.alone_b_us = r.positive(i, "alone_b_us");
    c.together_us = r.positive(i, "together_us");
    c.a_done_us = r.positive(i, "a_done_us");
    c.b_done_us = r.positive(i, "b_done_us");
    // Older files have no footprint columns; an empty cell means the kernel was not queried.
    for (auto [prefix, cta] : {std::pair{"a", &c.a_cta}, std::pair{"b", &c.b_cta}}) {
      const std::string th = std::string(prefix) + "_cta_threads";
      if (!r.has(th) || r.text(i, th).empty()) continue;
      cta->threads = static_cast<int>(r.whole(i, th, 1));
      cta->registers_per_thread =
          static_cast<int>(r.whole(i, std::string(prefix) + "_cta_registers", 1));
      cta->shared_bytes = double(r.whole(i, std::string(prefix) + "_cta_shared_bytes", 0));
    }
    d.concurrency.push_back(c);
  }
}

}  // namespace

BenchData read_bench_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw InputError(dir, 0, "--bench", "no such directory");
  if (!fs::is_directory(dir, ec))
    throw InputError(dir, 0, "--bench", "not a directory (give the folder holding the CSVs)");
  BenchData d;
  d.dir = dir;
  std::vector<std::string> partial;
  for (const auto& family : bench_families()) {
    const fs::path p = fs::path(dir) / (family + ".csv");
    if (!fs::exists(p, ec)) {
      if (fs::exists(fs::path(dir) / (family + ".csv.partial"), ec))
        partial.push_back(family + ".csv.partial");
      continue;
    }
    const CsvFile f = load(p.string());
    if (d.files.empty()) {
      d.gpu = f.meta.gpu;
      d.date = f.meta.date();
    } else if (f.meta.gpu != d.gpu) {
      throw InputError(f.meta.file, f.meta.gpu_line, "gpu",
                       fmt::format("'{}' differs from '{}' in {}: the CSVs of one --bench folder "
                                   "must come from one GPU",
                                   f.meta.gpu, d.gpu, d.files.front().file));
    }
    d.date = std::min(d.date, f.meta.date());
    if (f.meta.sm_count > 0) d.sm_count = f.meta.sm_count;
    if (f.meta.l2_bytes > 0) d.l2_bytes = f.meta.l2_bytes;
    if (family == "gemm") read_gemm(f, d);
    if (family == "hbm") read_hbm(f, d);
    if (family == "l2") read_l2(f, d);
    if (family == "launch") read_launch(f, d);
    if (family == "concurrency") read_concurrency(f, d);
    d.files.push_back(f.meta);
  }
  if (d.files.empty()) {
    std::string why =
        "no microbenchmark CSV here (expected any of gemm.csv, hbm.csv, l2.csv, "
        "launch.csv, concurrency.csv)";
    if (!partial.empty()) {
      why += "; found ";
      for (size_t i = 0; i < partial.size(); ++i) why += (i ? ", " : "") + partial[i];
      why += " (an interrupted run)";
    }
    throw InputError(dir, 0, "--bench", why);
  }
  for (const auto& p : partial)
    d.skipped.push_back(p + ": an interrupted run, not read (rerun that family)");
  return d;
}

}  // namespace ovs
