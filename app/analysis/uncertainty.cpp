#include "app/analysis/uncertainty.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

#include "app/strategy/strategy.hpp"
#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_override.hpp"

namespace ovs {
namespace {

// SplitMix64: a small generator whose stream is the same on every platform and compiler (the
// standard library's distributions are not), so a seed gives the same draws everywhere.
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::uint64_t below(std::uint64_t n) { return next() % n; }    // bias < n / 2^64

 private:
  std::uint64_t s_;
};

// Latin hypercube: u[i][k] for draw i and number k, each number's N draws one in each of N equal
// strata of (0, 1), strata paired across numbers by independent permutations.
std::vector<std::vector<double>> latin_hypercube(int draws, size_t numbers, std::uint64_t seed) {
  SplitMix rng(seed);
  std::vector<std::vector<double>> u(static_cast<size_t>(draws), std::vector<double>(numbers));
  std::vector<int> perm(static_cast<size_t>(draws));
  for (size_t k = 0; k < numbers; ++k) {
    for (int i = 0; i < draws; ++i) perm[static_cast<size_t>(i)] = i;
    for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
    for (size_t i = 0; i < perm.size(); ++i) {
      const double jitter = rng.uniform();
      u[i][k] = (perm[i] + (jitter == 0 ? 0.5 : jitter)) / draws;
    }
  }
  return u;
}

struct Outcome {
  double baseline_us = 0, overlapped_us = 0, speedup = 1;
};

// The numbers at the points u (one in (0, 1) each) of their distributions.
std::vector<double> drawn_values(const std::vector<UncertainNumber>& nums,
                                 const std::vector<double>& u) {
  std::vector<double> v(nums.size());
  for (size_t k = 0; k < nums.size(); ++k)
    v[k] = nums[k].spread.quantile(nums[k].value, u[k], nums[k].legal);
  return v;
}

// Sets number k to values[k] in its document (`model_root` may be null when every number is the
// hardware profile's).
void set_numbers(const std::vector<UncertainNumber>& nums, const std::vector<double>& values,
                 const yaml::Value& hw_root, const yaml::Value* model_root) {
  Overrides hw_o, model_o;
  for (size_t k = 0; k < nums.size(); ++k)
    (nums[k].doc == "hw" ? hw_o : model_o).emplace_back(nums[k].path, fmt::format("{}", values[k]));
  apply_overrides(hw_root, hw_o);
  if (model_root) apply_overrides(*model_root, model_o);
}

// One thread's evaluator: the two YAML documents loaded once, the strategies, and the run
// storage reused from draw to draw.
class DrawRunner {
 public:
  DrawRunner(const UncertaintyRequest& r, const std::vector<UncertainNumber>& numbers)
      : r_(r),
        numbers_(numbers),
        hw_root_(yaml::load_file(resolve_data_file(r.what.hw, "hw_profiles", "hardware profile"))),
        model_root_(yaml::load_file(resolve_data_file(r.what.model, "models/configs", "model"))) {
    apply_overrides(hw_root_, r.hw_overrides);
    apply_overrides(model_root_, r.model_overrides);
    const HwProfile hw = parse_hw_profile(hw_root_);
    const ModelConfig model = parse_model_config(model_root_);
    base_ = for_vendor(load_request_strategy(r.what.baseline, model.family, "baseline"), hw.vendor);
    over_ = for_vendor(load_request_strategy(r.what.strategy, model.family, "strategy"), hw.vendor);
  }

  // The what-if with number k at values[k].
  Outcome run(const std::vector<double>& values) {
    set_numbers(numbers_, values, hw_root_, &model_root_);
    WhatIfSession session(parse_model_config(model_root_), parse_hw_profile(hw_root_),
                          r_.what.workload, &recycler_);
    // The two runs alone: a draw needs their forwards, not the what-if's breakdown of why
    // (speedup as WhatIfSession::compare computes it, to the bit).
    const double base_us = session.run(base_).stats.total_us;
    const double over_us = session.run(over_).stats.total_us;
    return {base_us, over_us, base_us / over_us};
  }

 private:
  const UncertaintyRequest& r_;
  const std::vector<UncertainNumber>& numbers_;
  yaml::Value hw_root_, model_root_;
  Strategy base_, over_;
  RunRecycler recycler_;
};

// Runs every job (a vector of values per job) on `threads` threads, job i on thread i % threads;
// results by job index.
std::vector<Outcome> run_all(const UncertaintyRequest& r, const std::vector<UncertainNumber>& nums,
                             const std::vector<std::vector<double>>& jobs) {
  std::vector<Outcome> out(jobs.size());
  const int threads = std::max(1, std::min<int>(r.threads, static_cast<int>(jobs.size())));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto work = [&](int t) {
    try {
      DrawRunner runner(r, nums);
      for (size_t i = static_cast<size_t>(t); i < jobs.size(); i += static_cast<size_t>(threads))
        out[i] = runner.run(jobs[i]);
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

void add_fields(const std::vector<SourcedField>& fields, const std::string& doc,
                const std::string& file, std::vector<UncertainNumber>& out) {
  for (const auto& f : fields) {
    if (f.list || f.spread.exact()) continue;
    // The same path read twice (never in shipped files) is drawn once.
    if (std::any_of(out.begin(), out.end(),
                    [&](const UncertainNumber& n) { return n.doc == doc && n.path == f.path; }))
      continue;
    out.push_back({doc, f.path, file, f.line, f.value, f.source, f.spread, f.legal});
  }
}

}  // namespace

std::vector<HwProfile> draw_profiles(const std::string& hw_name, int draws, std::uint64_t seed) {
  const HwProfile hw = load_hw_profile(hw_name);
  std::vector<UncertainNumber> nums;
  add_fields(hw.fields, "hw", hw.file, nums);
  const yaml::Value root =
      yaml::load_file(resolve_data_file(hw_name, "hw_profiles", "hardware profile"));
  std::vector<HwProfile> out;
  for (const auto& u : latin_hypercube(draws, nums.size(), seed)) {
    set_numbers(nums, drawn_values(nums, u), root, nullptr);
    out.push_back(parse_hw_profile(root));
  }
  return out;
}

std::vector<DrawnConfig> draw_configs(const std::string& model_name, const std::string& hw_name,
                                      int draws, std::uint64_t seed) {
  const yaml::Value hw_root =
      yaml::load_file(resolve_data_file(hw_name, "hw_profiles", "hardware profile"));
  const yaml::Value model_root =
      yaml::load_file(resolve_data_file(model_name, "models/configs", "model"));
  const std::vector<UncertainNumber> nums =
      uncertain_numbers(parse_model_config(model_root), parse_hw_profile(hw_root));
  std::vector<DrawnConfig> out;
  for (const auto& u : latin_hypercube(draws, nums.size(), seed)) {
    set_numbers(nums, drawn_values(nums, u), hw_root, &model_root);
    out.push_back({parse_model_config(model_root), parse_hw_profile(hw_root)});
  }
  return out;
}

std::vector<UncertainNumber> uncertain_numbers(const ModelConfig& model, const HwProfile& hw) {
  std::vector<UncertainNumber> out;
  add_fields(hw.fields, "hw", hw.file, out);
  add_fields(model.fields, "model", model.file, out);
  return out;
}

std::vector<std::string> unstated_numbers(const ModelConfig& model, const HwProfile& hw) {
  std::vector<std::string> out;
  for (const auto& f : hw.fields)
    if (!f.list && !f.spread.stated()) out.push_back("hw." + f.path);
  for (const auto& f : model.fields)
    if (!f.list && !f.spread.stated()) out.push_back("model." + f.path);
  return out;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = q * double(values.size() - 1);
  const auto i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= values.size()) return values.back();
  const double f = pos - double(i);
  return f == 0 ? values[i] : values[i] + f * (values[i + 1] - values[i]);
}

Band band_of(const std::vector<double>& values) {
  return {quantile(values, 0.1), quantile(values, 0.5), quantile(values, 0.9)};
}

UncertaintyResult run_uncertainty(const UncertaintyRequest& r) {
  if (r.what.strategy.empty()) throw std::logic_error("run_uncertainty: no strategy");
  if (r.draws < 1) throw InputError("", 0, "uncertainty", "needs at least 1 draw");
  const ModelConfig model = load_model_config(r.what.model, r.model_overrides);
  const HwProfile hw = load_hw_profile(r.what.hw, r.hw_overrides);
  require_kernel_params(hw);
  std::vector<UncertainNumber> nums = uncertain_numbers(model, hw);
  // A field the caller set is not drawn.
  auto set_by_caller = [&](const UncertainNumber& n) {
    for (const auto& [path, value] : n.doc == "hw" ? r.hw_overrides : r.model_overrides)
      if (path == n.path) return true;
    return false;
  };
  nums.erase(std::remove_if(nums.begin(), nums.end(), set_by_caller), nums.end());
  UncertaintyResult u;
  u.strategy = r.what.strategy;
  u.baseline = r.what.baseline;
  u.draws = r.draws;
  u.seed = r.seed;
  u.uncertain = static_cast<int>(nums.size());
  u.exact_unstated = unstated_numbers(model, hw);

  std::vector<double> nominal(nums.size());
  for (size_t k = 0; k < nums.size(); ++k) nominal[k] = nums[k].value;
  // Job 0: every number at its value; then the draws; then each number low and high.
  std::vector<std::vector<double>> jobs{nominal};
  const auto u_draws = latin_hypercube(r.draws, nums.size(), r.seed);
  for (const auto& ud : u_draws) jobs.push_back(drawn_values(nums, ud));
  // One at a time, at each number's own P10 and P90: the tornado. It answers the question a
  // user acts on - "if I measured this one number, how far could the verdict move?" - directly,
  // in the speedup's own units, with 2 runs per number; first-order (Sobol) indices would need
  // many more runs for the same ranking and say less about direction. Interactions between
  // numbers are not ranked; the joint draws above carry them into the band.
  const size_t first_tornado = jobs.size();
  if (r.sensitivity)
    for (size_t k = 0; k < nums.size(); ++k)
      for (double q : {0.1, 0.9}) {
        std::vector<double> v = nominal;
        v[k] = nums[k].spread.quantile(nums[k].value, q, nums[k].legal);
        jobs.push_back(std::move(v));
      }
  const std::vector<Outcome> out = run_all(r, nums, jobs);

  u.nominal_speedup = out[0].speedup;
  u.nominal_baseline_us = out[0].baseline_us;
  u.nominal_overlapped_us = out[0].overlapped_us;
  std::vector<double> sp, bu, ou;
  int pays = 0;
  for (size_t i = 1; i < first_tornado; ++i) {
    sp.push_back(out[i].speedup);
    bu.push_back(out[i].baseline_us);
    ou.push_back(out[i].overlapped_us);
    u.overlapped_us_draws.push_back(out[i].overlapped_us);
    pays += out[i].speedup > 1 ? 1 : 0;
  }
  u.speedup = band_of(sp);
  u.baseline_us = band_of(bu);
  u.overlapped_us = band_of(ou);
  u.p_pays = double(pays) / r.draws;
  if (r.sensitivity) {
    for (size_t k = 0; k < nums.size(); ++k) {
      const size_t j = first_tornado + 2 * k;
      SensitivityRow s;
      s.name = nums[k].name();
      s.source = nums[k].source;
      s.file = nums[k].file;
      s.line = nums[k].line;
      s.value = nums[k].value;
      s.low_value = jobs[j][k];
      s.high_value = jobs[j + 1][k];
      s.low = out[j].speedup;
      s.high = out[j + 1].speedup;
      s.how_to_measure = how_to_measure(nums[k].doc, nums[k].path);
      u.sensitivity.push_back(std::move(s));
    }
    std::stable_sort(
        u.sensitivity.begin(), u.sensitivity.end(),
        [](const SensitivityRow& a, const SensitivityRow& b) { return a.swing() > b.swing(); });
  }
  return u;
}

}  // namespace ovs
