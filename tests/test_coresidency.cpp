// SM co-residency: CTAs of different kernels share an SM when their footprints fit, and then
// share its issue slots and its pull on HBM / L2 through the one solver. The five rows of seed 2's
// "when does multi-stream pay" table, with no SM cap anywhere: each expected value is worked out in
// the comment above its assertion, on the toy GPU of tests/helpers.hpp plus per-SM capacities.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/sm_pool.hpp"
#include "sim/engine/timeline.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

// The toy GPU with Hopper-like SMs: 32 CTA slots, 2048 threads, 64K registers, 100 KiB shared.
Hardware toy_sms() {
  Hardware hw = toy_gpu();
  hw.sm = {32, 2048, 65536, 100 * 1024.0};
  return hw;
}

// A persistent GEMM: one CTA per SM on all 100 SMs, bf16 FLOPs at efficiency `eff`.
Work gemm(double flops, double eff, CtaFootprint cta) {
  Work w = compute_work(flops, 100);
  w.compute_efficiency = eff;
  w.cta = cta;
  return w;
}
// DeepGEMM-like CTA: 384 threads x 168 registers = 64512 of 65536: nothing else fits beside it.
const CtaFootprint kFullCta{384, 168, 90 * 1024.0};
// CK-like CTA: 256 threads x 128 registers = half the registers, 40 KiB of 100: room beside it.
const CtaFootprint kRoomyCta{256, 128, 40 * 1024.0};
// An elementwise CTA: 256 threads x 32 registers = 8192 registers, no shared memory; 8 per SM.
Work streaming(double bytes, long long ctas, double latency_us = 0) {
  Work w = memory_work(bytes, ctas);
  w.ctas_per_sm = 8;
  w.cta = {256, 32, 0};
  w.fixed_latency_us = latency_us;
  return w;
}

struct Pair {
  double together_us, serial_us;
  double gain() const { return 1.0 - together_us / serial_us; }
};
Pair run_both(const Program& p) {
  const Engine e(toy_sms());
  return {e.run(p).makespan_us, e.run(serialized(p)).makespan_us};
}

}  // namespace

TEST_CASE("SM pool: a grid is spread one CTA per SM first, most room first", "[coresidency]") {
  SmPool pool(4);
  const CtaShare quarter{0.25, 0.25, 0.25, 0.25};
  pool.set_share(0, quarter, 4);
  pool.set_share(1, quarter, 4);
  // 6 CTAs on 4 empty SMs: one on each, then a second on two of them.
  CHECK(pool.place(0, 6) == 6);
  CHECK(pool.sms_of(0) == 4);
  CHECK(pool.resident_ctas() == 6);
  // Kernel 1 goes to the two SMs with the most room first (one CTA of kernel 0 each): 3 + 3 free
  // slots there, 2 + 2 on the others. 4 CTAs: one per SM, on all four.
  CHECK(pool.place(1, 4) == 4);
  CHECK(pool.shared_sms() == 4);
  // 16 slots, 10 used: 6 more fit, whatever is asked.
  CHECK(pool.place(1, 100) == 6);
  CHECK(pool.place(0, 1) == 0);
  pool.release(0);
  CHECK(pool.resident_ctas() == 10);
  CHECK(pool.shared_sms() == 0);
}

TEST_CASE("SM pool: a kernel holds at most its designed CTAs per SM", "[coresidency]") {
  SmPool pool(2);
  pool.set_share(0, {0.1, 0.1, 0.1, 0.1}, 1);  // a persistent GEMM: one CTA per SM
  // Ten would fit by footprint; one per SM is placed.
  CHECK(pool.place(0, 10) == 2);
  CHECK(pool.place(0, 10) == 0);
}

TEST_CASE("a CTA larger than an SM is refused, not placed", "[coresidency]") {
  KernelSpec k;
  k.name = "huge";
  k.work = compute_work(1e9, 100);
  k.work.cta = {256, 64, 200 * 1024.0};  // 200 KiB of shared memory on a 100 KiB SM
  CHECK_THROWS_AS(make_kernel_model(toy_sms(), k), SimulationError);
}

TEST_CASE("a full-grid GEMM that fills its SMs leaves no room: a side kernel waits",
          "[coresidency]") {
  ProgramBuilder b(2);
  b.kernel("gemm", 0, gemm(1e9, 1.0, kFullCta));
  b.kernel("side", 1, streaming(1e6, 8));
  // The GEMM's CTAs take 64512 of 65536 registers on every SM: the side kernel's CTA (8192
  // registers) fits nowhere until the GEMM ends at 1e9 / (100 x 1e6) = 10 us.
  Timeline tl(b.p);
  Engine(toy_sms()).run(b.p, &tl);
  CHECK(tl.kernels()[1].start_us == Approx(10.0));
}

TEST_CASE("seed 2, row 1: two high-MFU GEMMs only time-share", "[coresidency][seed2]") {
  ProgramBuilder b(2);
  b.kernel("g1", 0, gemm(0.9e9, 0.9, kFullCta));
  b.kernel("g2", 1, gemm(0.9e9, 0.9, kFullCta));
  // Each alone: 0.9e9 / (100 SMs x 1e6 x 0.9) = 10 us. Their CTAs fill the SMs (registers), so
  // g2 starts when g1 ends: 20 us either way, no gain.
  const Pair t = run_both(b.p);
  CHECK(t.together_us == Approx(20.0));
  CHECK(t.serial_us == Approx(20.0));
  CHECK(t.gain() == Approx(0.0).margin(1e-9));
}

TEST_CASE("seed 2, row 1 (co-resident): high-MFU GEMMs that share SMs share the issue slots",
          "[coresidency][seed2]") {
  ProgramBuilder b(2);
  b.kernel("g1", 0, gemm(0.9e9, 0.9, kRoomyCta));
  b.kernel("g2", 1, gemm(0.9e9, 0.9, kRoomyCta));
  // Both fit on every SM, but each keeps the SM's pipes 90 % busy alone: together they ask for
  // 180 %. Max-min fair shares give each 50 %, i.e. 0.5 / 0.9 of its own speed: both end at
  // 10 x 0.9 / 0.5 = 18 us against 20 serially - at most the 1 / 0.9 the idle 10 % allows.
  const Pair t = run_both(b.p);
  CHECK(t.together_us == Approx(18.0));
  CHECK(t.gain() == Approx(0.1));
}

TEST_CASE("seed 2, row 2: two memory-bound kernels on different data gain nothing",
          "[coresidency][seed2]") {
  ProgramBuilder b(2);
  b.kernel("m1", 0, streaming(1e8, 400));
  b.kernel("m2", 1, streaming(1e8, 400));
  // Each alone: 400 CTAs / 8 per SM = 50 SMs' worth, enough for all of HBM: 1e8 / 1e6 = 100 us.
  // Together they split HBM: 2e8 / 1e6 = 200 us, the serial sum.
  const Pair t = run_both(b.p);
  CHECK(t.together_us == Approx(200.0));
  CHECK(t.serial_us == Approx(200.0));
}

TEST_CASE("seed 2, row 3: a data dependency gains nothing", "[coresidency][seed2]") {
  ProgramBuilder b(2);
  b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));
  b.record("out", 0);
  b.wait("out", 1);
  b.kernel("consumer", 1, streaming(5e7, 400));
  // The consumer waits for the GEMM's output: 100 us + 50 us = 150 us, as serial.
  const Pair t = run_both(b.p);
  CHECK(t.together_us == Approx(150.0));
  CHECK(t.serial_us == Approx(150.0));
}

TEST_CASE("seed 2, row 4: a compute-bound GEMM beside a memory-bound kernel gains",
          "[coresidency][seed2]") {
  ProgramBuilder b(2);
  // GEMM: 3.5e9 FLOP at 35 % efficiency on 100 SMs = 3.5e9 / (100 x 1e6 x 0.35) = 100 us; it
  // keeps each SM's pipes 35 % busy and reads nothing from HBM.
  b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));
  // Stream: 5e7 B; alone 400 CTAs = 50 SMs' worth: all of HBM, 50 us.
  b.kernel("stream", 1, streaming(5e7, 400));
  // Beside each GEMM CTA (256 threads, 32768 registers, 40 KiB) 4 stream CTAs fit (32768
  // registers left / 8192): all 400 CTAs are resident at once, still 50 SMs' worth of HBM pull.
  // Nothing is short: the stream ends at 50 us, the GEMM at 100 us. Serial: 150 us; gain 1/3.
  const Pair t = run_both(b.p);
  CHECK(t.together_us == Approx(100.0));
  CHECK(t.serial_us == Approx(150.0));
  CHECK(t.gain() == Approx(1.0 / 3));
}

TEST_CASE("seed 2, row 5: one big GEMM beside many us-scale kernels gains the most",
          "[coresidency][seed2]") {
  ProgramBuilder b(2);
  b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));  // 100 us, as in row 4
  // 40 one-CTA kernels: 1.5 us of latency, then 2500 B at one CTA's pull, 1/8 of an SM's
  // 1e6 / 50 B/us = 2500 B/us: 1 us. 2.5 us each, 100 us back to back on their stream.
  for (int i = 0; i < 40; ++i) b.kernel("small" + std::to_string(i), 1, streaming(2500, 1, 1.5));
  // Each fits beside a GEMM CTA: the 100 us of small kernels hide entirely behind the GEMM.
  // Together 100 us, serial 200 us: a gain of 1/2, more than row 4's 1/3.
  const Pair t = run_both(b.p);
  CHECK(t.together_us == Approx(100.0));
  CHECK(t.serial_us == Approx(200.0));
  CHECK(t.gain() == Approx(0.5));
}

TEST_CASE("the rows rank as seed 2 ranks them", "[coresidency][seed2]") {
  // Gains of rows 1-5 from the tests above: 0, 0, 0, 1/3, 1/2 - no gain for the first three, a
  // gain for row 4 and the largest for row 5. Recomputed here in one place.
  auto gain_of = [](auto build) {
    ProgramBuilder b(2);
    build(b);
    return run_both(b.p).gain();
  };
  const double r1 = gain_of([](ProgramBuilder& b) {
    b.kernel("g1", 0, gemm(0.9e9, 0.9, kFullCta));
    b.kernel("g2", 1, gemm(0.9e9, 0.9, kFullCta));
  });
  const double r2 = gain_of([](ProgramBuilder& b) {
    b.kernel("m1", 0, streaming(1e8, 400));
    b.kernel("m2", 1, streaming(1e8, 400));
  });
  const double r4 = gain_of([](ProgramBuilder& b) {
    b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));
    b.kernel("stream", 1, streaming(5e7, 400));
  });
  const double r5 = gain_of([](ProgramBuilder& b) {
    b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));
    for (int i = 0; i < 40; ++i) b.kernel("s", 1, streaming(2500, 1, 1.5));
  });
  CHECK(r1 < 0.01);
  CHECK(r2 < 0.01);
  CHECK(r4 > 0.1);
  CHECK(r5 > r4);
}

TEST_CASE("the trace's occupancy counter shows CTAs resident and SMs shared", "[coresidency]") {
  ProgramBuilder b(2);
  b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));
  b.kernel("stream", 1, streaming(5e7, 400));
  Timeline tl(b.p);
  Engine(toy_sms()).run(b.p, &tl);
  // While both run: 100 GEMM CTAs + 400 stream CTAs on 100 SMs, every SM shared.
  bool seen = false;
  for (const auto& s : tl.counters())
    if (s.c.ctas_resident == 500) {
      seen = true;
      CHECK(s.c.sms_shared == 100);
      CHECK(s.c.sms_busy == 100);
    }
  CHECK(seen);
}

TEST_CASE("a timeline without counters records none and the same kernel times", "[coresidency]") {
  ProgramBuilder b(2);
  b.kernel("gemm", 0, gemm(3.5e9, 0.35, kRoomyCta));
  b.kernel("stream", 1, streaming(5e7, 400));
  Timeline with(b.p), without(b.p, false);
  Engine(toy_sms()).run(b.p, &with);
  Engine(toy_sms()).run(b.p, &without);
  CHECK(!with.counters().empty());
  CHECK(without.counters().empty());
  for (size_t k = 0; k < b.p.kernels.size(); ++k) {
    CHECK(without.kernels()[k].start_us == with.kernels()[k].start_us);
    CHECK(without.kernels()[k].end_us == with.kernels()[k].end_us);
  }
}

TEST_CASE("solo time in closed form equals the engine's run of the kernel alone",
          "[coresidency][one-physics]") {
  const Hardware hw = toy_sms();
  std::vector<Work> works = {gemm(3.5e9, 0.35, kRoomyCta), streaming(5e7, 400),
                             streaming(2500, 1, 1.5), compute_work(1.01e9, 101)};
  Work tiled = gemm(1e9, 0.8, kFullCta);
  tiled.tiles = 250;
  tiled.tile_overhead_us = 0.5;
  tiled.tile_serial_bytes = 1e4;
  works.push_back(tiled);
  for (const Work& w : works) {
    ProgramBuilder b;
    b.kernel("k", 0, w);
    CHECK(solo_time_us(hw, b.p.kernels[0]) == Approx(Engine(hw).run(b.p).makespan_us));
  }
}

namespace {
// Stream 0: a GEMM-like kernel of 8 equal CTAs (8e7 FLOPs at 1e6 per us per SM: 80 us of work on
// one SM; with R CTAs resident it takes ceil(8 / R) waves of 10 us); launched first. Stream 1: a
// kernel of 2 CTAs (1e7 FLOPs: 10 us on one SM, 5 us on two). 4 SMs, one CTA per SM.
// `persistent`: the first kernel's grid is 4 CTAs looping over its 8 tiles instead.
double two_streams_us(double dispatch_share, bool persistent) {
  Hardware hw = toy_gpu(4);
  hw.sm.dispatch_share = dispatch_share;
  ProgramBuilder b(2);
  Work big = compute_work(8e7, persistent ? 4 : 8);
  big.tiles = 8;
  b.kernel("big", 0, big);
  b.kernel("small", 1, compute_work(1e7, 2));
  return Engine(hw).run(b.p).makespan_us;
}
}  // namespace

TEST_CASE("dispatch in launch order: a later kernel waits for a multi-wave grid's last CTA",
          "[coresidency][dispatch]") {
  // dispatch_share 0 (Hopper's block scheduler): the big kernel holds all 4 SMs for its 2 waves
  // (2 x 10 us = 20 us); the small one then runs 5 us on 2 SMs: 25 us.
  CHECK(two_streams_us(0.0, false) == Approx(25.0));
}

TEST_CASE("dispatch in turn: a waiting stream gets its share as a multi-wave grid's CTAs retire",
          "[coresidency][dispatch]") {
  // dispatch_share 1, two streams holding or waiting for SMs: the small kernel gets 4 / 2 = 2 SMs
  // at once and ends at 5 us. The big kernel runs on the other 2 (4 waves: 40 us for all of it),
  // so by 5 us it has done 5 / 40 = 1/8; back on 4 SMs (20 us for all) the other 7/8 take
  // 17.5 us: 22.5 us in all, against 25 in launch order.
  CHECK(two_streams_us(1.0, false) == Approx(22.5));
  // dispatch_share 0.5: 0.5 x 4 / 2 = 1 SM for the small kernel (2 waves of 5 us: 10 us); the big
  // one on 3 SMs (3 waves: 30 us for all) does 1/3 by then; the other 2/3 on 4 SMs take 13.33 us.
  CHECK(two_streams_us(0.5, false) == Approx(10.0 + 20.0 * 2.0 / 3.0));
}

TEST_CASE("a persistent grid has no CTAs left to hand over: the later kernel waits",
          "[coresidency][dispatch]") {
  // The same work in 4 persistent CTAs (one per SM, looping over 8 tiles): nothing retires before
  // the end, so even dispatch in turn leaves the small kernel waiting: 20 + 5 us.
  CHECK(two_streams_us(1.0, true) == Approx(25.0));
}
