// run_plan: every candidate through the what-if (one session per workload, so each strategy is
// simulated once per point), then the frontier and the best point within the target.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "app/analysis/length_spec.hpp"
#include "app/analysis/uncertainty.hpp"
#include "app/analysis/whatif.hpp"
#include "app/plan/plan.hpp"
#include "app/plan/sglang_flags.hpp"
#include "app/strategy/sglang_gate.hpp"
#include "app/sweep/threads.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

// The strategies to compare: the ones asked for, else every shipped one of the family that
// SGLang's flags do not reserve for the other phase.
std::vector<Strategy> candidate_strategies(const PlanRequest& r, const ModelConfig& m,
                                           std::vector<std::string>& notes) {
  std::vector<Strategy> out;
  if (!r.strategies.empty()) {
    for (const auto& name : r.strategies) {
      Strategy s = load_strategy(name, m.family);
      for (const auto& o : out)
        if (o.name == s.name)
          throw flag_error("--strategies", "strategy '" + s.name + "' given twice");
      out.push_back(std::move(s));
    }
    return out;
  }
  const std::string dir =
      m.family == ModelFamily::v4 ? "strategies/deepseek-v4" : "strategies/deepseek-v3";
  std::vector<std::string> skipped;
  std::vector<Strategy> all;
  std::set<std::string> vendor_plans;  // another strategy's plan for some vendor: not listed twice
  for (const auto& name : shipped_names(dir)) {
    all.push_back(load_strategy(name, m.family));
    for (const auto& [vendor, plan] : all.back().vendor_plans) vendor_plans.insert(plan.first);
  }
  for (auto& s : all) {
    if (vendor_plans.count(s.name)) continue;
    if (s.sglang.given && !s.sglang.for_phase(phase_name(r.phase))) {
      skipped.push_back(s.name);
      continue;
    }
    out.push_back(std::move(s));
  }
  if (!skipped.empty())
    notes.push_back(
        fmt::format("not compared (SGLang runs them for {} batches only; name them "
                    "with --strategies to include them): {}",
                    r.phase == Phase::decode ? "prefill" : "decode", yaml::join(skipped)));
  return out;
}

struct Cell {  // one workload of the grid: every strategy runs on it
  long long tokens;
  int ep;
  int redundant;
  bool mtp;
};

class PointRunner;

}  // namespace

std::vector<std::int64_t> plan_context_lens(const PlanRequest& r, long long requests) {
  auto fail = [](const char* flag) {
    return [flag](const std::string& message) { throw flag_error(flag, message); };
  };
  if (!r.context_lens.empty())
    return draw_lengths(parse_length_spec(r.context_lens, true, fail("--context-lens")), requests,
                        r.seed);
  if (r.isl.empty()) {
    if (!r.osl.empty()) throw flag_error("--osl", "give the input lengths too (--isl)");
    return {};
  }
  const LengthSpec isl = parse_length_spec(r.isl, false, fail("--isl"));
  std::optional<LengthSpec> osl;
  if (!r.osl.empty()) osl = parse_length_spec(r.osl, false, fail("--osl"));
  return contexts_over_life(isl, osl ? &*osl : nullptr, requests, r.seed);
}

std::vector<std::int64_t> plan_prompt_lens(const PlanRequest& r, long long tokens,
                                           std::int64_t* longest_drawn) {
  const LengthSpec isl = parse_length_spec(
      r.isl, false, [](const std::string& message) { throw flag_error("--isl", message); });
  return fill_tokens(isl, tokens, r.seed, longest_drawn);
}

namespace {

// A cell's workload as the plan asks for it, and (prefill) the prompt its TTFT is of.
Workload cell_workload(const PlanRequest& r, const Cell& c, std::int64_t& ttft_prompt) {
  Workload w;
  w.phase = r.phase;
  w.tokens_per_gpu = c.tokens;
  w.context = r.context;
  w.ep = c.ep;
  w.gpus_per_node = r.gpus_per_node;
  w.imbalance = r.imbalance;
  w.placement = r.placement == "balanced" ? ExpertPlacement::balanced : ExpertPlacement::eplb;
  w.v4_kernels = parse_v4_kernels(r.v4_kernels).value_or(V4Kernels::fused);  // flag-checked
  w.decode_q_len = c.mtp ? 2 : 1;
  w.redundant_experts = c.redundant;
  // The prompt the TTFT is of (prefill): the target's, or the longest drawn for this batch.
  ttft_prompt = r.context;
  if (r.phase == Phase::decode) {
    w.context_lens = plan_context_lens(r, c.tokens);
    if (!w.context_lens.empty())
      w.context = *std::max_element(w.context_lens.begin(), w.context_lens.end());
  } else if (!r.isl.empty()) {
    w.prompt_lens = plan_prompt_lens(r, c.tokens, &ttft_prompt);
    w.context = *std::max_element(w.prompt_lens.begin(), w.prompt_lens.end());
    // A prompt longer than the batch: SGLang prefills it in chunks that fill whole batches, and
    // its TTFT is theirs - each charged as its last (attending to the cached prefix), and the
    // server chunking, as for --prompt-len (memory and flags see the same server).
    if (ttft_prompt > c.tokens) {
      w.prompt_lens.clear();
      w.context = ttft_prompt;
    }
  }
  apply_memory_words(r.memory, RequestSource{}, w);
  return resolve_workload(w, RequestSource{});
}

class PointRunner {
 public:
  PointRunner(const PlanRequest& r, const ModelConfig& m, const HwProfile& hw,
              const std::vector<Strategy>& strategies, double acceptance)
      : r_(r), m_(m), hw_(hw), strategies_(strategies), acceptance_(acceptance) {}

  std::vector<PlanPoint> run(const Cell& c, std::vector<std::string>& errors) const {
    std::int64_t ttft_prompt = 0;
    WhatIfSession session(m_, hw_, cell_workload(r_, c, ttft_prompt));
    std::vector<PlanPoint> out;
    for (const auto& s : strategies_) {
      PlanPoint p;
      p.strategy = s.name;
      p.tokens_per_gpu = c.tokens;
      p.ep = c.ep;
      p.redundant_experts = c.redundant;
      p.mtp = c.mtp;
      p.deployable =
          s.sglang.given && s.sglang.runs_in_sglang() && s.sglang.for_phase(phase_name(r_.phase));
      try {
        evaluate(session, s, p, ttft_prompt);
        errors.emplace_back();
      } catch (const InputError& e) {
        p.excluded = e.what();
        p.exclusion = "invalid";
        errors.push_back(e.what());
      }
      out.push_back(std::move(p));
    }
    return out;
  }

 private:
  void evaluate(WhatIfSession& session, const Strategy& s, PlanPoint& p,
                std::int64_t ttft_prompt) const {
    const Workload w = session.workload_for(s);
    p.deepep_mode = w.mode() == DeepepMode::normal ? "normal" : "low_latency";
    p.cuda_graphs = w.graphs();
    const int physical = w.physical_experts(m_.routed_experts);
    if (physical % w.ep != 0) {
      p.excluded = fmt::format("EP {} does not divide {} routed + {} redundant experts", w.ep,
                               m_.routed_experts, w.redundant_experts);
      p.exclusion = "invalid";
      return;
    }
    if (const std::string why = sglang_limit(s, w, hw_); !why.empty()) {
      p.excluded = why;
      p.exclusion = "sglang-limit";
      return;
    }
    // Memory first: a point that does not fit is not simulated.
    const bool split = s.two_batch_overlap && split_batch(w, nullptr).has_value();
    const MemoryUse mem = memory_per_gpu(m_, hw_, w, split);
    p.memory_gb = mem.total_bytes / units::kBytesPerGB;
    p.fits = mem.fits();
    p.memory_limited_by = memory_limit_name(mem.limited_by);
    p.memory_tight = mem.tight;
    p.mem_fraction_static = mem.fraction;
    if (!p.fits) {
      p.excluded =
          fmt::format("does not fit in HBM ({}): {}", p.memory_limited_by, mem.limit_sentence());
      p.exclusion = "no-fit";
      return;
    }
    const ProgramStats& st = session.run(s).stats;
    p.split = st.split;
    p.forward_us = st.total_us;
    if (r_.phase == Phase::decode) {
      // MTP: the draft module runs once a step, charged as one more MoE layer of this batch;
      // each request gains 1 + acceptance tokens a step.
      p.step_us = st.total_us + (p.mtp ? st.per_layer_us : 0.0);
      const double tokens_per_step = p.mtp ? 1 + acceptance_ : 1.0;
      p.latency_ms = p.step_us / tokens_per_step / 1000;
      p.tokens_per_s_per_gpu = double(p.tokens_per_gpu) * tokens_per_step / (p.step_us * 1e-6);
    } else {
      p.ttft_prompt = ttft_prompt;
      // A prompt longer than the batch is prefilled in chunks, each charged as this forward.
      const long long chunks = p.tokens_per_gpu >= ttft_prompt
                                   ? 1
                                   : (ttft_prompt + p.tokens_per_gpu - 1) / p.tokens_per_gpu;
      p.step_us = st.total_us * double(chunks);
      p.latency_ms = p.step_us / 1000;
      p.tokens_per_s_per_gpu = double(p.tokens_per_gpu) / (st.total_us * 1e-6);
    }
  }

  const PlanRequest& r_;
  const ModelConfig& m_;
  const HwProfile& hw_;
  const std::vector<Strategy>& strategies_;
  double acceptance_;
};

std::vector<bool> mtp_modes(const PlanRequest& r, const ModelConfig& m, double& acceptance,
                            std::string& source) {
  acceptance = r.mtp_acceptance.value_or(m.mtp_acceptance_rate);
  source =
      r.mtp_acceptance ? "--mtp-acceptance" : "model config " + m.name + ", mtp.acceptance_rate";
  if (r.phase == Phase::prefill) {
    if (r.mtp == "on")
      throw flag_error("--mtp", "MTP is a decode feature; prefill has no MTP to turn on");
    acceptance = 0;
    return {false};
  }
  if (r.mtp == "off") {
    acceptance = 0;
    return {false};
  }
  if (acceptance <= 0) {
    if (r.mtp == "on")
      throw flag_error("--mtp",
                       "MTP needs an acceptance rate: the model config has no "
                       "mtp.acceptance_rate; pass --mtp-acceptance R");
    return {false};
  }
  if (r.mtp == "on") return {true};
  return {false, true};
}

// The smallest larger GPU count (one EP group of that size, with the strategies, batches,
// redundant experts and MTP of the request) whose plan has a best point SGLang runs; tried up to
// 8 NVLink domains (64 HGX GPUs, 576 GB200s), so an impossible target stays quick.
void suggest_gpus(const PlanRequest& req, PlanResult& res) {
  if (!req.eps.empty()) return;  // the EP sizes were asked for: the user chose the grid
  res.suggest_limit = 8 * req.gpus_per_node;
  for (int ep : larger_eps(req.gpus, req.gpus_per_node, req.gpus_per_host, res.suggest_limit)) {
    PlanRequest sub = req;
    sub.gpus = ep;
    sub.eps = {ep};
    sub.suggest_gpus = false;
    const PlanResult r = run_plan(sub);
    if (r.best) {
      res.suggestion = PlanResult::Suggestion{ep, r.points[*r.best]};
      return;
    }
  }
}

}  // namespace

PlanResult run_plan(const PlanRequest& asked) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanResult res;
  const ModelConfig model = load_model_config(asked.model);
  const HwProfile hw = load_hw_profile(asked.hw);
  require_kernel_params(hw);
  // Not given: the profile's NVLink domain (8 on HGX boards, 72 in a GB200 NVL72 rack).
  PlanRequest req = asked;
  req.gpus_per_node = gpus_per_node_or_domain(hw, asked.gpus_per_node);
  // Hosts: the profile's, unless that does not tile a smaller domain given by --gpus-per-node
  // (then the hosts are as large as the domain allows: their common divisor).
  if (req.gpus_per_host == 0)
    req.gpus_per_host =
        hw.gpus_per_host > 0 ? std::gcd(hw.gpus_per_host, req.gpus_per_node) : req.gpus_per_node;
  if (req.gpus_per_node % req.gpus_per_host != 0)
    throw flag_error("--gpus-per-host",
                     fmt::format("{} GPUs per host do not tile the {}-GPU NVLink domain "
                                 "(--gpus-per-node)",
                                 req.gpus_per_host, req.gpus_per_node));
  res.request = req;
  res.model = model.name;
  res.hw = hw.name;
  res.arch = hw.arch;
  res.family = model.family == ModelFamily::v4 ? "deepseek-v4" : "deepseek-v3";
  res.hbm_capacity_gb = hw.hbm_capacity_gb;
  if (req.gpus % req.gpus_per_node != 0 && req.gpus > req.gpus_per_node)
    throw flag_error("--gpus", fmt::format("{} GPUs are not whole nodes of {} (--gpus-per-node)",
                                           req.gpus, req.gpus_per_node));
  if (req.gpus % req.gpus_per_host != 0 && req.gpus > req.gpus_per_host)
    throw flag_error("--gpus", fmt::format("{} GPUs are not whole hosts of {} (--gpus-per-host)",
                                           req.gpus, req.gpus_per_host));
  std::vector<Strategy> strategies = candidate_strategies(req, model, res.notes);
  for (auto& s : strategies) s = for_vendor(s, hw.vendor);  // the plan this GPU's vendor runs
  for (const auto& s : strategies) res.strategies.push_back(s.name);
  res.tokens = req.tokens.empty() ? default_plan_tokens(req.phase) : req.tokens;
  std::sort(res.tokens.begin(), res.tokens.end());
  res.tokens.erase(std::unique(res.tokens.begin(), res.tokens.end()), res.tokens.end());
  res.eps = req.eps.empty() ? plan_eps(req.gpus, req.gpus_per_node, req.gpus_per_host) : req.eps;
  std::sort(res.eps.begin(), res.eps.end());
  res.eps.erase(std::unique(res.eps.begin(), res.eps.end()), res.eps.end());
  for (int ep : res.eps)
    if (req.gpus % ep != 0)
      throw flag_error("--ep",
                       fmt::format("EP {} does not divide the {} GPUs (--gpus)", ep, req.gpus));
  const std::vector<bool> mtps = mtp_modes(req, model, res.mtp_acceptance, res.mtp_source);

  std::vector<Cell> cells;
  for (int ep : res.eps) {
    std::vector<int> reds = req.redundant;
    if (reds.empty()) reds = {min_redundant_experts(model.routed_experts, ep)};
    for (int red : reds)
      for (bool mtp : mtps)
        for (long long t : res.tokens) cells.push_back({t, ep, red, mtp});
  }

  // Cells in parallel; each writes its own slot, so the result does not depend on -j.
  const PointRunner runner(req, model, hw, strategies, res.mtp_acceptance);
  std::vector<std::vector<PlanPoint>> slots(cells.size());
  std::vector<std::vector<std::string>> errors(cells.size());
  std::vector<std::exception_ptr> failures(cells.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < cells.size(); i = next++) {
      try {
        slots[i] = runner.run(cells[i], errors[i]);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < resolve_jobs(req.jobs); ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  for (auto& s : slots)
    for (auto& p : s) res.points.push_back(std::move(p));

  // A strategy no point could run is bad input, not a finding: its first error.
  for (size_t k = 0; k < strategies.size(); ++k) {
    bool any_ok = false;
    std::string first;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (errors[i][k].empty()) any_ok = true;
      if (first.empty()) first = errors[i][k];
    }
    if (!any_ok && !first.empty())
      throw flag_error("--strategies", "'" + strategies[k].name + "': " + first);
  }

  std::vector<size_t> ran;
  for (size_t i = 0; i < res.points.size(); ++i) {
    PlanPoint& p = res.points[i];
    if (p.exclusion == "no-fit") {
      ++res.no_fit;
      ++res.no_fit_by[p.memory_limited_by];
    }
    if (p.exclusion == "sglang-limit") ++res.sglang_limit;
    if (p.exclusion == "invalid") ++res.invalid;
    if (!p.excluded.empty()) continue;
    ++res.simulated;
    p.meets_target = p.latency_ms <= req.target_ms;
    ran.push_back(i);
  }
  auto frontier_of = [&](const std::vector<size_t>& idx) {
    std::vector<std::pair<double, double>> lt;
    for (size_t i : idx)
      lt.emplace_back(res.points[i].latency_ms, res.points[i].tokens_per_s_per_gpu);
    std::vector<size_t> out;
    for (size_t k : pareto_frontier(lt)) out.push_back(idx[k]);
    return out;
  };
  res.frontier = frontier_of(ran);
  for (size_t i : res.frontier) res.points[i].on_frontier = true;
  // The table: SGLang's frontier (the best point SGLang runs is on it: a point that dominated it
  // would run in SGLang, meet the target and be chosen instead), then the others' points that
  // beat it.
  std::vector<size_t> deployable;
  for (size_t i : ran)
    if (res.points[i].deployable) deployable.push_back(i);
  res.sglang_frontier = frontier_of(deployable);
  for (size_t i : res.frontier)
    if (!res.points[i].deployable) res.beyond_sglang.push_back(i);
  for (const auto& s : strategies) {
    std::vector<size_t> idx;
    for (size_t i : ran)
      if (res.points[i].strategy == s.name) idx.push_back(i);
    res.frontier_by_strategy.emplace_back(s.name, frontier_of(idx));
  }
  // Best within the target: most tokens/s per GPU, then the lower latency, then grid order.
  auto better = [&](size_t a, size_t b) {
    const PlanPoint &pa = res.points[a], &pb = res.points[b];
    if (pa.tokens_per_s_per_gpu != pb.tokens_per_s_per_gpu)
      return pa.tokens_per_s_per_gpu > pb.tokens_per_s_per_gpu;
    if (pa.latency_ms != pb.latency_ms) return pa.latency_ms < pb.latency_ms;
    return a < b;
  };
  for (size_t i : ran) {
    const PlanPoint& p = res.points[i];
    if (!p.meets_target) continue;
    if (p.deployable && (!res.best || better(i, *res.best))) res.best = i;
    if (!res.best_any || better(i, *res.best_any)) res.best_any = i;
  }
  if (res.best_any && res.best && *res.best_any == *res.best) res.best_any.reset();
  if (res.best) {
    const PlanPoint& b = res.points[*res.best];
    for (const auto& s : strategies)
      if (s.name == b.strategy) res.launch = sglang_launch(b, s, model, hw, req);
  }
  if (res.best && req.uncertainty > 0) {
    // The best point drawn within the files' spreads: does it meet the target whatever the
    // uncertain numbers are? Its latency in a draw is the point's scaled by the draw's forward
    // over the point's (exact without MTP; with MTP the draft layer scales with it).
    const PlanPoint& b = res.points[*res.best];
    std::int64_t ttft_prompt = 0;
    UncertaintyRequest u;
    u.what.model = req.model;
    u.what.hw = req.hw;
    u.what.workload =
        cell_workload(req, {b.tokens_per_gpu, b.ep, b.redundant_experts, b.mtp}, ttft_prompt);
    u.what.strategy = b.strategy;
    u.draws = req.uncertainty;
    u.threads = resolve_jobs(req.jobs);
    u.sensitivity = false;
    const UncertaintyResult ur = run_uncertainty(u);
    std::vector<double> latency_ms;
    int met = 0;
    for (double us : ur.overlapped_us_draws) {
      latency_ms.push_back(b.latency_ms * us / b.forward_us);
      met += latency_ms.back() <= req.target_ms ? 1 : 0;
    }
    res.best_met_share = double(met) / double(latency_ms.size());
    const Band band = band_of(latency_ms);
    res.best_latency_p10_ms = band.p10;
    res.best_latency_p90_ms = band.p90;
  }
  if (!res.best)
    for (size_t i : ran)
      if (!res.fastest || res.points[i].latency_ms < res.points[*res.fastest].latency_ms)
        res.fastest = i;
  if (!res.best && req.suggest_gpus) suggest_gpus(req, res);

  if (req.phase == Phase::decode)
    res.notes.push_back(
        "latency = time per output token: one decode step (every layer, CUDA graphs as the "
        "what-if runs them) over the tokens a request gains per step; queueing, scheduling and "
        "sampling are not modelled");
  else if (!req.isl.empty())
    res.notes.push_back(fmt::format(
        "latency = time to first token of the longest prompt drawn from {} for each point's batch "
        "(prompts drawn until they hold its tokens, the last cut to fit; seed {}): one forward "
        "when the batch holds it, else ceil(its length / tokens per GPU) chunked forwards, each "
        "charged as its last chunk (which attends to the whole prompt), as for --prompt-len; "
        "queueing is not modelled",
        req.isl, req.seed));
  else
    res.notes.push_back(fmt::format(
        "latency = time to first token of a {}-token prompt: one forward when the batch holds "
        "the prompt, else ceil({} / tokens per GPU) chunked forwards, each charged as the last "
        "chunk (which attends to the whole prompt); queueing is not modelled",
        req.context, req.context));
  if (res.mtp_acceptance > 0)
    res.notes.push_back(fmt::format(
        "MTP: a step verifies 2 tokens per request and runs the draft module, charged as one "
        "more MoE layer of the same batch; a request gains 1 + {:g} tokens a step ({}); the MTP "
        "module's weights are not in the memory model",
        res.mtp_acceptance, res.mtp_source));
  else if (req.phase == Phase::decode && req.mtp != "off")
    res.notes.push_back(
        "MTP not searched: the model config gives no mtp.acceptance_rate (pass "
        "--mtp-acceptance R to search it)");
  res.notes.push_back(fmt::format(
      "redundant experts: {} per EP size; they add experts (memory) per GPU and spread the "
      "hottest rank's load ({})",
      req.redundant.empty() ? "the fewest that let EP divide the experts" : "as given",
      req.imbalance > 0
          ? fmt::format("held at --imbalance {:g} for every point", req.imbalance)
          : fmt::format("from the routing statistics per point, {} placement", req.placement)));
  res.notes.push_back(fmt::format(
      "memory as SGLang holds it: the weights and the KV pool in --mem-fraction-static x the "
      "GPU's {:.1f} GB ({}), fixed overheads and the hottest rank's transients in the rest; a "
      "point that does not fit is not simulated, one within 5 % of a limit is marked tight",
      device_capacity_bytes(hw) / units::kBytesPerGB,
      req.memory.mem_fraction_static == "auto"
          ? "the fraction SGLang's own default gives each point's launch"
          : "--mem-fraction-static " + req.memory.mem_fraction_static));
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace ovs
