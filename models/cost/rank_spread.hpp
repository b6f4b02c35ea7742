#pragma once
// Many ranks, not one: how the expert load spreads over the EP ranks of one exchange, and how
// late the slowest rank arrives at it. Every DeepEP exchange ends on all ranks when the last one
// has taken part, so a layer runs at the pace of its hottest and latest rank.
//
// Load per rank (rows received for the rank's physical experts, one per token and expert):
//   mean   = tokens x top-k (every rank sends its tokens' top-k rows, the ranks share them),
//   spread = two independent parts, as a coefficient of variation (cv) of a rank's load:
//     sampling:  which experts a batch's tokens pick is random even when every expert is equally
//                popular: rows landing on one of `ep` ranks are binomial, cv = sqrt((1 - 1/ep) /
//                (tokens x top-k));
//     placement: how evenly the placement spreads the experts' popularity. `balanced` (a perfect
//                EPLB, as SGLang's simulated-perfect runs) leaves none; `eplb` (SGLang's expert
//                placement from load statistics, with its redundant copies) leaves the spread
//                of one physical expert's load (the model config's moe.expert_load_cv) over the
//                rank's experts: cv = expert_load_cv / sqrt(physical experts per rank).
//     locality:  the tokens of one sequence do not pick experts independently: a document
//                favours some experts over its whole length (the model config's
//                moe.sequence_expert_cv: the spread of an expert's share of one sequence's rows
//                across sequences). A rank's load then moves with the few sequences of the batch,
//                not with its many tokens: cv = sequence_expert_cv x sqrt((1 - 1/ep) /
//                (physical experts per rank x N)), N = (sum of lengths)^2 / sum of squared
//                lengths over the sequences of every EP rank's batch (N = the count of sequences
//                when they are equally long). A prefill batch of a few long prompts per rank is
//                far more uneven than a decode batch of thousands of one-token requests.
//                A perfectly balanced placement (SGLang's simulated-perfect runs rewrite the
//                routing) leaves none.
//   hottest = mean x (1 + z(ep) x cv), z(n) the expected largest of n standard normals.
//
// The wait at an exchange (the barrier): the ranks ran the same work since the previous exchange,
// each at its own pace (the hardware profile's rank_time_cv_*: GPU clocks, host jitter), and the
// exchange moves only when the last has arrived: z(n) x cv x (that work's time) after the mean
// rank, which the simulation follows, plus what the hottest rank's extra rows cost it.
#include <cstdint>

namespace ovs {

struct ModelConfig;
struct Workload;
struct MicroBatch;

enum class ExpertPlacement { eplb, balanced };
const char* placement_name(ExpertPlacement p);

// E[max of n independent standard normal draws] (0 for n <= 1); exact to 1e-9 (numerical
// integration), remembered per n.
double expected_max_std_normal(int n);

struct RankLoadSpec {
  int ep = 8;
  double tokens = 0;  // tokens each rank dispatches in this exchange
  int topk = 8;
  int experts_per_rank = 1;   // physical experts (routed + redundant) / ep
  double expert_load_cv = 0;  // spread of one physical expert's load under EPLB placement
  // Independent sequences behind the exchange (all EP ranks' batches), as (sum n)^2 / sum n^2,
  // and how much one sequence favours some experts (0: tokens route independently).
  double sequences = 0;
  double sequence_expert_cv = 0;
  ExpertPlacement placement = ExpertPlacement::eplb;
};

struct RankLoad {
  double z = 0;              // expected largest of ep standard normals
  double sampling_cv = 0;    // the batch's random routing
  double placement_cv = 0;   // what the placement leaves uneven
  double locality_cv = 0;    // what the sequences' preferred experts leave uneven
  double cv = 0;             // all three (independent): sqrt(sampling^2 + placement^2 + locality^2)
  double hot_over_mean = 1;  // the hottest rank's rows over the mean
};

RankLoad rank_load(const RankLoadSpec& s);

// The hottest rank's load over the mean for a model and workload: the workload's explicit
// imbalance (--imbalance) when it gives one (> 0), else rank_load() for the whole batch per GPU
// (tokens x decode_q_len in decode) with the workload's placement.
double hot_rank_load_ratio(const ModelConfig& m, const Workload& w);
// The same for one micro-batch (its tokens and sequences) on every rank.
double hot_rank_load_ratio(const ModelConfig& m, const Workload& w, const MicroBatch& mb);
// The effective count of independent sequences behind one exchange: (sum n)^2 / sum n^2 over the
// micro-batch's sequences (n = query tokens), times the EP ranks when each brings its own batch
// (DP attention).
double effective_sequences(const Workload& w, const MicroBatch& mb);

// How long after the mean rank the last of `ep` ranks arrives at an exchange, for `work_us` of
// work per rank since the previous exchange at time spread `rank_time_cv`: the expected largest
// of ep normal draws, z(ep) x rank_time_cv x work_us.
double slowest_rank_lateness_us(int ep, double rank_time_cv, double work_us);

}  // namespace ovs
