#include "calibrate/fit/fit_published.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <sstream>

#include "calibrate/fit/lm_fit.hpp"
#include "models/cost/attention.hpp"
#include "models/cost/gemm.hpp"
#include "sim/core/error.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {
namespace {

// The CSV lines of the rows a fit used, as ranges: "2-4, 9".
std::string line_ranges(const std::vector<const Measurement*>& rows) {
  std::vector<int> lines;
  for (const auto* m : rows) lines.push_back(m->line);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (size_t i = 0; i < lines.size();) {
    size_t j = i;
    while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j > i ? fmt::format("{}-{}", lines[i], lines[j]) : std::to_string(lines[i]);
    i = j + 1;
  }
  return out;
}

// A parameter of the profile the fit may move.
struct Knob {
  std::string path;
  double* target;    // in the engine's units
  double lo, hi;     // in the profile's units
  double scale = 1;  // engine units per profile unit (GB/s -> bytes/us: 1e3)
};

double mape_of(const HwProfile& hw, const std::vector<const Measurement*>& rows) {
  double s = 0;
  for (const auto* m : rows) s += std::fabs(m->predict_us(hw) - m->measured_us) / m->measured_us;
  return rows.empty() ? 0 : s / rows.size();
}

FitReport fit_rows(HwProfile& hw, const std::string& family,
                   const std::vector<const Measurement*>& rows, std::vector<Knob> knobs,
                   const std::string& provenance) {
  FitReport r;
  r.family = family;
  r.rows = static_cast<int>(rows.size());
  r.mape_before = mape_of(hw, rows);
  std::vector<FitParam> params;
  // Starts from the middle of each box, not from the profile's current numbers: refitting a
  // fitted profile gives the same result.
  for (const auto& k : knobs) params.push_back({k.path, 0.5 * (k.lo + k.hi), k.lo, k.hi});
  auto residuals = [&](const std::vector<double>& x) {
    for (size_t i = 0; i < knobs.size(); ++i) *knobs[i].target = x[i] * knobs[i].scale;
    std::vector<double> res;
    for (const auto* m : rows) res.push_back((m->predict_us(hw) - m->measured_us) / m->measured_us);
    return res;
  };
  const FitResult fit =
      fit_least_absolute(params, residuals, knobs.size() > 2 ? 8 : 2, 6, epsfcn_for(rows));
  for (size_t i = 0; i < knobs.size(); ++i) *knobs[i].target = fit.values[i] * knobs[i].scale;
  r.mape_after = mape_of(hw, rows);
  for (size_t i = 0; i < knobs.size(); ++i) {
    // Four significant digits: what the profile shows is what the engine uses.
    const double mag =
        std::pow(10.0, std::floor(std::log10(std::max(std::fabs(fit.values[i]), 1e-12))) - 3);
    const double v = std::round(fit.values[i] / mag) * mag;
    *knobs[i].target = v * knobs[i].scale;
    r.fields.push_back(
        {knobs[i].path, v,
         fmt::format("fitted by {} ({} {} rows, CSV lines {}, MAPE {:.1f}% -> {:.1f}%)", provenance,
                     rows.size(), family, line_ranges(rows), 100 * r.mape_before,
                     100 * r.mape_after)});
  }
  r.mape_after = mape_of(hw, rows);
  std::vector<std::pair<double, const Measurement*>> errs;
  for (const auto* m : rows)
    errs.emplace_back(std::fabs(m->predict_us(hw) - m->measured_us) / m->measured_us, m);
  std::sort(errs.begin(), errs.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < std::min<size_t>(3, errs.size()); ++i)
    r.worst.push_back(fmt::format("line {} {}: measured {:.1f} us, predicted {:.1f} us",
                                  errs[i].second->line, errs[i].second->label,
                                  errs[i].second->measured_us, errs[i].second->predict_us(hw)));
  return r;
}

std::vector<const Measurement*> rows_of(const MeasurementSet& set, const std::string& family) {
  std::vector<const Measurement*> out;
  for (const auto& m : set.rows)
    if (m.family == family) out.push_back(&m);
  return out;
}

// One headline figure (achieved TFLOP/s on a stated or typical shape) fixes one efficiency.
Measurement headline(std::string label, double tflops, double flops,
                     std::function<double(const HwProfile&)> f) {
  Measurement m;
  m.family = "headline";
  m.label = std::move(label);
  m.measured_us = flops / (tflops * 1e6);
  m.predict_us = std::move(f);
  return m;
}

// Headline rows of flashmla.csv and MAMF rows of gpus.csv, turned into measurements.
std::vector<std::pair<Measurement, Knob>> headline_rows(HwProfile& hw,
                                                        const std::string& csv_path) {
  std::vector<std::pair<Measurement, Knob>> out;
  const CsvTable t = CsvTable::load(csv_path);
  AttentionParams& ap = hw.kernels.attention;
  if (t.has("h_q") && t.has("time_ms")) {
    for (size_t i = 0; i < t.rows(); ++i) {
      if (!hw.matches_gpu(t.at(i, "gpu")) || t.maybe_number(i, "time_ms")) continue;
      auto tf = t.maybe_number(i, "tflops");
      if (!tf) continue;
      const std::string kernel = t.at(i, "kernel");
      AttentionShape s;
      double* target = nullptr;
      std::string path;
      if (kernel.find("dense MLA decode") != std::string::npos) {
        // A compute-bound shape: 128 heads x 2 query tokens per request (h_q*s_q >= 128).
        s = {AttentionKind::mla_decode, 128, 2, 4096, 128, 576, 512, 0, 1152, {}};
        target = &ap.mla_decode_efficiency;
        path = "kernels.attention.mla_decode_efficiency";
      } else if (kernel.find("sparse MLA decode") != std::string::npos) {
        s = {AttentionKind::sparse_decode, 128, 2, 65536, 128, 576, 512, 2048, 656, {}};
        if (auto b = t.maybe_number(i, "b")) s.batch = static_cast<std::int64_t>(*b);
        if (auto q = t.maybe_number(i, "s_q")) s.q_len = static_cast<std::int64_t>(*q);
        if (auto h = t.maybe_number(i, "h_q")) s.heads = static_cast<int>(*h);
        target = &ap.sparse_decode_efficiency;
        path = "kernels.attention.sparse_decode_efficiency";
      } else if (kernel.find("sparse MLA prefill") != std::string::npos) {
        s = {AttentionKind::sparse_prefill, 1, 4096, 65536, 128, 576, 512, 2048, 656, {}};
        target = &ap.sparse_prefill_efficiency;
        path = "kernels.attention.sparse_prefill_efficiency";
      } else if (kernel.find("dense MHA prefill") != std::string::npos) {
        s = {AttentionKind::dense_prefill, 1, 8192, 8192, 128, 192, 128, 0, 640, {}};
        target = &ap.prefill_efficiency;
        path = "kernels.attention.prefill_efficiency";
      } else {
        continue;
      }
      const double flops = attention_cost(hw, s).useful_flops;
      Measurement m =
          headline(fmt::format("{} {} TFLOPS", kernel, *tf), *tf, flops,
                   [s](const HwProfile& h) { return solo_us(h, {attention_cost(h, s)}); });
      m.line = t.line_of(i);
      out.push_back({m, Knob{path, target, 0.05, 1.0}});
    }
  }
  if (t.has("metric") && t.has("value") && t.has("gpu")) {
    // "Maximum achievable matmul FLOPS" (MAMF): the best GEMM of a sweep; shape from the notes
    // when given ("best shape 2048x2048x13312", "shape 1024x9216x14336"), else 8192^3.
    const std::regex shape_re("(\\d+)x(\\d+)x(\\d+)");
    for (size_t i = 0; i < t.rows(); ++i) {
      if (!hw.matches_gpu(t.at(i, "gpu"))) continue;
      const std::string metric = t.at(i, "metric");
      if (metric.find("MAMF") == std::string::npos) continue;
      const Dtype d = metric.rfind("fp8", 0) == 0 ? Dtype::fp8 : Dtype::bf16;
      auto tf = t.maybe_number(i, "value");
      if (!tf) continue;
      GemmShape s;
      s.m = s.n = s.k = 8192;
      s.dtype = d;
      std::smatch mt;
      const std::string notes = t.at(i, "notes");
      if (std::regex_search(notes, mt, shape_re)) {
        s.m = std::stoll(mt[1]);
        s.n = std::stoll(mt[2]);
        s.k = std::stoll(mt[3]);
      }
      Measurement m = headline(fmt::format("{} {} TFLOPS", metric, *tf), *tf, 2.0 * s.m * s.n * s.k,
                               [s](const HwProfile& h) { return solo_us(h, {gemm_cost(h, s)}); });
      m.line = t.line_of(i);
      out.push_back({m, Knob{"kernels.gemm.efficiency." + std::string(dtype_name(d)),
                             &hw.kernels.gemm.efficiency[static_cast<int>(d)], 0.05, 1.0}});
    }
  }
  return out;
}

}  // namespace

std::vector<FitReport> fit_published(HwProfile& hw, const std::string& csv_path,
                                     const std::string& provenance) {
  require_kernel_params(hw);
  const MeasurementSet set = load_measurements(csv_path, hw);
  std::vector<FitReport> reports;
  GemmParams& g = hw.kernels.gemm;
  CommParams& c = hw.kernels.comm;
  if (set.family == DataFamily::deepgemm) {
    auto rows = rows_of(set, "deepgemm");
    std::vector<Knob> knobs{
        {"kernels.gemm.efficiency.fp8", &g.efficiency[static_cast<int>(Dtype::fp8)], 0.3, 1.0},
        {"kernels.gemm.efficiency_m64_ratio", &g.efficiency_m64_ratio, 0.5, 1.0},
        {"kernels.gemm.tile_overhead_us", &g.tile_overhead_us, 0.0, 10.0},
        {"kernels.gemm.k_iteration_us", &g.k_iteration_us, 0.0, 1.0},
        {"kernels.gemm.epilogue_write_fraction", &g.epilogue_write_fraction, 0.0, 1.0},
        {"kernels.gemm.fixed_latency_us", &g.fixed_latency_us, 0.0, 15.0}};
    // GEMMs stream weights through HBM: the rows also tell what HBM bandwidth kernels sustain
    // (FlashMLA's 3000 GB/s is a best case).
    knobs.push_back({"hbm.achievable_gbps", &hw.engine.hbm_bytes_per_us, 0.75 * hw.hbm_peak_gbps,
                     hw.hbm_peak_gbps, 1e3});
    if (!rows.empty()) reports.push_back(fit_rows(hw, "deepgemm", rows, knobs, provenance));
  } else if (set.family == DataFamily::deepep) {
    auto normal = rows_of(set, "deepep_normal");
    if (!normal.empty())
      reports.push_back(fit_rows(
          hw, "deepep_normal", normal,
          {{"kernels.comm.normal_nvlink_efficiency", &c.normal_nvlink_efficiency, 0.3, 1.0},
           {"kernels.comm.normal_rdma_efficiency", &c.normal_rdma_efficiency, 0.3, 1.0}},
          provenance));
    auto ll = rows_of(set, "deepep_low_latency");
    if (!ll.empty())
      reports.push_back(fit_rows(
          hw, "deepep_low_latency", ll,
          {{"kernels.comm.ll_nvlink_efficiency", &c.ll_nvlink_efficiency, 0.3, 1.0},
           {"kernels.comm.ll_rdma_efficiency", &c.ll_rdma_efficiency, 0.3, 1.0},
           {"kernels.comm.ll_latency_us", &c.ll_latency_us, 0.0, 100.0},
           {"kernels.comm.ll_latency_per_log2_ep_us", &c.ll_latency_per_log2_ep_us, 0.0, 30.0}},
          provenance));
  } else if (set.family == DataFamily::seed) {
    // Seed 2's MI355X timeline, durations as read in SGLang's serial prefill: its two GEMMs
    // inform the FP8 GEMM efficiency and the per-tile overhead (q_b runs many waves of tiles,
    // wqkv_a one), the norm the shortest kernel. BF16 keeps
    // its measured (MAMF) efficiency; the side branches and the block are held back (`check`
    // rows, and the side branches are not fitted either: no parameter of these kernels is
    // informed by their sum alone).
    std::vector<const Measurement*> rows;
    for (const auto& m : set.rows)
      if (m.in_sample) rows.push_back(&m);
    MemoryKernelParams& mk = hw.kernels.memory;
    if (!rows.empty())
      reports.push_back(fit_rows(
          hw, "seed", rows,
          {{"kernels.gemm.efficiency.fp8", &g.efficiency[static_cast<int>(Dtype::fp8)], 0.05, 1.0},
           {"kernels.gemm.tile_overhead_us", &g.tile_overhead_us, 0.0, 10.0},
           {"kernels.memory.kernel_min_us", &mk.kernel_min_us, 0.5, 6.0}},
          provenance));
  } else {
    auto heads = headline_rows(hw, csv_path);
    for (auto& [m, knob] : heads) {
      std::vector<const Measurement*> rows{&m};
      FitReport r = fit_rows(hw, "headline", rows, {knob}, provenance);
      r.family = fmt::format("line {} {}", m.line, m.label);
      reports.push_back(std::move(r));
    }
  }
  return reports;
}

namespace {

// A fitted number's spread when the fit gave no standard error: the residuals' sd (1.25 x MAPE
// for normal residuals) x sqrt(parameters / rows), at least 1 %; a fit with no more rows than
// parameters is exactly determined and has none: 10 %, a headline figure's typical tolerance.
// The rule the shipped profiles' spreads follow (their closing comment).
double residual_spread(const FitReport& r) {
  const double params = static_cast<double>(r.fields.size());
  if (r.rows <= static_cast<int>(r.fields.size()) || r.mape_after <= 0) return 0.10;
  return std::max(0.01, 1.25 * r.mape_after * std::sqrt(params / r.rows));
}

}  // namespace

std::string apply_fits(const std::string& yaml_text, const HwProfile& base,
                       const std::vector<FitReport>& fits) {
  std::vector<std::string> lines;
  {
    std::istringstream in(yaml_text);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  const std::regex sourced("\\{\\s*value:[^}]*\\}");
  for (const auto& r : fits) {
    for (const auto& f : r.fields) {
      auto it = std::find_if(base.fields.begin(), base.fields.end(),
                             [&](const SourcedField& s) { return s.path == f.path; });
      if (it == base.fields.end() || it->line <= 0 || it->line > int(lines.size()))
        throw InputError(base.file, 0, f.path, "the profile has no such field to update");
      std::string& line = lines[it->line - 1];
      std::string source = f.source;
      std::replace(source.begin(), source.end(), '"', '\'');
      const double spread = f.spread >= 0 ? f.spread : residual_spread(r);
      const std::string repl =
          fmt::format("{{value: {:.6g}, spread: {:.3g}, source: \"{}\"}}", f.value, spread, source);
      if (std::regex_search(line, sourced)) {
        line = std::regex_replace(line, sourced, repl, std::regex_constants::format_first_only);
      } else {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
          throw InputError(base.file, it->line, f.path, "cannot update this line");
        line = line.substr(0, colon + 1) + " " + repl;
      }
    }
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace ovs
