// The plan as a terminal table, one JSON object, and a CSV of every point.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "app/plan/plan.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {

using Json = nlohmann::ordered_json;

namespace {

bool decode(const PlanResult& r) {
  return r.request.phase == Phase::decode;
}
const char* batch_unit(const PlanResult& r) {
  return decode(r) ? "requests" : "tokens";
}
const char* latency_name(const PlanResult& r) {
  return decode(r) ? "TPOT" : "TTFT";
}

Json point_json(const PlanPoint& p) {
  return Json{{"strategy", p.strategy},
              {"tokens_per_gpu", p.tokens_per_gpu},
              {"ep", p.ep},
              {"redundant_experts", p.redundant_experts},
              {"mtp", p.mtp},
              {"latency_ms", p.latency_ms},
              {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu},
              {"forward_us", p.forward_us},
              {"ttft_prompt", p.ttft_prompt > 0 ? Json(p.ttft_prompt) : Json(nullptr)},
              {"step_us", p.step_us},
              {"memory_gb", p.memory_gb},
              {"memory_limited_by", p.memory_limited_by},
              {"memory_tight", p.memory_tight},
              {"mem_fraction_static", p.mem_fraction_static},
              {"deepep_mode", p.deepep_mode},
              {"cuda_graphs", p.cuda_graphs},
              {"two_micro_batches", p.split},
              {"meets_target", p.meets_target},
              {"sglang_runs_it", p.deployable}};
}

std::string point_words(const PlanResult& r, const PlanPoint& p) {
  return fmt::format(
      "'{}', {} {} per GPU, EP {}{}{}", p.strategy, p.tokens_per_gpu, batch_unit(r), p.ep,
      p.redundant_experts > 0 ? fmt::format(" ({} redundant experts)", p.redundant_experts)
                              : std::string(),
      p.mtp ? ", MTP on" : "");
}

// " (120 kv_pool, 40 transient)": the points that do not fit, by the limit they break.
std::string no_fit_words(const PlanResult& r) {
  if (r.no_fit_by.empty()) return {};
  std::vector<std::string> parts;
  for (const auto& [limit, n] : r.no_fit_by) parts.push_back(fmt::format("{} {}", n, limit));
  return " (" + yaml::join(parts) + ")";
}

// Where the request cannot be met: the smallest GPU count that would meet it, or how far the
// search went.
std::string suggestion_words(const PlanResult& r) {
  if (r.suggestion) {
    const PlanPoint& p = r.suggestion->point;
    return fmt::format(
        "smallest deployment that fits and meets {} <= {:g} ms: {} GPUs ({} host(s) of {}), {}: "
        "{:.2f} ms, {:.0f} tokens/s per GPU (overlapsim plan --gpus {} with the same flags)\n",
        latency_name(r), r.request.target_ms, r.suggestion->gpus,
        sglang_nnodes(r.suggestion->gpus, r.request.gpus_per_host), r.request.gpus_per_host,
        point_words(r, p), p.latency_ms, p.tokens_per_s_per_gpu, r.suggestion->gpus);
  }
  if (r.suggest_limit > 0)
    return fmt::format(
        "no GPU count up to {} ({} NVLink domains of {}) fits and meets {} <= {:g} ms with these "
        "strategies and batches\n",
        r.suggest_limit, r.suggest_limit / r.request.gpus_per_node, r.request.gpus_per_node,
        latency_name(r), r.request.target_ms);
  return {};
}

void write_frontier_rows(std::ostream& out, const PlanResult& r, const std::vector<size_t>& rows) {
  if (rows.empty()) {
    out << "  (no point ran)\n";
    return;
  }
  out << fmt::format("  {:<26} {:>8} {:>4} {:>9} {:>4} {:>9} {:>13} {:>7}  {}\n", "strategy",
                     decode(r) ? "req/GPU" : "tok/GPU", "EP", "redundant", "MTP",
                     fmt::format("{} ms", latency_name(r)), "tokens/s/GPU", "HBM GB", "target");
  for (size_t i : rows) {
    const PlanPoint& p = r.points[i];
    out << fmt::format(
        "  {:<26} {:>8} {:>4} {:>9} {:>4} {:>9.2f} {:>13.0f} {:>7.1f}  {}{}{}\n", p.strategy,
        p.tokens_per_gpu, p.ep, p.redundant_experts, p.mtp ? "on" : "off", p.latency_ms,
        p.tokens_per_s_per_gpu, p.memory_gb, p.meets_target ? "meets" : "misses",
        r.best && *r.best == i ? "  <- best" : "",
        p.memory_tight ? fmt::format("  tight ({})", p.memory_limited_by) : std::string());
  }
}

}  // namespace

void write_plan_json(std::ostream& out, const PlanResult& r) {
  const PlanRequest& q = r.request;
  Json j;
  j["model"] = r.model;
  j["hardware"] = r.hw;
  j["phase"] = decode(r) ? "decode" : "prefill";
  j["gpus"] = q.gpus;
  j["gpus_per_node"] = q.gpus_per_node;
  j["gpus_per_host"] = q.gpus_per_host;
  j["target"] = Json{{"metric", decode(r) ? "tpot" : "ttft"}, {"ms", q.target_ms}};
  j[decode(r) ? "context" : "prompt_len"] =
      !decode(r) && !q.isl.empty() ? Json(nullptr) : Json(q.context);
  if (!q.context_lens.empty()) j["context_lens"] = q.context_lens;
  if (!q.isl.empty()) j["isl"] = q.isl;
  if (!q.osl.empty()) j["osl"] = q.osl;
  if (!q.context_lens.empty() || !q.isl.empty()) j["seed"] = q.seed;
  j["mtp_acceptance"] = r.mtp_acceptance > 0 ? Json(r.mtp_acceptance) : Json(nullptr);
  j["strategies"] = r.strategies;
  j["tokens_per_gpu"] = r.tokens;
  j["ep"] = r.eps;
  j["counts"] = Json{{"points", r.points.size()},
                     {"simulated", r.simulated},
                     {"excluded_no_fit", r.no_fit},
                     {"excluded_no_fit_by", r.no_fit_by},
                     {"excluded_sglang_limit", r.sglang_limit},
                     {"invalid", r.invalid}};
  Json frontier = Json::array();
  for (size_t i : r.frontier) frontier.push_back(point_json(r.points[i]));
  j["frontier"] = frontier;
  Json sglang = Json::array(), beyond = Json::array();
  for (size_t i : r.sglang_frontier) sglang.push_back(point_json(r.points[i]));
  for (size_t i : r.beyond_sglang) beyond.push_back(point_json(r.points[i]));
  j["sglang_frontier"] = sglang;
  j["beyond_sglang"] = beyond;
  Json by = Json::object();
  for (const auto& [name, idx] : r.frontier_by_strategy) {
    Json a = Json::array();
    for (size_t i : idx) a.push_back(point_json(r.points[i]));
    by[name] = a;
  }
  j["frontier_by_strategy"] = by;
  if (r.best) {
    Json b = point_json(r.points[*r.best]);
    b["sglang_flags"] = r.launch.flags;
    b["sglang_env"] = r.launch.env;
    b["sglang_notes"] = r.launch.notes;
    if (r.best_met_share >= 0) {
      b["uncertainty_draws"] = q.uncertainty;
      b["target_met_share"] = r.best_met_share;
      b["latency_ms_p10"] = r.best_latency_p10_ms;
      b["latency_ms_p90"] = r.best_latency_p90_ms;
      b["robust"] = r.best_met_share >= PlanResult::kRobustShare;
    }
    j["best"] = b;
  } else {
    j["best"] = nullptr;
  }
  j["best_not_in_sglang"] = r.best_any ? point_json(r.points[*r.best_any]) : Json(nullptr);
  j["fastest"] = r.fastest ? point_json(r.points[*r.fastest]) : Json(nullptr);
  if (r.suggestion) {
    Json s = point_json(r.suggestion->point);
    s["gpus"] = r.suggestion->gpus;
    j["smallest_gpus_that_meet_target"] = s;
  } else {
    j["smallest_gpus_that_meet_target"] = nullptr;
  }
  j["notes"] = r.notes;
  out << j.dump(2) << "\n";
}

void write_plan_table(std::ostream& out, const PlanResult& r) {
  const PlanRequest& q = r.request;
  std::string lengths = fmt::format("{} {}", decode(r) ? "context" : "prompt length", q.context);
  if (!q.context_lens.empty())
    lengths = fmt::format("KV lengths {} (seed {})", q.context_lens, q.seed);
  else if (!q.isl.empty() && !decode(r))
    lengths = fmt::format("prompts drawn from {} for each batch, TTFT of the longest (seed {})",
                          q.isl, q.seed);
  else if (!q.isl.empty())
    lengths = fmt::format("KV lengths over the requests' lives, input {}{} (seed {})", q.isl,
                          q.osl.empty() ? "" : ", output " + q.osl, q.seed);
  out << fmt::format(
      "plan: {} {} on {} x {} ({} per NVLink domain, {} per host), {} target {:g} "
      "ms, {}\n",
      r.model, decode(r) ? "decode" : "prefill", q.gpus, r.hw, q.gpus_per_node, q.gpus_per_host,
      latency_name(r), q.target_ms, lengths);
  std::vector<std::string> eps, toks;
  for (int e : r.eps) eps.push_back(std::to_string(e));
  for (long long t : r.tokens) toks.push_back(std::to_string(t));
  out << fmt::format(
      "searched: {} {} per GPU ({}) x EP {} x MTP {} x {} strategies = {} points: {} simulated, "
      "{} do not fit in HBM{}, {} outside SGLang's limits, {} invalid ({:.1f} s)\n",
      r.tokens.size(), batch_unit(r), yaml::join(toks), yaml::join(eps),
      r.mtp_acceptance > 0 ? (q.mtp == "on" ? "on" : "off/on") : "off", r.strategies.size(),
      r.points.size(), r.simulated, r.no_fit, no_fit_words(r), r.sglang_limit, r.invalid,
      r.seconds);
  out << fmt::format(
      "\nPareto frontier of the strategies SGLang ships: tokens/s per GPU against {} (dominated "
      "points left out)\n",
      latency_name(r));
  write_frontier_rows(out, r, r.sglang_frontier);
  if (!r.beyond_sglang.empty()) {
    out << "\nnot shipped by SGLang (what these strategies would do; SGLang does not run them), "
           "where they beat the frontier above:\n";
    write_frontier_rows(out, r, r.beyond_sglang);
  }
  out << "\n";
  if (r.best) {
    const PlanPoint& b = r.points[*r.best];
    out << fmt::format(
        "best within {:g} ms: {}: {} {:.2f} ms, {:.0f} tokens/s per GPU ({:.0f} on {} GPUs), "
        "{:.1f} GB per GPU (--mem-fraction-static {:.3f}; nearest memory limit {}{})\n",
        q.target_ms, point_words(r, b), latency_name(r), b.latency_ms, b.tokens_per_s_per_gpu,
        b.tokens_per_s_per_gpu * q.gpus, q.gpus, b.memory_gb, b.mem_fraction_static,
        b.memory_limited_by, b.memory_tight ? ", tight" : "");
    if (r.best_met_share >= 0)
      out << fmt::format(
          "  over {} draws of the uncertain numbers: {} P10 {:.2f} .. P90 {:.2f} ms, target met "
          "in {:.0f} % of them{}\n",
          q.uncertainty, latency_name(r), r.best_latency_p10_ms, r.best_latency_p90_ms,
          r.best_met_share * 100,
          r.best_met_share < PlanResult::kRobustShare
              ? fmt::format(" - NOT ROBUST (< {:.0f} %): leave headroom or pin down the numbers "
                            "`whatif --uncertainty` ranks",
                            PlanResult::kRobustShare * 100)
              : "");
    out << "\nSGLang launch flags (each instance):\n  python -m sglang.launch_server";
    for (const auto& f : r.launch.flags) out << " \\\n    " << f;
    out << "\n";
    if (!r.launch.env.empty()) {
      out << "environment:\n";
      for (const auto& e : r.launch.env) out << "  " << e << "\n";
    }
    out << "about these flags:\n";
    for (const auto& n : r.launch.notes) out << "  - " << n << "\n";
  } else if (r.fastest) {
    const PlanPoint& f = r.points[*r.fastest];
    out << fmt::format(
        "no point SGLang can run meets {} <= {:g} ms; the fastest is {}: {:.2f} ms\n",
        latency_name(r), q.target_ms, point_words(r, f), f.latency_ms);
  } else {
    out << "no point could run (see the counts above)\n";
  }
  if (!r.best) out << suggestion_words(r);
  if (r.best_any) {
    const PlanPoint& a = r.points[*r.best_any];
    out << fmt::format(
        "\na strategy SGLang does not run would do better within the target: {}: {:.0f} "
        "tokens/s per GPU at {:.2f} ms\n",
        point_words(r, a), a.tokens_per_s_per_gpu, a.latency_ms);
  }
  out << "\nassumptions:\n";
  for (const auto& n : r.notes) out << "  - " << n << "\n";
}

std::string plan_csv(const PlanResult& r) {
  std::string s =
      "strategy,tokens_per_gpu,ep,redundant_experts,mtp,deepep_mode,cuda_graphs,"
      "two_micro_batches,forward_us,step_us,latency_ms,tokens_per_s_per_gpu,memory_gb,fits,"
      "memory_limited_by,memory_tight,meets_target,on_frontier,sglang_runs_it,excluded,"
      "ttft_prompt\n";
  for (const auto& p : r.points) {
    const bool ran = p.excluded.empty();
    // Shortest text that reads back as the same double: the CSV agrees with the JSON exactly.
    auto num = [&](double v) { return ran ? fmt::format("{}", v) : std::string(); };
    s += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(p.strategy),
        p.tokens_per_gpu, p.ep, p.redundant_experts, p.mtp ? 1 : 0, p.deepep_mode,
        p.cuda_graphs ? 1 : 0, p.split ? 1 : 0, num(p.forward_us), num(p.step_us),
        num(p.latency_ms), num(p.tokens_per_s_per_gpu),
        p.memory_gb > 0 ? fmt::format("{}", p.memory_gb) : std::string(), p.fits ? 1 : 0,
        p.memory_limited_by, p.memory_tight ? 1 : 0, p.meets_target ? 1 : 0, p.on_frontier ? 1 : 0,
        p.deployable ? 1 : 0, csv_field(p.excluded),
        p.ttft_prompt > 0 ? std::to_string(p.ttft_prompt) : std::string());
  }
  return s;
}

}  // namespace ovs
