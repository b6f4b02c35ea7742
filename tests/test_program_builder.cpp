// The program builder's SGLang semantics: stages cut at yields, A `delta` stages ahead, host issue
// order, the DeepEP halves, the fall-back when a batch cannot be split.
#include <algorithm>
#include <catch2/catch.hpp>

#include "app/strategy/program_builder.hpp"
#include "helpers.hpp"
#include "sim/io/data_paths.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

Workload decode_workload(std::int64_t requests) {
  return workload(Phase::decode, requests, 2048, 32);
}

// Steady-state stages per layer: the segments between yields, minus one when the list does not
// end with a yield (its last stage merges with the next layer's first).
int stages_per_layer(const LayerStrategy& l) {
  const int segments = static_cast<int>(stages_of(l).size());
  const bool ends_with_yield = !l.items.empty() && l.items.back() == kYield;
  return ends_with_yield ? segments : segments - 1;
}

std::vector<std::string> comm_ops(const BuiltProgram& b) {
  std::vector<std::string> out;
  for (const auto& s : b.host_issue)
    if (s.find("dispatch") != std::string::npos || s.find("combine") != std::string::npos)
      out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("stage counts per layer of the shipped strategies", "[strategy]") {
  // V3 decode: DeepSeek's 5-stage pipeline; V3 prefill: 3 segments, the last merging into the
  // next layer's first = 2 stages a layer.
  const Strategy v3d = load_strategy("tbo-decode", ModelFamily::v3);
  CHECK(stages_per_layer(v3d.for_type(LayerType::moe)) == 5);
  CHECK(v3d.delta_stages == 2);
  const Strategy v3p = load_strategy("tbo-prefill", ModelFamily::v3);
  CHECK(stages_per_layer(v3p.for_type(LayerType::moe)) == 2);
  CHECK(v3p.delta_stages == 0);
  // V4 decode proposal: 4 yields per layer on both CSA and HCA layers, placed differently.
  const Strategy v4d = load_strategy("tbo-decode", ModelFamily::v4);
  for (LayerType t : {LayerType::csa, LayerType::hca}) {
    const auto& items = v4d.for_type(t).items;
    CHECK(std::count(items.begin(), items.end(), std::string(kYield)) == 4);
  }
  CHECK(v4d.for_type(LayerType::csa).items != v4d.for_type(LayerType::hca).items);
  CHECK(stages_per_layer(load_strategy("tbo-prefill", ModelFamily::v4).for_type(LayerType::csa)) ==
        2);
  // Strategies without two-batch overlap have one stage.
  CHECK(stages_of(load_strategy("no-overlap", ModelFamily::v3).for_type(LayerType::moe)).size() ==
        1);
}

TEST_CASE("every shipped strategy builds for its models", "[strategy]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  for (const char* model : {"deepseek-v3", "deepseek-v4-flash", "deepseek-v4-pro"}) {
    const ModelConfig m = load_model_config(model);
    const std::string dir =
        m.family == ModelFamily::v4 ? "strategies/deepseek-v4" : "strategies/deepseek-v3";
    for (const auto& name : shipped_names(dir)) {
      INFO(model << " " << name);
      Workload w = decode_workload(16);
      const Strategy s = load_strategy(name, m.family);
      if (s.deepep_mode) w.deepep_mode = s.deepep_mode;
      if (w.mode() == DeepepMode::normal) w.cuda_graphs = false;
      const LayerBuilder lb(m, hw, w);
      const BuiltProgram b = build_program(lb, s);
      CHECK(check_program(b.program).empty());
      CHECK(b.program.kernels.size() > size_t(10 * m.layers));
    }
  }
}

TEST_CASE("seed 1's host order A.combine_a, B.dispatch_a, A.combine_b, B.dispatch_b",
          "[strategy]") {
  // Seed 1 (tbo-yield-engine-model): with A one stage ahead of B in the prefill list
  // [attn, dispatch_a | dispatch_b, mlp, combine_a | shared, combine_b], the host issues
  // A.combine_a -> B.dispatch_a -> A.combine_b -> B.dispatch_b.
  const std::string path = source_path("tests/data/seed1-prefill-delta1.yaml");
  const Strategy s = load_strategy(path, ModelFamily::v3);
  const ModelConfig m = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h800-sxm");
  const Workload w = workload(Phase::prefill, 4096, 1024, 32);
  const BuiltProgram b = build_program(LayerBuilder(m, hw, w), s);
  REQUIRE(b.split);
  // In host order (A's next-layer dispatch_a may come between, as the layer's last stage merges
  // with the next layer's first).
  const auto comm = comm_ops(b);
  const std::vector<std::string> want{"A.L3.combine_a", "B.L3.dispatch_a", "A.L3.combine_b",
                                      "B.L3.dispatch_b"};
  std::vector<long> pos;
  for (const auto& op : want) pos.push_back(std::find(comm.begin(), comm.end(), op) - comm.begin());
  CHECK(std::is_sorted(pos.begin(), pos.end()));
  CHECK(pos.back() < long(comm.size()));
  // ... and B.dispatch_a comes after A.combine_a with no other B comm op between them.
  CHECK(pos[1] == pos[0] + 1);
}

TEST_CASE("DeepEP normal dispatch blocks the host until its counts arrive", "[strategy]") {
  const ModelConfig m = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h800-sxm");
  const Workload w = workload(Phase::prefill, 4096, 4096, 32);
  const BuiltProgram b =
      build_program(LayerBuilder(m, hw, w), load_strategy("tbo-prefill", ModelFamily::v3));
  int blocks = 0;
  for (const auto& a : b.program.actions) blocks += std::holds_alternative<BlockAction>(a.step);
  CHECK(blocks == 2 * (m.layers - m.dense_layers));  // one per dispatch per micro-batch
}

TEST_CASE("low-latency send and receive are separate kernels; data in flight holds no SM",
          "[strategy]") {
  const ModelConfig m = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h800-sxm");
  const BuiltProgram b = build_program(LayerBuilder(m, hw, decode_workload(64)),
                                       load_strategy("tbo-decode", ModelFamily::v3));
  int send = 0, recv = 0, flight = 0;
  for (size_t i = 0; i < b.info.size(); ++i) {
    if (b.info[i].kernel == "send") ++send;
    if (b.info[i].kernel == "recv") ++recv;
    if (b.info[i].kernel == "in_flight") {
      ++flight;
      CHECK(b.program.kernels[i].fixed_sms == 0);
    }
  }
  // dispatch and combine, two micro-batches, every MoE layer
  const int expected = 2 * 2 * (m.layers - m.dense_layers);
  CHECK(send == expected);
  CHECK(recv == expected);
  CHECK(flight == expected);
}

TEST_CASE("a batch of one request cannot split: it says so and falls back", "[strategy][whatif]") {
  const CliResult r =
      cli({"whatif", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "decode",
           "--tokens-per-gpu", "1", "--context", "1024", "--ep", "16", "--strategy", "tbo-decode"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("cannot be split") != std::string::npos);
}

TEST_CASE("decode splits sequences in half: A gets floor(n/2)", "[strategy]") {
  std::string why;
  auto s = split_batch(decode_workload(7), &why);
  REQUIRE(s);
  CHECK(s->first.sequences == 3);
  CHECK(s->second.sequences == 4);
}

TEST_CASE("prefill splits on a balanced sequence boundary, else at the token midpoint",
          "[strategy]") {
  Workload w;
  w.phase = Phase::prefill;
  w.context = 1000;
  w.tokens_per_gpu = 4000;  // four prompts: 2 + 2, share 0.5
  auto even = split_batch(w, nullptr);
  REQUIRE(even);
  CHECK(even->first.tokens == 2000);
  CHECK(even->first.sequences == 2);
  w.tokens_per_gpu = 3000;  // three prompts: the best boundary leaves 1/3: cut at 1500 tokens
  auto mid = split_batch(w, nullptr);
  REQUIRE(mid);
  CHECK(mid->first.tokens == 1500);
  CHECK(mid->second.tokens == 1500);
  CHECK(mid->first.sequences + mid->second.sequences == 4);  // the middle prompt is in both halves
}

namespace {

// Every field of two built programs, the engine's input and the labels, side by side.
void check_same_build(const BuiltProgram& a, const BuiltProgram& b) {
  CHECK(a.split == b.split);
  CHECK(a.note == b.note);
  CHECK(a.launch_count == b.launch_count);
  CHECK(a.host_issue == b.host_issue);
  const Program &p = a.program, &q = b.program;
  CHECK(p.launch_mode == q.launch_mode);
  REQUIRE(p.streams.size() == q.streams.size());
  for (size_t i = 0; i < p.streams.size(); ++i) {
    CHECK(p.streams[i].name == q.streams[i].name);
    CHECK(p.streams[i].priority == q.streams[i].priority);
  }
  CHECK(p.events == q.events);
  REQUIRE(p.kernels.size() == q.kernels.size());
  REQUIRE(a.info.size() == b.info.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    INFO("kernel " << i << " " << p.kernels[i].op << "/" << p.kernels[i].name);
    const KernelSpec &x = p.kernels[i], &y = q.kernels[i];
    CHECK(x.name == y.name);
    CHECK(x.stream == y.stream);
    CHECK(x.sm_cap == y.sm_cap);
    CHECK(x.fixed_sms == y.fixed_sms);
    CHECK(x.spin_on_event == y.spin_on_event);
    CHECK(x.work_class == y.work_class);
    CHECK(x.op == y.op);
    CHECK(x.micro_batch == y.micro_batch);
    CHECK(x.category == y.category);
    CHECK(x.duration_us == y.duration_us);
    const Work &v = x.work, &w = y.work;
    CHECK(v.tensor_flops == w.tensor_flops);
    CHECK(v.cuda_core_flops == w.cuda_core_flops);
    CHECK(v.hbm_bytes == w.hbm_bytes);
    CHECK(v.l2_bytes == w.l2_bytes);
    CHECK(v.link_bytes == w.link_bytes);
    CHECK(v.ctas == w.ctas);
    CHECK(v.ctas_per_sm == w.ctas_per_sm);
    CHECK(v.cta.threads == w.cta.threads);
    CHECK(v.cta.registers_per_thread == w.cta.registers_per_thread);
    CHECK(v.cta.shared_bytes == w.cta.shared_bytes);
    CHECK(v.tiles == w.tiles);
    CHECK(v.compute_efficiency == w.compute_efficiency);
    CHECK(v.fixed_latency_us == w.fixed_latency_us);
    CHECK(v.tile_overhead_us == w.tile_overhead_us);
    CHECK(v.tile_serial_bytes == w.tile_serial_bytes);
    for (const auto& [r, s] : {std::pair{&v.reads, &w.reads}, {&v.writes, &w.writes}}) {
      REQUIRE(r->size() == s->size());
      for (size_t t = 0; t < r->size(); ++t) {
        CHECK((*r)[t].tensor == (*s)[t].tensor);
        CHECK((*r)[t].bytes == (*s)[t].bytes);
        CHECK((*r)[t].scope == (*s)[t].scope);
      }
    }
    CHECK(a.info[i].layer == b.info[i].layer);
    CHECK(a.info[i].op == b.info[i].op);
    CHECK(a.info[i].kernel == b.info[i].kernel);
    CHECK(a.info[i].micro_batch == b.info[i].micro_batch);
    CHECK(a.info[i].comm == b.info[i].comm);
    CHECK(a.info[i].stage == b.info[i].stage);
  }
  REQUIRE(p.actions.size() == q.actions.size());
  for (size_t i = 0; i < p.actions.size(); ++i) {
    INFO("action " << i);
    CHECK(p.actions[i].label == q.actions[i].label);
    REQUIRE(p.actions[i].step.index() == q.actions[i].step.index());
    if (const auto* l = std::get_if<LaunchAction>(&p.actions[i].step)) {
      const auto& m = std::get<LaunchAction>(q.actions[i].step);
      CHECK(l->kernel == m.kernel);
      CHECK(l->host_us == m.host_us);
    } else if (const auto* r = std::get_if<RecordAction>(&p.actions[i].step)) {
      CHECK(r->event == std::get<RecordAction>(q.actions[i].step).event);
      CHECK(r->stream == std::get<RecordAction>(q.actions[i].step).stream);
    } else if (const auto* w = std::get_if<WaitAction>(&p.actions[i].step)) {
      CHECK(w->event == std::get<WaitAction>(q.actions[i].step).event);
      CHECK(w->stream == std::get<WaitAction>(q.actions[i].step).stream);
    } else if (const auto* bl = std::get_if<BlockAction>(&p.actions[i].step)) {
      CHECK(bl->event == std::get<BlockAction>(q.actions[i].step).event);
    } else {
      const auto& d = std::get<DelayAction>(p.actions[i].step);
      CHECK(d.us == std::get<DelayAction>(q.actions[i].step).us);
      CHECK(d.label == std::get<DelayAction>(q.actions[i].step).label);
    }
  }
}

}  // namespace

TEST_CASE("a program built again in place equals the same program built afresh", "[strategy]") {
  // A sweep worker builds each strategy point after point into the storage of its last build:
  // where the shape is the same only the numbers change; where it is not (a batch of one cannot
  // be split; another strategy's program; prefill's normal mode) the build starts over. Every
  // field must come out as a fresh build makes it.
  struct Case {
    const char* model;
    const char* hw;
    Phase phase;
    std::vector<std::int64_t> tokens;
    std::vector<const char*> strategies;
  };
  const std::vector<Case> cases{
      {"deepseek-v3", "h800-sxm", Phase::decode, {64, 128, 1, 32, 64}, {"tbo-decode", "sbo"}},
      {"deepseek-v3", "h800-sxm", Phase::prefill, {4096, 8192, 2048}, {"tbo-prefill"}},
      {"deepseek-v4-pro", "h200-sxm", Phase::decode, {16, 64, 1}, {"multistream", "tbo-decode"}}};
  for (const Case& c : cases) {
    const ModelConfig m = load_model_config(c.model);
    const HwProfile hw = load_hw_profile(c.hw);
    BuiltProgram reused;
    for (const char* name : c.strategies) {
      const Strategy s = load_strategy(name, m.family);
      for (const std::int64_t tokens : c.tokens) {
        Workload w = decode_workload(tokens);
        w.phase = c.phase;
        if (c.model == std::string("deepseek-v4-pro")) w.ep = 8;
        const LayerBuilder lb(m, hw, w);
        INFO(c.model << " " << name << " " << tokens << " tokens");
        build_program_into(lb, s, reused);
        check_same_build(reused, build_program(lb, s));
      }
    }
  }
  // The same strategy object changed in place (its address and name the same): built afresh.
  const ModelConfig m = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h800-sxm");
  const LayerBuilder lb(m, hw, decode_workload(64));
  Strategy s = load_strategy("tbo-decode", ModelFamily::v3);
  BuiltProgram reused;
  build_program_into(lb, s, reused);
  s.delta_stages = s.delta_stages == 1 ? 2 : 1;
  build_program_into(lb, s, reused);
  check_same_build(reused, build_program(lb, s));
}
