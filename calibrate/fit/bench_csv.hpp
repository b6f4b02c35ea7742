#pragma once
// Reads a folder of microbenchmark CSVs (calibrate/README.md: gemm.csv, hbm.csv, l2.csv,
// launch.csv, concurrency.csv; any may be absent) into typed rows. Every number the fitter uses
// is checked here, so bad input fails before any fit with one InputError naming the file, the
// line and the column. Rows of a kind the models do not cover (an unknown GEMM dtype, memory
// kernel or launch mode) are skipped with a note, not an error.
#include <cstdint>
#include <optional>
#include <string>

#include <vector>
#include "sim/core/work.hpp"

namespace ovs {

// The "# key: value" lines at the top of a CSV.
struct BenchMeta {
  std::string file;
  std::string gpu;       // device name ("NVIDIA H200")
  int gpu_line = 0;      // line of the gpu key
  std::string date_utc;  // "2025-12-02T14:08:00Z"
  std::string command;
  int sm_count = 0;     // 0: not given
  double l2_bytes = 0;  // 0: not given
  std::string date() const { return date_utc.substr(0, 10); }
};

struct GemmBenchRow {
  int line = 0;
  std::string op;
  std::string dtype;  // bf16 | fp8_e4m3 (per-tensor scales) | fp8_block128 (1x128/128x128 blocks)
  std::int64_t m = 0, n = 0, k = 0;
  int batch = 1;
  int sm_count_target = 0;  // 0: all SMs
  double time_us = 0;
  int tile_n = 0, tile_m = 0;  // the CTA tile cuBLASLt reports (0: not reported)
  int splitk = 1;
};

struct HbmBenchRow {
  int line = 0;
  std::string kernel;  // read | write | copy
  int sms_used = 0;
  std::int64_t ctas = 0;
  double bytes_moved = 0;
  double time_us = 0;
};

struct L2BenchRow {
  int line = 0;
  std::string test;  // sweep | reuse_first | reuse_second
  double working_set_bytes = 0;
  std::int64_t ctas = 0;
  double bytes_read = 0;
  double time_us = 0;
};

struct LaunchBenchRow {
  int line = 0;
  std::string mode;    // eager | eager_unqueued | graph | event_record | stream_wait_event
  std::string kernel;  // empty | small | none
  double host_us_per_item = 0;
  std::optional<double> gpu_us_per_item;  // absent for the event rows
};

struct ConcurrencyBenchRow {
  int line = 0;
  std::string pair, a, b;
  double alone_a_us = 0, alone_b_us = 0, together_us = 0, a_done_us = 0, b_done_us = 0;
  // One CTA of each workload's kernel, when the benchmark could query it (threads 0: unknown).
  CtaFootprint a_cta, b_cta;
};

struct BenchData {
  std::string dir;
  std::vector<BenchMeta> files;  // the CSVs found, in family order
  std::string gpu;               // from the first file
  std::string date;              // earliest date of the files (YYYY-MM-DD)
  int sm_count = 0;              // from the headers (0: not given)
  double l2_bytes = 0;
  std::vector<GemmBenchRow> gemm;
  std::vector<HbmBenchRow> hbm;
  std::vector<L2BenchRow> l2;
  std::vector<LaunchBenchRow> launch;
  std::vector<ConcurrencyBenchRow> concurrency;
  std::vector<std::string> skipped;  // "file:line: why"
  bool has(const std::string& family) const;
};

// The CSV families, in the order the fitter uses them.
const std::vector<std::string>& bench_families();

// Reads every known CSV in `dir`. InputError: no such directory, no known CSV in it, a missing
// column or metadata key, a field that is not a number (or not a positive / whole one where
// that is required), files from two different GPUs.
BenchData read_bench_dir(const std::string& dir);

}  // namespace ovs
