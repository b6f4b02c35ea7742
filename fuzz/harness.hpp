#pragma once
// What each fuzz target feeds its input through, shared by the libFuzzer mains (fuzz_*.cpp) and
// tests/test_fuzz_regressions.cpp, which replays the inputs kept in fuzz/regressions/.
//
// An InputError (or SimulationError, which the CLI also answers with exit code 2) is the
// documented answer to bad input and propagates; a wrong answer the harness checks for is
// thrown as a Finding; any other exception is a finding by itself.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "app/analysis/whatif.hpp"
#include "app/program/program_loader.hpp"
#include "app/program/program_text.hpp"
#include "app/strategy/strategy.hpp"
#include "app/sweep/sweep_point.hpp"
#include "app/sweep/sweep_spec.hpp"
#include "calibrate/fit/bench_checks.hpp"
#include "calibrate/fit/bench_csv.hpp"
#include "calibrate/fit/validation.hpp"
#include "calibrate/import/kineto_reader.hpp"
#include "calibrate/import/trace_analysis.hpp"
#include "calibrate/import/trace_export.hpp"
#include "models/config/model_config.hpp"
#include "models/graph/layer_builder.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs::fuzz {

// A wrong answer that is not an exception of the loaders (a non-finite time, an exported
// program that does not load, ...).
class Finding : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

inline void require(bool ok, const std::string& what) {
  if (!ok) throw Finding(what);
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// --- fixtures, loaded once ----------------------------------------------------------------------

inline const HwProfile& h800() {
  static const HwProfile p = load_hw_profile("h800-sxm");
  return p;
}

// A model cut to its first `layers` layers (dense layers and compress ratios kept).
inline ModelConfig shortened(ModelConfig m, int layers) {
  if (m.layers <= layers) return m;
  m.layers = layers;
  m.dense_layers = std::min(m.dense_layers, layers);
  if (!m.compress_ratios.empty()) m.compress_ratios.resize(static_cast<size_t>(layers));
  m.hash_layers = std::min(m.hash_layers, layers);
  return m;
}

inline const ModelConfig& short_v3() {  // dense, moe, moe
  static const ModelConfig m = shortened(load_model_config("deepseek-v3"), 3);
  return m;
}

inline const ModelConfig& short_v4_pro() {  // hca, hca, csa
  static const ModelConfig m = shortened(load_model_config("deepseek-v4-pro"), 3);
  return m;
}

inline const Strategy& shipped_strategy(const std::string& name, ModelFamily f) {
  static std::map<std::string, Strategy> cache;
  const std::string key = std::to_string(int(f)) + "/" + name;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, load_strategy(name, f)).first;
  return it->second;
}

// A what-if of `strategy` against no-overlap: decode (8 requests) or prefill (512 tokens), one
// of the two per input (by its length) so that each run stays short and the corpus covers both.
inline void whatif(const ModelConfig& model, const HwProfile& hw, const Strategy& strategy,
                   const std::string& input) {
  const Strategy& base = shipped_strategy("no-overlap", model.family);
  const Phase phase = input.size() % 2 ? Phase::prefill : Phase::decode;
  Workload w;
  w.phase = phase;
  w.tokens_per_gpu = phase == Phase::decode ? 8 : 512;
  w.context = phase == Phase::decode ? 1024 : 256;
  w.ep = 16;
  WhatIfSession session(model, hw, w);
  const WhatIfResult r = session.compare(base, strategy);
  require(std::isfinite(r.baseline.total_us) && r.baseline.total_us > 0 &&
              std::isfinite(r.overlapped.total_us) && r.overlapped.total_us > 0,
          "what-if time not finite and positive: " + std::to_string(r.baseline.total_us) + " / " +
              std::to_string(r.overlapped.total_us));
}

// A private temporary directory for the loaders that read files.
inline const std::string& temp_dir() {
  static const std::string dir = [] {
    const auto p =
        std::filesystem::temp_directory_path() / ("overlapsim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p.string();
  }();
  return dir;
}

// --- the targets --------------------------------------------------------------------------------

// Program YAML: parse_program; programs of up to 2000 actions then run on the engine, as
// `overlapsim run` runs them (as given and serialized on one stream). Whatever the fast reader
// (yaml_fast.hpp) reads must be the program yaml-cpp reads, and it must read nothing yaml-cpp
// rejects.
inline void program(const std::string& text) {
  const auto fast = parse_program_fast(text, "fuzz.yaml");
  LoadedProgram p;
  try {
    p = parse_program(yaml::load_string(text, "fuzz.yaml"));
  } catch (...) {
    require(!fast, "the fast reader reads a program that yaml-cpp rejects");
    throw;
  }
  require(!fast || program_text(*fast) == program_text(p),
          "the fast reader and yaml-cpp read different programs");
  const std::string problem = check_program(p.program);
  require(problem.empty(), "a loaded program fails check_program: " + problem);
  if (p.program.actions.size() > 2000) return;  // large programs are slow, not wrong
  const Engine engine(p.hw.engine);
  engine.run(p.program);
  engine.run(serialized(p.program));
}

// Hardware profile YAML: parse_hw_profile; a profile with cost-model parameters then runs a
// what-if on DeepSeek-V3 cut to 3 layers (no-overlap against tbo-decode).
inline void hw_profile(const std::string& text) {
  const HwProfile hw = parse_hw_profile(yaml::load_string(text, "fuzz.yaml"));
  if (!hw.has_kernel_params) return;
  whatif(short_v3(), hw, shipped_strategy("tbo-decode", ModelFamily::v3), text);
}

// Model config YAML: parse_model_config; the model cut to 3 layers then runs a what-if.
inline void model_config(const std::string& text) {
  const ModelConfig m = parse_model_config(yaml::load_string(text, "fuzz.yaml"));
  whatif(shortened(m, 3), h800(), shipped_strategy("tbo-decode", m.family), text);
}

// Strategy YAML: parse_strategy, check_strategy against the DeepSeek-V3 or V4-Pro layers; a
// checked strategy must then build and simulate (a what-if on the shortened model).
inline void strategy(const std::string& text) {
  const Strategy s = parse_strategy(yaml::load_string(text, "fuzz.yaml"));
  const ModelConfig& model = s.family == ModelFamily::v4 ? short_v4_pro() : short_v3();
  Workload w;
  w.tokens_per_gpu = 8;
  w.context = 1024;
  w.ep = 16;
  const LayerBuilder lb(model, h800(), w);
  check_strategy(s, lb);
  whatif(model, h800(), s, text);
}

// Sweep spec YAML: parse_sweep_spec, the point count, the first, middle and last points, the
// CSV columns, and the names checked as `overlapsim sweep` checks them.
inline void sweep_spec(const std::string& text) {
  const SweepSpec s = parse_sweep_spec(yaml::load_string(text, "fuzz.yaml"));
  const long long n = s.points();
  require(n >= 1, "a sweep of " + std::to_string(n) + " points");
  for (const long long i : {0LL, n / 2, n - 1}) {
    const auto p = s.point(i);
    for (const char* f : {"model", "hw", "tokens_per_gpu", "context", "ep"})
      require(p.count(f) > 0, std::string("a point without ") + f);
  }
  require(!s.input_columns().empty(), "no input columns");
  check_sweep_names(s);
}

// CSVs; the first byte picks the family, the rest is the file:
//   0-4: a microbenchmark CSV (launch, hbm, l2, gemm, concurrency.csv) read by read_bench_dir as
//        `calibrate --bench` reads it, then checked through the engine (bench_checks);
//   5:   a published-data CSV read by load_measurements for h800-sxm, every row predicted;
//   6-7: CsvTable::parse alone, every field read as a number.
inline void csv(const std::string& bytes) {
  if (bytes.empty()) return;
  const int family = static_cast<unsigned char>(bytes[0]) % 8;
  const std::string text = bytes.substr(1);
  namespace fs = std::filesystem;
  auto write_alone = [&](const std::string& sub, const std::string& name) {
    const fs::path dir = fs::path(temp_dir()) / sub;
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir;
  };
  if (family < 5) {
    const fs::path dir = write_alone("bench", bench_families()[family] + ".csv");
    bench_checks(h800(), read_bench_dir(dir.string()));
  } else if (family == 5) {
    const fs::path dir = write_alone("published", "data.csv");
    const MeasurementSet set = load_measurements((dir / "data.csv").string(), h800());
    validate(h800(), set);
  } else {
    const CsvTable t = CsvTable::parse(text, "fuzz.csv");
    for (size_t r = 0; r < t.rows(); ++r)
      for (const auto& c : t.header()) t.maybe_number(r, c);
  }
}

// Kineto trace JSON: the streaming reader (from memory), the analysis, both reports, and the
// exported program, which must load again as an `overlapsim run` program.
inline void trace(const std::string& text) {
  std::istringstream in(text);
  const trace::TraceAnalysis a = trace::analyze_trace(trace::read_kineto_trace(in, "fuzz.json"));
  std::ostringstream json, table, program;
  json << trace::trace_json(a).dump(2);
  trace::write_trace_table(table, a);
  const trace::ExportOptions options{"h800-sxm", h800().engine.sm_count};
  trace::write_program_yaml(program, a, trace::export_program(a, options), options);
  try {
    parse_program(yaml::load_string(program.str(), "exported.yaml"));
  } catch (const InputError& e) {
    throw Finding(std::string("the exported program does not load: ") + e.what());
  }
}

// By target name (the folder names under fuzz/corpus and fuzz/regressions).
inline void run_target(const std::string& target, const std::string& bytes) {
  if (target == "program") return program(bytes);
  if (target == "hw_profile") return hw_profile(bytes);
  if (target == "model_config") return model_config(bytes);
  if (target == "strategy") return strategy(bytes);
  if (target == "sweep_spec") return sweep_spec(bytes);
  if (target == "csv") return csv(bytes);
  if (target == "trace") return trace(bytes);
  throw std::invalid_argument("no fuzz target '" + target + "'");
}

}  // namespace ovs::fuzz
