#include "calibrate/fit/measurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "calibrate/fit/lm_fit.hpp"
#include "calibrate/fit/seed_block.hpp"
#include "models/cost/attention.hpp"
#include "models/cost/comm.hpp"
#include "models/cost/gemm.hpp"
#include "models/cost/memory_kernels.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {

const char* family_name(DataFamily f) {
  switch (f) {
    case DataFamily::deepgemm:
      return "deepgemm";
    case DataFamily::deepep:
      return "deepep";
    case DataFamily::flashmla:
      return "flashmla";
    case DataFamily::gpus:
      return "gpus";
    case DataFamily::seed:
      return "seed";
    case DataFamily::unknown:
      break;
  }
  return "unknown";
}

double epsfcn_for(const std::vector<const Measurement*>& rows) {
  for (const auto* m : rows)
    if (m->through_run) return kThroughEngineEpsfcn;
  return kDefaultEpsfcn;
}

double solo_us(const HwProfile& hw, const std::vector<KernelCost>& kernels) {
  // Kernels of one measurement run back to back (LL send, transfer, receive).
  const Engine engine(hw.engine);
  double total = 0;
  for (const auto& k : kernels) total += engine.solo_time_us(k.spec());
  return total;
}

namespace {

// Fields the cost models take as they are: shapes are whole numbers >= 1, measured times and
// rates positive. InputError naming the file, line and column otherwise.
constexpr double kMaxShape = 1 << 30;

std::int64_t whole(const CsvTable& t, size_t i, const std::string& column, double max = kMaxShape) {
  const double v = t.number(i, column);
  if (v != std::floor(v) || v < 1 || v > max)
    throw InputError(
        t.file(), t.line_of(i), column,
        fmt::format("expected a whole number in [1, {:.0f}], got '{}'", max, t.at(i, column)));
  return static_cast<std::int64_t>(v);
}

std::optional<std::int64_t> optional_whole(const CsvTable& t, size_t i, const std::string& column,
                                           double max = kMaxShape) {
  if (!t.maybe_number(i, column)) return std::nullopt;
  return whole(t, i, column, max);
}

double positive(const CsvTable& t, size_t i, const std::string& column) {
  const double v = t.number(i, column);
  if (!(v > 0))
    throw InputError(t.file(), t.line_of(i), column,
                     "expected a positive number, got '" + t.at(i, column) + "'");
  return v;
}

// True if some number of the profile was fitted to rows of this family ("... N deepgemm rows").
bool fitted_on(const HwProfile& hw, const std::string& family) {
  const std::string tag = " " + family + " rows";
  for (const auto& f : hw.fields)
    if (f.source.rfind("fitted by", 0) != std::string::npos &&
        f.source.find(tag) != std::string::npos)
      return true;
  return false;
}

DataFamily detect(const CsvTable& t) {
  if (t.has("kind") && t.has("groups") && t.has("tflops") && t.has("source_commit"))
    return DataFamily::deepgemm;
  if (t.has("kernel_class") && t.has("num_ep") && t.has("latency_us")) return DataFamily::deepep;
  if (t.has("h_q") && t.has("d_qk") && t.has("time_ms")) return DataFamily::flashmla;
  if (t.has("gpu") && t.has("metric") && t.has("value")) return DataFamily::gpus;
  if (t.has("row") && t.has("kind") && t.has("measured_us") && t.has("use"))
    return DataFamily::seed;
  return DataFamily::unknown;
}

void load_deepgemm(const CsvTable& t, const HwProfile& hw, const SelectOptions& o,
                   MeasurementSet& out) {
  // The table's newest version is the last commit in file order (today's kernels).
  std::string latest;
  for (size_t i = 0; i < t.rows(); ++i)
    if (hw.matches_gpu(t.at(i, "gpu"))) latest = t.at(i, "source_commit");
  const bool fitted = fitted_on(hw, "deepgemm");
  for (size_t i = 0; i < t.rows(); ++i) {
    const int line = t.line_of(i);
    if (!hw.matches_gpu(t.at(i, "gpu"))) continue;
    if (!o.all_versions && t.at(i, "source_commit") != latest) continue;
    GemmShape s;
    s.groups = static_cast<int>(whole(t, i, "groups", 4096));
    s.m = whole(t, i, "m");
    s.n = whole(t, i, "n");
    s.k = whole(t, i, "k");
    s.dtype = Dtype::fp8;
    const std::string kind = t.at(i, "kind");
    if (kind == "dense_normal")
      s.layout = GemmLayout::dense;
    else if (kind == "grouped_contiguous")
      s.layout = GemmLayout::contiguous;
    else if (kind == "grouped_masked")
      s.layout = GemmLayout::masked;
    else {
      out.skipped.push_back(fmt::format("line {}: GEMM kind '{}' not modelled", line, kind));
      continue;
    }
    const double tflops = positive(t, i, "tflops");
    Measurement m;
    m.family = "deepgemm";
    m.line = line;
    m.label = fmt::format("{} g{} {}x{}x{} ({})", kind, s.groups, s.m, s.n, s.k,
                          t.at(i, "source_commit").substr(0, 7));
    m.measured_us = 2.0 * s.groups * double(s.m) * s.n * s.k / (tflops * 1e6);
    // The fit uses today's table only: older versions are held back.
    m.in_sample = fitted && t.at(i, "source_commit") == latest;
    m.predict_us = [s](const HwProfile& h) { return solo_us(h, {gemm_cost(h, s)}); };
    out.rows.push_back(std::move(m));
  }
}

void load_deepep(const CsvTable& t, const HwProfile& hw, const SelectOptions& o,
                 MeasurementSet& out) {
  for (size_t i = 0; i < t.rows(); ++i) {
    const int line = t.line_of(i);
    if (!hw.matches_gpu(t.at(i, "gpu"))) continue;
    const std::string status = t.at(i, "status");
    const bool current = status.rfind("final", 0) == 0 || status.rfind("current", 0) == 0;
    if (!o.all_versions && !current) continue;
    const std::string cls = t.at(i, "kernel_class");
    if (cls != "normal" && cls != "low_latency") {
      out.skipped.push_back(
          fmt::format("line {}: DeepEP kernel class '{}' not modelled", line, cls));
      continue;
    }
    DeepepShape s;
    s.mode = cls == "normal" ? DeepepMode::normal : DeepepMode::low_latency;
    s.op = t.at(i, "op") == "combine" ? CommOp::combine : CommOp::dispatch;
    s.tokens = whole(t, i, "tokens_per_batch");
    s.hidden = static_cast<int>(whole(t, i, "hidden", 1 << 20));
    s.routing.topk = static_cast<int>(whole(t, i, "topk", 256));  // of the 256 experts below
    s.routing.ep_size = static_cast<int>(whole(t, i, "num_ep", 256));
    s.routing.gpus_per_node = 8;
    s.routing.experts = 256;
    const int nodes = (s.routing.ep_size + 7) / 8;
    // DeepEP's tests limit each token to min(nodes, 4) nodes (groups = nodes).
    if (auto g = optional_whole(t, i, "topk_groups", 256); g && nodes > 1) {
      s.routing.groups = nodes;
      s.routing.topk_groups = std::min<int>(nodes, static_cast<int>(*g));
    }
    if (auto sms = optional_whole(t, i, "num_sms", 4096)) s.num_sms = static_cast<int>(*sms);
    s.dispatch_dtype = t.at(i, "dispatch_dtype") == "BF16" ? Dtype::bf16 : Dtype::fp8;
    Measurement m;
    m.line = line;
    m.family = cls == "normal" ? "deepep_normal" : "deepep_low_latency";
    m.in_sample = current && fitted_on(hw, m.family);
    m.label = fmt::format("{} {} EP{} {} tokens", cls, t.at(i, "op"), s.routing.ep_size, s.tokens);
    if (s.mode == DeepepMode::normal) {
      // DeepEP reports logical bytes / time: the time is the logical bytes over the bandwidth.
      const double gbps = positive(t, i, "bandwidth_gbps");
      m.measured_us = deepep_cost(hw, s).logical_bytes / (gbps * 1e3);
    } else {
      m.measured_us = positive(t, i, "latency_us");
    }
    // DeepEP's tests time the dispatch / combine kernel itself in normal mode (the layout and the
    // count exchange are cached), and send + receive in low-latency mode.
    m.predict_us = [s](const HwProfile& h) {
      const DeepepCost c = deepep_cost(h, s);
      if (s.mode == DeepepMode::normal) return solo_us(h, {c.kernels[c.transfer]});
      return solo_us(h, c.kernels);
    };
    out.rows.push_back(std::move(m));
  }
}

void load_flashmla(const CsvTable& t, const HwProfile& hw, MeasurementSet& out) {
  for (size_t i = 0; i < t.rows(); ++i) {
    const int line = t.line_of(i);
    if (!hw.matches_gpu(t.at(i, "gpu"))) continue;
    auto ms = t.maybe_number(i, "time_ms");
    if (ms) ms = positive(t, i, "time_ms");
    if (!ms) {
      out.skipped.push_back(
          fmt::format("line {}: headline figure without a shape (used by calibrate)", line));
      continue;
    }
    const std::string kernel = t.at(i, "kernel");
    if (kernel.find("dense MLA decode") == std::string::npos) {
      out.skipped.push_back(fmt::format("line {}: kernel '{}' not modelled", line, kernel));
      continue;
    }
    AttentionShape s;
    s.kind = AttentionKind::mla_decode;
    s.batch = whole(t, i, "b");
    s.q_len = whole(t, i, "s_q");
    s.kv_len = whole(t, i, "mean_sk");
    s.heads = static_cast<int>(whole(t, i, "h_q", 1 << 20));
    s.d_qk = static_cast<int>(whole(t, i, "d_qk", 1 << 20));
    s.d_v = static_cast<int>(whole(t, i, "d_v", 1 << 20));
    s.kv_bytes_per_token = 2.0 * s.d_qk;  // BF16 KV cache
    Measurement m;
    m.family = "flashmla";
    m.line = line;
    m.in_sample = false;  // profiles fit FlashMLA's headline figures, not these per-shape runs
    m.label =
        fmt::format("dense decode b={} s_q={} s_k={} h_q={}", s.batch, s.q_len, s.kv_len, s.heads);
    m.measured_us = *ms * 1000.0;
    m.predict_us = [s](const HwProfile& h) { return solo_us(h, {attention_cost(h, s)}); };
    out.rows.push_back(std::move(m));
  }
}

// The words of a cell ("kv_write compressor indexer").
std::vector<std::string> words_of(const std::string& cell) {
  std::vector<std::string> out;
  std::istringstream words(cell);
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

// Seed 2's MI355X timeline (calibrate/published/seed2-*.csv): single GEMMs, a norm, and blocks of
// a V4 layer's attention kernels predicted from the model's own layer graph.
void load_seed(const CsvTable& t, const HwProfile& hw, MeasurementSet& out) {
  for (size_t i = 0; i < t.rows(); ++i) {
    const int line = t.line_of(i);
    if (!hw.matches_gpu(t.at(i, "gpu"))) continue;
    const std::string kind = t.at(i, "kind");
    const std::string use = t.at(i, "use");
    if (use != "fit" && use != "check")
      throw InputError(t.file(), line, "use", "expected 'fit' or 'check', got '" + use + "'");
    // The side branches' code path the row was measured on (column v4_kernels; default fused).
    V4Kernels path = V4Kernels::fused;
    if (t.has("v4_kernels") && !t.at(i, "v4_kernels").empty()) {
      const auto k = parse_v4_kernels(t.at(i, "v4_kernels"));
      if (!k)
        throw InputError(
            t.file(), line, "v4_kernels",
            "expected fused, rocm-2605 or torch-fallback, got '" + t.at(i, "v4_kernels") + "'");
      path = *k;
    }
    Measurement m;
    m.family = "seed";
    m.line = line;
    m.in_sample = use == "fit";
    m.measured_us = positive(t, i, "measured_us");
    if (kind == "gemm") {
      GemmShape s;
      s.m = whole(t, i, "m");
      s.n = whole(t, i, "n");
      s.k = whole(t, i, "k");
      const auto d = parse_dtype(t.at(i, "dtype"));
      if (!d) throw InputError(t.file(), line, "dtype", "expected bf16, fp8 or fp4");
      s.dtype = *d;
      m.label = fmt::format("{} gemm {} {}x{}x{}", t.at(i, "row"), t.at(i, "dtype"), s.m, s.n, s.k);
      m.predict_us = [s](const HwProfile& h) { return solo_us(h, {gemm_cost(h, s)}); };
    } else if (kind == "rmsnorm") {
      const std::int64_t tokens = whole(t, i, "tokens");
      const int dim = static_cast<int>(whole(t, i, "dim", 1 << 20));
      m.label = fmt::format("{} rmsnorm {}x{}", t.at(i, "row"), tokens, dim);
      m.predict_us = [tokens, dim](const HwProfile& h) {
        return solo_us(h, {rmsnorm_cost(h, tokens, dim, true)});
      };
    } else if (kind == "v4_serial") {
      // Kernels' durations as the seed read them: in SGLang's serial eager prefill (its
      // multi-stream path runs only under decode graph capture), summed by name prefix.
      const std::string model = t.at(i, "model");
      const std::int64_t tokens = whole(t, i, "tokens");
      const std::vector<std::string> prefixes = words_of(t.at(i, "kernels"));
      if (prefixes.empty())
        throw InputError(t.file(), line, "kernels", "name the kernels (name prefixes)");
      m.label = fmt::format("{} serial, {} tokens, {}", t.at(i, "row"), tokens, to_string(path));
      m.predict_us = [model, tokens, prefixes, path](const HwProfile& h) {
        return seed_serial_us(h, model, tokens, prefixes, path);
      };
      m.through_run = true;
    } else if (kind == "v4_side" || kind == "v4_block") {
      const std::string model = t.at(i, "model");
      const std::int64_t tokens = whole(t, i, "tokens");
      const std::vector<std::string> prefixes = words_of(t.at(i, "kernels"));
      if (kind == "v4_side" && prefixes.empty())
        throw InputError(t.file(), line, "kernels", "name the side-branch kernels' prefixes");
      m.label = fmt::format("{} {} {} tokens", t.at(i, "row"), model, tokens);
      if (kind == "v4_side")
        m.predict_us = [model, tokens, prefixes, path](const HwProfile& h) {
          return seed_side_branches_us(h, model, tokens, prefixes, path);
        };
      else
        m.predict_us = [model, tokens, path](const HwProfile& h) {
          return seed_block_us(h, model, tokens, true, path);
        };
      m.through_run = true;
    } else {
      out.skipped.push_back(fmt::format("line {}: seed row kind '{}' not modelled", line, kind));
      continue;
    }
    out.rows.push_back(std::move(m));
  }
}

}  // namespace

MeasurementSet load_measurements(const std::string& csv_path, const HwProfile& hw,
                                 const SelectOptions& o) {
  require_kernel_params(hw);
  const CsvTable t = CsvTable::load(csv_path);
  MeasurementSet out;
  out.family = detect(t);
  switch (out.family) {
    case DataFamily::deepgemm:
      load_deepgemm(t, hw, o, out);
      break;
    case DataFamily::deepep:
      load_deepep(t, hw, o, out);
      break;
    case DataFamily::flashmla:
      load_flashmla(t, hw, out);
      break;
    case DataFamily::gpus:
      break;  // hardware facts: used by calibrate, nothing to predict row by row
    case DataFamily::seed:
      load_seed(t, hw, out);
      break;
    case DataFamily::unknown:
      throw InputError(
          csv_path, 1, "header",
          "unrecognised CSV: expected DeepGEMM, DeepEP, FlashMLA, gpus.csv or seed-timeline "
          "columns");
  }
  return out;
}

}  // namespace ovs
