// The engine's steady-state fast-forward (sim/engine/fast_forward.hpp): once the host has issued
// everything and two periods of identical layers leave the GPU in the same relative state, the
// remaining identical periods are advanced at once. It may only save time: every timeline entry,
// every what-if JSON of every shipped strategy (both phases, every model) and every sweep CSV is
// the same with it off, and the tests check that it did skip periods where it should.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"
#include "sim/engine/fast_forward.hpp"
#include "sim/engine/timeline.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

// `layers` identical layers on two streams: a GEMM reading its layer's weights and a hidden
// state shared by every layer, a record on stream 0 that stream 1 waits for, a memory-bound
// kernel on stream 1 beside the next GEMM, and a transfer that spins until its layer's event
// fires (a low-latency receive). Host costs make the host finish early.
Program layered_program(int layers) {
  ProgramBuilder b(2);
  for (int l = 0; l < layers; ++l) {
    const std::string ev = "L" + std::to_string(l);
    Work gemm = compute_work(2e8, 132);
    gemm.reads.push_back({"w", 3e7, l});
    gemm.reads.push_back({"h", 4e6, -1});
    gemm.writes.push_back({"h", 4e6, -1});
    b.kernel("gemm", 0, gemm, 0.7);
    b.record(ev, 0);
    b.wait(ev, 1);
    Work mem = memory_work(2e7, 20);
    mem.reads.push_back({"h", 4e6, -1});
    b.kernel("side", 1, mem, 0.3);
    KernelSpec recv;
    recv.name = "recv";
    recv.stream = 0;
    recv.work = memory_work(1e6, 8);
    recv.spin_on_event = b.event(ev);
    b.add(recv, 0.2);
  }
  return b.p;
}

struct Outcome {
  RunResult result;
  // enqueue, start, end, SMs held over time, HBM and L2 bytes
  std::vector<std::tuple<double, double, double, std::vector<SmSteps::Step>, double, double>>
      kernels;
};

Outcome run(const Program& p, bool fast_forward) {
  const FastForwardOff off(!fast_forward);
  Timeline tl(p, /*counters=*/false);
  Outcome o;
  o.result = Engine(toy_gpu()).run(p, &tl);
  for (const auto& k : tl.kernels()) {
    std::vector<SmSteps::Step> sms;
    for (size_t i = 0; i < k.sms.size(); ++i) sms.push_back(k.sms[i]);
    o.kernels.emplace_back(k.enqueue_us, k.start_us, k.end_us, sms, k.traffic.hbm_bytes,
                           k.traffic.l2_bytes);
  }
  return o;
}

}  // namespace

TEST_CASE("fast-forward: identical layers give the same timeline, bit for bit", "[engine][ff]") {
  const Program p = layered_program(40);
  const Outcome full = run(p, false);
  const Outcome ff = run(p, true);
  CHECK(full.result.periods_fast_forwarded == 0);
  // 40 layers: the host is done within the first layers (1.2 us of launches a layer against
  // at least 200 us of GEMM), so most of the remaining layers are advanced at once.
  CHECK(ff.result.periods_fast_forwarded >= 20);
  CHECK(ff.result.makespan_us == full.result.makespan_us);
  CHECK(ff.result.gpu_end_us == full.result.gpu_end_us);
  CHECK(ff.result.steps == full.result.steps);
  REQUIRE(ff.kernels.size() == full.kernels.size());
  for (size_t k = 0; k < ff.kernels.size(); ++k) {
    INFO("kernel " << k);
    CHECK(ff.kernels[k] == full.kernels[k]);
  }
}

TEST_CASE("fast-forward: a layer that differs stops it where the difference starts",
          "[engine][ff]") {
  Program p = layered_program(40);
  // Layer 30's GEMM does twice the work: the periods before it may be skipped, not it.
  int gemms = 0;
  for (auto& k : p.kernels)
    if (k.name == "gemm" && gemms++ == 30) k.work.tensor_flops[0] *= 2;
  const Outcome full = run(p, false);
  const Outcome ff = run(p, true);
  CHECK(ff.result.periods_fast_forwarded > 0);
  CHECK(ff.result.makespan_us == full.result.makespan_us);
  CHECK(ff.result.steps == full.result.steps);
  CHECK(ff.kernels == full.kernels);
}

TEST_CASE("a program run again under its shape token gives what a fresh copy gives",
          "[engine][ff]") {
  // The engine keeps what it sets up from a program's shape (structure check, interned tensor
  // names, work classes) for the next run of a program with the same shape token on its thread:
  // noted at the first run, kept after the second, taken from the third on. Between rounds only
  // the numbers change, as the program builder's in-place rebuilds do; a copy has no token and
  // is set up afresh.
  Program p = layered_program(12);
  for (auto& k : p.kernels) k.work_class = k.name == "gemm" ? 0 : k.name == "side" ? 1 : 2;
  p.shape = ShapeToken::fresh();
  REQUIRE(p.shape.value() != 0);
  for (const bool ff : {true, false}) {
    std::vector<double> makespans;
    for (int round = 0; round < 4; ++round) {
      for (auto& k : p.kernels) {
        k.work.tensor_flops[0] *= 1.25;
        k.work.hbm_bytes *= 1.5;
        for (auto& t : k.work.reads) t.bytes *= 2;
        for (auto& t : k.work.writes) t.bytes *= 0.5;
      }
      const Program copy = p;
      REQUIRE(copy.shape.value() == 0);
      const Outcome kept = run(p, ff);
      const Outcome fresh = run(copy, ff);
      INFO("fast-forward " << ff << ", round " << round);
      CHECK(kept.result.makespan_us == fresh.result.makespan_us);
      CHECK(kept.result.steps == fresh.result.steps);
      CHECK(kept.result.periods_fast_forwarded == fresh.result.periods_fast_forwarded);
      CHECK(kept.kernels == fresh.kernels);
      makespans.push_back(kept.result.makespan_us);
    }
    // The new numbers were read each round (a set-up kept with stale bytes would repeat them).
    for (size_t i = 1; i < makespans.size(); ++i) CHECK(makespans[i] > makespans[i - 1]);
  }
}

TEST_CASE("fast-forward: every shipped strategy, both phases, every model, same JSON",
          "[ff][cli]") {
  struct Family {
    const char* model;
    const char* dir;
    const char* hw;
  };
  int compared = 0;
  for (const Family& f : {Family{"deepseek-v3", "deepseek-v3", "h800-sxm"},
                          Family{"deepseek-v4-flash", "deepseek-v4", "h200-sxm"},
                          Family{"deepseek-v4-pro", "deepseek-v4", "mi355x"}}) {
    for (const auto& e : fs::directory_iterator(source_path(std::string("strategies/") + f.dir))) {
      const std::string strategy = e.path().stem().string();
      for (const char* phase : {"decode", "prefill"}) {
        const std::string tokens = std::string(phase) == "decode" ? "64" : "4096";
        std::vector<std::string> args = {"whatif", "--model",    f.model,  "--hw",
                                         f.hw,     "--phase",    phase,    "--tokens-per-gpu",
                                         tokens,   "--context",  "4096",   "--ep",
                                         "8",      "--strategy", strategy, "--json"};
        const CliResult on = cli(args);
        args.push_back("--no-fast-forward");
        const CliResult off = cli(args);
        INFO(f.model << " " << strategy << " " << phase << "\n" << on.err << off.err);
        CHECK(on.code == off.code);
        CHECK(on.out == off.out);
        if (on.code == 0) ++compared;
      }
    }
  }
  // 4 V3 strategies and 10 V4 strategies for each V4 model, most of them valid in both phases.
  CHECK(compared >= 30);
  CHECK(fast_forward_enabled());  // the switch is restored after the command
}

TEST_CASE("fast-forward: sweep CSVs are the same bytes with it off, any -j", "[ff][sweep]") {
  const fs::path spec = scratch_path("fast-forward", "ff.yaml");
  std::ofstream(spec) << R"(name: ff
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, ep: 32}
axes:
  - {field: tokens_per_gpu, values: [4, 32, 128]}
  - {field: context, values: [1024, 8192]}
strategies: [tbo-decode, sbo]
)";
  const fs::path on = scratch_path("fast-forward", "on.csv"),
                 off = scratch_path("fast-forward", "off.csv"),
                 on1 = scratch_path("fast-forward", "on-j1.csv");
  REQUIRE(cli({"sweep", spec.string(), "--out", on.string(), "-j", "2", "-q"}).code == 0);
  REQUIRE(cli({"sweep", spec.string(), "--out", on1.string(), "-j", "1", "-q"}).code == 0);
  REQUIRE(cli({"sweep", spec.string(), "--out", off.string(), "-j", "2", "-q", "--no-fast-forward"})
              .code == 0);
  CHECK(file_bytes(on) == file_bytes(off));
  CHECK(file_bytes(on1) == file_bytes(off));
}
