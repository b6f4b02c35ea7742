#include "models/cost/rank_spread.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "models/config/model_config.hpp"
#include "models/graph/workload.hpp"
#include "models/hw/spread.hpp"

namespace ovs {

const char* placement_name(ExpertPlacement p) {
  return p == ExpertPlacement::balanced ? "balanced" : "eplb";
}

namespace {

// E[max] = integral of x n phi(x) Phi(x)^(n-1) dx, Simpson's rule on [-10, 10]: the integrand
// is below 1e-20 outside for any n up to 10^6.
double integrate_max_normal(int n) {
  constexpr int kSteps = 4000;  // even
  constexpr double lo = -10.0, hi = 10.0;
  const double h = (hi - lo) / kSteps;
  const double inv_sqrt_2pi = 1.0 / std::sqrt(2.0 * M_PI);
  auto f = [&](double x) {
    const double phi = inv_sqrt_2pi * std::exp(-0.5 * x * x);
    const double cdf = normal_cdf(x);
    if (cdf <= 0) return 0.0;
    return x * n * phi * std::exp((n - 1) * std::log(cdf));
  };
  double sum = f(lo) + f(hi);
  for (int i = 1; i < kSteps; ++i) sum += f(lo + i * h) * (i % 2 == 1 ? 4.0 : 2.0);
  return sum * h / 3.0;
}

}  // namespace

double expected_max_std_normal(int n) {
  if (n <= 1) return 0.0;
  thread_local std::map<int, double> memo;
  auto it = memo.find(n);
  if (it != memo.end()) return it->second;
  const double z = integrate_max_normal(n);
  memo.emplace(n, z);
  return z;
}

RankLoad rank_load(const RankLoadSpec& s) {
  RankLoad r;
  const int ep = std::max(1, s.ep);
  r.z = expected_max_std_normal(ep);
  const double rows = s.tokens * std::max(1, s.topk);
  if (ep > 1 && rows > 0) r.sampling_cv = std::sqrt((1.0 - 1.0 / ep) / rows);
  if (ep > 1 && s.placement == ExpertPlacement::eplb)
    r.placement_cv = s.expert_load_cv / std::sqrt(double(std::max(1, s.experts_per_rank)));
  if (ep > 1 && s.placement == ExpertPlacement::eplb && s.sequences > 0)
    r.locality_cv = s.sequence_expert_cv *
                    std::sqrt((1.0 - 1.0 / ep) / (std::max(1, s.experts_per_rank) * s.sequences));
  r.cv = std::sqrt(r.sampling_cv * r.sampling_cv + r.placement_cv * r.placement_cv +
                   r.locality_cv * r.locality_cv);
  r.hot_over_mean = 1.0 + r.z * r.cv;
  return r;
}

double effective_sequences(const Workload& w, const MicroBatch& mb) {
  double sum = 0, sum_sq = 0;
  for (const Segment& g : mb.segments) {
    sum += double(g.q_len) * g.count;
    sum_sq += double(g.q_len) * g.q_len * g.count;
  }
  if (sum_sq <= 0) return 0;
  return sum * sum / sum_sq * (w.dp_attention ? std::max(1, w.ep) : 1);
}

double hot_rank_load_ratio(const ModelConfig& m, const Workload& w, const MicroBatch& mb) {
  if (w.imbalance > 0) return w.imbalance;
  RankLoadSpec s;
  s.ep = w.ep;
  s.tokens = double(mb.tokens);
  s.sequences = effective_sequences(w, mb);
  s.sequence_expert_cv = m.sequence_expert_cv;
  s.topk = m.topk;
  s.experts_per_rank = std::max(1, w.physical_experts(m.routed_experts) / std::max(1, w.ep));
  s.expert_load_cv = m.expert_load_cv;
  s.placement = w.placement;
  return rank_load(s).hot_over_mean;
}

double hot_rank_load_ratio(const ModelConfig& m, const Workload& w) {
  return hot_rank_load_ratio(m, w, whole_batch(w));
}

double slowest_rank_lateness_us(int ep, double rank_time_cv, double work_us) {
  return expected_max_std_normal(ep) * rank_time_cv * std::max(0.0, work_us);
}

}  // namespace ovs
