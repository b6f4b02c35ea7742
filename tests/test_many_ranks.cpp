// Many ranks, not one (models/cost/rank_spread.hpp): the expected largest of EP normal draws,
// the ranks' expert load spread, the waits at each DeepEP exchange in a layer's plan, and the
// engine's loaded memory latency. Each expected value is worked out beside its assertion.
#include <catch2/catch.hpp>
#include <cmath>

#include "app/analysis/request.hpp"
#include "helpers.hpp"
#include "models/config/model_config.hpp"
#include "models/cost/rank_spread.hpp"
#include "models/graph/layer_builder.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/timeline.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;

TEST_CASE("the expected largest of n standard normals: closed forms for n <= 5", "[ranks]") {
  // E[max] of 2, 3, 4, 5 iid N(0, 1): 1/sqrt(pi), 3/(2 sqrt(pi)), 1.029375..., 1.162964...
  // (the last two: Bose and Gupta's closed forms, 3/(2 sqrt(pi)) (1 + 2/pi asin(1/3)) and
  // 5/(4 sqrt(pi)) (1 + 6/pi asin(1/3))).
  const double pi = std::acos(-1.0);
  CHECK(expected_max_std_normal(1) == 0.0);
  CHECK(expected_max_std_normal(2) == Approx(1 / std::sqrt(pi)).epsilon(1e-9));
  CHECK(expected_max_std_normal(3) == Approx(3 / (2 * std::sqrt(pi))).epsilon(1e-9));
  CHECK(expected_max_std_normal(4) ==
        Approx(3 / (2 * std::sqrt(pi)) * (1 + 2 / pi * std::asin(1.0 / 3))).epsilon(1e-9));
  CHECK(expected_max_std_normal(5) ==
        Approx(5 / (4 * std::sqrt(pi)) * (1 + 6 / pi * std::asin(1.0 / 3))).epsilon(1e-9));
  // More ranks, a later slowest one.
  CHECK(expected_max_std_normal(72) > expected_max_std_normal(32));
  CHECK(expected_max_std_normal(32) > expected_max_std_normal(8));
}

TEST_CASE("the hottest rank's load: sampling and placement spreads add in quadrature", "[ranks]") {
  RankLoadSpec s;
  s.ep = 32;
  s.tokens = 8192;
  s.topk = 8;
  s.experts_per_rank = 9;  // 288 physical experts over 32 ranks
  s.expert_load_cv = 0.3;
  s.placement = ExpertPlacement::eplb;
  const RankLoad r = rank_load(s);
  // Sampling: 8192 x 8 = 65536 rows, each on this rank with p = 1/32: cv = sqrt((1 - 1/32) /
  // 65536). Placement: 0.3 / sqrt(9) = 0.1.
  const double sampling = std::sqrt((1 - 1.0 / 32) / 65536.0);
  CHECK(r.sampling_cv == Approx(sampling));
  CHECK(r.placement_cv == Approx(0.1));
  CHECK(r.cv == Approx(std::sqrt(sampling * sampling + 0.01)));
  CHECK(r.hot_over_mean == Approx(1 + expected_max_std_normal(32) * r.cv));
  // A perfect placement leaves the sampling only.
  s.placement = ExpertPlacement::balanced;
  const RankLoad b = rank_load(s);
  CHECK(b.placement_cv == 0.0);
  CHECK(b.hot_over_mean == Approx(1 + expected_max_std_normal(32) * sampling));
  // One rank has nobody to wait for.
  s.ep = 1;
  CHECK(rank_load(s).hot_over_mean == 1.0);
}

TEST_CASE("routing locality: a few long sequences load the ranks more unevenly than many short",
          "[ranks]") {
  RankLoadSpec s;
  s.ep = 32;
  s.tokens = 16384;
  s.topk = 8;
  s.experts_per_rank = 8;  // 256 experts over 32 ranks
  s.sequence_expert_cv = 4;
  s.sequences = 128;  // four 4096-token prompts on each of 32 ranks
  // cv = 4 x sqrt((1 - 1/32) / (8 x 128)).
  const double locality = 4 * std::sqrt((1 - 1.0 / 32) / (8 * 128.0));
  CHECK(rank_load(s).locality_cv == Approx(locality));
  const double sampling = std::sqrt((1 - 1.0 / 32) / (16384 * 8.0));
  CHECK(rank_load(s).cv == Approx(std::hypot(sampling, locality)));
  // The same tokens as 16384 one-token requests per rank: 128 times the sequences.
  s.sequences = 128.0 * 16384 / 4096 * 32;
  CHECK(rank_load(s).locality_cv == Approx(locality / std::sqrt(16384 / 4096 * 32.0)));
  // SGLang's simulated perfect placement rewrites the routing: no locality left.
  s.placement = ExpertPlacement::balanced;
  CHECK(rank_load(s).locality_cv == 0.0);
}

TEST_CASE("the effective count of sequences behind an exchange", "[ranks]") {
  Workload w = workload(Phase::prefill, 8193, 4096, 32);
  w.prompt_lens = {4096, 4096, 1};
  // (4096 + 4096 + 1)^2 / (4096^2 + 4096^2 + 1) per rank, times 32 ranks.
  const double per_rank = 8193.0 * 8193 / (2.0 * 4096 * 4096 + 1);
  CHECK(effective_sequences(w, whole_batch(w)) == Approx(per_rank * 32));
  // Without DP attention every rank runs the same batch.
  w.dp_attention = false;
  CHECK(effective_sequences(w, whole_batch(w)) == Approx(per_rank));
  // Decode: each request is a sequence of decode_q_len tokens.
  Workload d = workload(Phase::decode, 256, 2000, 72);
  d.decode_q_len = 2;
  CHECK(effective_sequences(d, whole_batch(d)) == Approx(256.0 * 72));
}

TEST_CASE("an explicit imbalance overrides the routing statistics, auto takes them", "[ranks]") {
  const ModelConfig m = load_model_config("deepseek-v3");
  Workload w = workload(Phase::prefill, 4096, 4096, 32);
  w.imbalance = 1.4;
  CHECK(hot_rank_load_ratio(m, w) == 1.4);
  w.imbalance = 0;  // auto
  RankLoadSpec s;
  s.ep = 32;
  s.tokens = 4096;
  s.topk = m.topk;
  s.experts_per_rank = 256 / 32;
  s.expert_load_cv = m.expert_load_cv;
  // One 4096-token prompt per rank, every rank its own (DP attention): 32 sequences.
  s.sequences = 32;
  s.sequence_expert_cv = m.sequence_expert_cv;
  CHECK(hot_rank_load_ratio(m, w) == Approx(rank_load(s).hot_over_mean));
  w.placement = ExpertPlacement::balanced;
  CHECK(hot_rank_load_ratio(m, w) < rank_load(s).hot_over_mean);
  // The words: auto, a number >= 1, eplb or balanced; anything else names the field.
  WorkloadWords words;
  words.tokens_per_gpu = 8;
  words.context = 8;
  words.ep = 8;
  words.imbalance = "0.9";
  CHECK_THROWS_WITH(resolve_workload(words, RequestSource{}),
                    Catch::Contains("--imbalance") && Catch::Contains("0.9"));
  words.imbalance = "auto";
  words.placement = "perfect";
  CHECK_THROWS_WITH(resolve_workload(words, RequestSource{}), Catch::Contains("--placement"));
}

namespace {

double solo_sum(const HwProfile& hw, const OpPlan& op) {
  double us = 0;
  for (const auto& k : op.kernels) us += solo_time_us(hw.engine, k.cost.spec());
  return us;
}

const OpKernel& kernel_named(const OpPlan& op, const std::string& name) {
  for (const auto& k : op.comm_kernels)
    if (k.name == name) return k;
  FAIL("no kernel " << name << " in " << op.op);
  throw;
}

}  // namespace

TEST_CASE("normal mode: the wait for the slowest rank before each exchange", "[ranks][deepep]") {
  const ModelConfig m = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h100-sxm");
  Workload w = workload(Phase::prefill, 8192, 4096, 32);
  w.deepep_mode = DeepepMode::normal;
  w.cuda_graphs = false;
  const LayerBuilder lb(m, hw, w);
  const LayerPlan& p = lb.plan(5, whole_batch(w), "A");
  // Before the dispatch: z(32) x rank_time_cv_eager x (the layer's kernels outside the routed
  // experts, each alone); before the combine the same over the routed experts, plus what the
  // hottest rank's extra rows cost it.
  double rest_us = 0, experts_us = 0;
  for (const auto& op : p.ops) (op.op == "experts" ? experts_us : rest_us) += solo_sum(hw, op);
  const double zcv = expected_max_std_normal(32) * hw.kernels.comm.rank_time_cv_eager;
  REQUIRE(zcv > 0);
  const OpPlan* db = p.find("dispatch_b");
  const OpPlan* cb = p.find("combine_b");
  REQUIRE(db);
  REQUIRE(cb);
  CHECK(kernel_named(*db, "barrier").cost.work.fixed_latency_us == Approx(zcv * rest_us));
  CHECK(kernel_named(*cb, "barrier").cost.work.fixed_latency_us == Approx(zcv * experts_us));
  // The hottest rank, still in its experts, is waited for inside the combine kernel: DeepEP's
  // own latency for the transfer plus what that rank's extra rows cost it.
  REQUIRE(cb->comm);
  const DeepepCost cc = deepep_cost(hw, *cb->comm);
  CHECK(kernel_named(*cb, "combine").cost.work.fixed_latency_us ==
        Approx(cc.kernels[cc.transfer].work.fixed_latency_us + p.hot_rank_experts_extra_us));
  // The hottest rank's rows make its experts longer than the simulated (mean) rank's.
  CHECK(p.hot_rank_experts_extra_us > 0);
  // The barrier holds DeepEP's SMs, as the count exchange does.
  CHECK(kernel_named(*db, "barrier").cost.fixed_sms == hw.kernels.comm.deepep_normal_sms);
}

TEST_CASE("low-latency mode: the receive polls longer for the slowest rank's data",
          "[ranks][deepep]") {
  const ModelConfig m = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h100-sxm");
  const Workload w = ep72_redundant_decode(128);
  const LayerBuilder lb(m, hw, w);
  const LayerPlan& p = lb.plan(5, whole_batch(w), "A");
  double rest_us = 0;
  for (const auto& op : p.ops)
    if (op.op != "experts") rest_us += solo_sum(hw, op);
  // The flight's latency: DeepEP's fitted latency for 72 ranks plus z(72) x rank_time_cv_graph x
  // the work since the previous exchange.
  const CommParams& c = hw.kernels.comm;
  const double flight = c.ll_latency_us + c.ll_latency_per_log2_ep_us * std::log2(72.0);
  const double wait = expected_max_std_normal(72) * c.rank_time_cv_graph * rest_us;
  const OpPlan* da = p.find("dispatch_a");
  REQUIRE(da);
  CHECK(kernel_named(*da, "in_flight").cost.work.fixed_latency_us == Approx(flight + wait));
  // The simulated rank receives the mean in dispatch; the combine carries the hottest's rows.
  CHECK(da->comm->imbalance == 1.0);
  CHECK(p.find("combine_a")->comm->imbalance == Approx(hot_rank_load_ratio(m, w)));
}

namespace {

// Two kernels on two streams of the toy GPU, started together, with the loaded-latency slowdown
// s: their ends.
void side_by_side(double s, const Work& a, const Work& b, double* a_end, double* b_end) {
  Hardware hw = toy_gpu();
  hw.hbm_loaded_slowdown = s;
  ProgramBuilder p(2);
  const int ka = p.kernel("a", 0, a);
  const int kb = p.kernel("b", 1, b);
  Timeline tl(p.p);
  Engine(hw).run(p.p, &tl);
  *a_end = tl.kernels()[static_cast<size_t>(ka)].end_us;
  *b_end = tl.kernels()[static_cast<size_t>(kb)].end_us;
}

}  // namespace

TEST_CASE("loaded memory latency: a kernel beside a DRAM-heavy one slows by 1 + s x its share",
          "[ranks][engine]") {
  // Toy GPU: A is compute-bound, 1e9 FLOP on 50 SMs alone = 1e9 / (50 x 1e6) = 20 us. B reads
  // 1e8 B on the other 50 SMs: 50 SMs reach the whole 1e6 B/us, alone 100 us. Side by side, B
  // keeps DRAM 100 % busy, so A runs at 1 / (1 + s x 1.0) of its speed: 40 us with s = 1; B is
  // beside a kernel with no DRAM traffic and keeps its 100 us.
  auto run = [](double s, double* a_end, double* b_end) {
    side_by_side(s, compute_work(1e9, 50), memory_work(1e8, 50), a_end, b_end);
  };
  double a_end = 0, b_end = 0;
  run(0.0, &a_end, &b_end);
  CHECK(a_end == Approx(20.0));
  CHECK(b_end == Approx(100.0));
  run(1.0, &a_end, &b_end);
  CHECK(a_end == Approx(40.0));
  CHECK(b_end == Approx(100.0));
  run(0.5, &a_end, &b_end);
  CHECK(a_end == Approx(30.0));  // 20 x (1 + 0.5 x 1.0)
}

TEST_CASE("loaded memory latency slows what the SMs do, not what a wire carries",
          "[ranks][engine]") {
  // Toy GPU: a DeepEP-like copy on 10 SMs moves 1e7 B over NVLink (1e5 B/us, 2 us latency) and
  // stages 1e7 B through DRAM; a reader on 50 SMs reads 1e8 B (alone 100 us at 1e6 B/us).
  // The reader runs alone for the copy's 2 us of latency (2 % done); then the two share DRAM at
  // equal dominant shares, x = 1e6 / (1e7 + 1e8) = 1/110 per us each (the copy's wire would
  // allow 1/100): the reader ends at 2 + 0.98 x 110 = 109.8 us, the copy has 2 % left and
  // ends 2 us later on its wire, at 111.8 us.
  // The loaded-latency factor lowers only the SM sides: the copy's 10 SMs pull 10 / 50 x 1e6 =
  // 2e5 B/us (1/50 per us), beside the reader's 0.9 of DRAM 1/50 / 1.9 = 1/95 per us, the reader's
  // 1/100 / (1 + 1/11) = 1/109 per us: neither binds under 1/110, so s changes nothing. Were the
  // wire slowed too, the copy's ceiling would be 1/100 / 1.9 = 1/190 per us.
  Work copy = memory_work(1e7, 10);
  copy.link_bytes[0] = 1e7;
  for (double s : {0.0, 1.0}) {
    double copy_end = 0, reader_end = 0;
    side_by_side(s, copy, memory_work(1e8, 50), &copy_end, &reader_end);
    INFO("hbm_loaded_slowdown " << s);
    CHECK(reader_end == Approx(2.0 + 0.98 * 110.0).epsilon(1e-6));
    CHECK(copy_end == Approx(2.0 + 0.98 * 110.0 + 2.0).epsilon(1e-6));
  }
}

TEST_CASE("SGLang's attention backend on Hopper: fa3 by default, each with its own speed",
          "[ranks][attention]") {
  auto attention_ms = [](const std::string& backend) {
    const CliResult r = cli({"whatif", "--model", "deepseek-v3", "--hw", "h100-sxm",
                             "--tokens-per-gpu", "64", "--context", "4096", "--ep", "8",
                             "--strategy", "tbo-decode", "--attention-backend", backend, "--json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r.out;
  };
  CHECK(attention_ms("auto").find("\"attention_backend\": \"fa3\"") != std::string::npos);
  // Decode is compute-bound at 128 heads: a lower efficiency is a longer layer.
  auto per_layer = [](const std::string& json) {
    const auto at = json.find("\"baseline_per_layer_us\": ");
    return std::stod(json.substr(at + 25));
  };
  const double fa3 = per_layer(attention_ms("fa3")), flashmla = per_layer(attention_ms("flashmla")),
               triton = per_layer(attention_ms("triton"));
  CHECK(flashmla < fa3);  // FlashMLA's 0.77 against FA3's 0.46 (a FlashInfer proxy)
  CHECK(fa3 < triton);    // Triton's 0.05
  // A backend the GPU's profile does not list names the flag.
  const CliResult bad = cli({"whatif", "--model", "deepseek-v3", "--hw", "h100-sxm",
                             "--tokens-per-gpu", "8", "--context", "100", "--ep", "8", "--strategy",
                             "tbo-decode", "--attention-backend", "fa4"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--attention-backend") != std::string::npos);
  CHECK(bad.err.find("fa3") != std::string::npos);
}
