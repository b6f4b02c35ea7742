// The engine's physics on the toy GPU (tests/helpers.hpp): each expected value is worked out in
// the comment above its assertion.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "sim/engine/kernel_model.hpp"
#include "sim/engine/timeline.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {
double makespan(const Hardware& hw, const Program& p) {
  return Engine(hw).run(p).makespan_us;
}

// `p`'s makespan on the toy GPU as written, and with its kernels serialized.
void check_makespans(const Program& p, double as_written_us, double serialized_us) {
  const Engine e(toy_gpu());
  CHECK(e.run(p).makespan_us == Approx(as_written_us));
  CHECK(e.run(serialized(p)).makespan_us == Approx(serialized_us));
}
}  // namespace

TEST_CASE("a compute-bound kernel runs at SMs x per-SM peak", "[engine]") {
  ProgramBuilder b;
  b.kernel("gemm", 0, compute_work(1e9, 100));
  // 1e9 FLOP / (100 SMs x 1e6 FLOP/us) = 10 us.
  CHECK(makespan(toy_gpu(), b.p) == Approx(10.0));
}

TEST_CASE("a CUDA graph's kernel node starts graph_kernel_saving_us sooner", "[engine]") {
  // Two kernels back to back on one stream, each 1e7 B of HBM traffic (10 us at 1e6 B/us) after
  // a fixed latency of 2 us; no host launch cost.
  auto run = [](LaunchMode mode, double saving) {
    Hardware hw = toy_gpu();
    hw.graph_kernel_saving_us = saving;
    ProgramBuilder b;
    b.p.launch_mode = mode;
    for (const char* name : {"a", "b"}) {
      Work w = memory_work(1e7, 100);
      w.fixed_latency_us = 2.0;
      b.kernel(name, 0, w);
    }
    return makespan(hw, b.p);
  };
  CHECK(run(LaunchMode::eager, 0.75) == Approx(24.0));  // 2 x (2 + 10): eager pays it all
  CHECK(run(LaunchMode::graph, 0.0) == Approx(24.0));   // nothing saved
  CHECK(run(LaunchMode::graph, 0.75) == Approx(22.5));  // 2 x (2 - 0.75 + 10)
  CHECK(run(LaunchMode::graph, 3.0) == Approx(20.0));   // never below no latency: 2 x 10
  // The solo time the degradation accounting uses agrees with the run.
  Hardware hw = toy_gpu();
  hw.graph_kernel_saving_us = 0.75;
  KernelSpec k;
  k.work = memory_work(1e7, 100);
  k.work.fixed_latency_us = 2.0;
  CHECK(solo_time_us(hw, k, LaunchMode::graph) == Approx(11.25));
  CHECK(solo_time_us(hw, k) == Approx(12.0));
}

TEST_CASE("a memory-bound kernel runs at HBM bandwidth", "[engine]") {
  ProgramBuilder b;
  b.kernel("copy", 0, memory_work(1e8, 100));
  // 1e8 B / 1e6 B/us = 100 us.
  CHECK(makespan(toy_gpu(), b.p) == Approx(100.0));
}

TEST_CASE("a kernel on few SMs cannot pull the whole HBM bandwidth", "[engine]") {
  ProgramBuilder b;
  b.kernel("copy", 0, memory_work(1e8, 10));
  // 10 SMs of the 50 that saturate HBM: 1e6 x 10/50 = 2e5 B/us; 1e8 / 2e5 = 500 us.
  CHECK(makespan(toy_gpu(), b.p) == Approx(500.0));
}

TEST_CASE("wave quantization: one CTA more than the SMs costs a second wave", "[engine]") {
  ProgramBuilder b;
  // 101 CTAs on 100 SMs: 2 waves, an average of 101/2 = 50.5 busy SMs.
  // 1.01e9 FLOP / (50.5 x 1e6) = 20 us, twice the 10 us of 100 CTAs doing 1e9 FLOP.
  b.kernel("gemm", 0, compute_work(1.01e9, 101));
  CHECK(makespan(toy_gpu(), b.p) == Approx(20.0));
}

TEST_CASE("two memory-bound kernels on two streams gain nothing over serial", "[engine]") {
  ProgramBuilder b(2);
  b.kernel("a", 0, memory_work(1e8, 50));
  b.kernel("b", 1, memory_work(1e8, 50));
  // Both run at once on 50 SMs each, HBM split 5e5 / 5e5 B/us: both end at 1e8 / 5e5 = 200 us,
  // the serial sum 100 + 100.
  check_makespans(b.p, 200.0, 200.0);
}

TEST_CASE("compute-bound beside memory-bound: close to the max, not the sum", "[engine]") {
  ProgramBuilder b(2);
  // gemm: 5e9 FLOP on 50 SMs = 100 us; it wants 1e7 B / 100 us = 1e5 B/us of HBM.
  b.kernel("gemm", 0, compute_work(5e9, 50, 1e7));
  // stream: 1e8 B on 50 SMs = 100 us alone.
  b.kernel("stream", 1, memory_work(1e8, 50));
  // Together: max-min fair HBM gives the gemm all of its 1e5 (less than half) and the stream
  // the other 9e5 B/us. The gemm ends at 100 us; the stream has done 9e7 B, the last 1e7 B
  // take 10 us at 1e6: 110 us, against a serial 200 us.
  check_makespans(b.p, 110.0, 200.0);
}

TEST_CASE("two full-grid compute-bound kernels only time-share", "[engine]") {
  ProgramBuilder b(2);
  b.kernel("g1", 0, compute_work(1e9, 100));
  b.kernel("g2", 1, compute_work(1e9, 100));
  // g1 takes all 100 SMs; g2 gets SMs only as g1 drains: 10 + 10 = 20 us, as serial.
  Timeline tl(b.p);
  CHECK(Engine(toy_gpu()).run(b.p, &tl).makespan_us == Approx(20.0));
  CHECK(tl.kernels()[1].start_us == Approx(10.0));
}

TEST_CASE("a 1-CTA kernel beside a big GEMM is hidden", "[engine]") {
  ProgramBuilder b(2);
  // gemm: 96 CTAs on 96 SMs, 9.6e9 FLOP / 96e6 = 100 us; 4 SMs stay free.
  b.kernel("gemm", 0, compute_work(9.6e9, 96));
  // tiny: 1 CTA reading 1e6 B at 1e6 x 1/50 = 2e4 B/us: 50 us, on a free SM.
  b.kernel("tiny", 1, memory_work(1e6, 1));
  check_makespans(b.p, 100.0, 150.0);
}

TEST_CASE("100 tiny kernels behind a 4 us launch are host-bound", "[engine]") {
  ProgramBuilder b;
  for (int i = 0; i < 100; ++i) b.kernel("tiny", 0, memory_work(1e3, 1), 4.0);
  // Each kernel: 1e3 B at 2e4 B/us = 0.05 us. The host needs 4 us per launch, so the last
  // kernel is enqueued at 400 us and ends at 400.05 us; the GPU is busy 100 x 0.05 = 5 us.
  Timeline tl(b.p);
  const RunResult r = Engine(toy_gpu()).run(b.p, &tl);
  CHECK(r.makespan_us == Approx(400.05));
  CHECK(r.host_busy_us == Approx(400.0));
  CHECK(tl.gpu_busy_us() == Approx(5.0));
  CHECK(tl.gpu_busy_us() / r.makespan_us < 0.02);
}

TEST_CASE("a communication kernel holding 20 SMs leaves 112 of 132 to compute", "[engine]") {
  ProgramBuilder b(2);
  KernelSpec comm;
  comm.name = "dispatch";
  comm.stream = 1;
  comm.fixed_sms = 20;
  comm.work.link_bytes[0] = 1e7;  // 1e7 B at 1e5 B/us = 100 us, after 2 us of link latency
  b.add(comm);
  b.kernel("gemm", 0, compute_work(1.32e10, 132));
  Timeline tl(b.p);
  const RunResult r = Engine(toy_gpu(132)).run(b.p, &tl);
  const auto& g = tl.kernels()[1];
  REQUIRE(g.sms.size() == 2);
  CHECK(g.sms[0].second == 112);  // 132 - 20
  CHECK(g.sms[1].first == Approx(102.0));
  CHECK(g.sms[1].second == 132);  // grows when the dispatch drains
  // 132 CTAs on 112 SMs take 2 waves: 132/2 = 66 busy SMs, 66e6 FLOP/us for 102 us = 6.732e9.
  // The remaining 6.468e9 on 132 SMs (one wave) take 6.468e9 / 132e6 = 49 us: ends at 151 us.
  CHECK(r.makespan_us == Approx(151.0));
}

TEST_CASE("kernels on one stream run in order; a wait holds a stream until its event", "[engine]") {
  ProgramBuilder b(2);
  b.given("k1", 0, 10.0);
  b.given("k2", 0, 5.0);
  b.record("e", 0);
  b.wait("e", 1);
  b.given("k3", 1, 7.0);
  Timeline tl(b.p);
  const RunResult r = Engine(toy_gpu()).run(b.p, &tl);
  // k2 follows k1 on stream 0 (10 -> 15); e fires at 15; k3 starts then and ends at 22.
  CHECK(tl.kernels()[1].start_us == Approx(10.0));
  CHECK(tl.kernels()[2].start_us == Approx(15.0));
  CHECK(r.makespan_us == Approx(22.0));
}

TEST_CASE("a host block on an event delays every later launch", "[engine]") {
  ProgramBuilder b(2);
  b.given("k1", 0, 10.0, 0, 1.0);
  b.record("counts", 0);
  b.block("counts");
  b.given("k2", 1, 3.0, 0, 1.0);
  Timeline tl(b.p);
  const RunResult r = Engine(toy_gpu()).run(b.p, &tl);
  // k1 enqueued at 1 us (launch), runs 1 -> 11; the host is blocked 1 -> 11, then launches k2
  // (1 us): k2 runs 12 -> 15.
  CHECK(r.host_blocked_us == Approx(10.0));
  CHECK(tl.kernels()[1].start_us == Approx(12.0));
  CHECK(r.makespan_us == Approx(15.0));
}

TEST_CASE("given-duration kernels on fewer SMs than they need slow down in proportion",
          "[engine]") {
  ProgramBuilder b(2);
  b.given("big", 0, 100.0, 80);
  b.given("other", 1, 10.0, 40);
  // big holds 80 SMs, other gets the 20 left of its 40: half speed until big ends at 100 us,
  // by then done -> 10 us at half speed = 20 us. Ends at 20.
  Timeline tl(b.p);
  Engine(toy_gpu()).run(b.p, &tl);
  CHECK(tl.kernels()[1].end_us == Approx(20.0));
}

TEST_CASE("links: latency first, then bytes at the link's bandwidth, shared fairly", "[engine]") {
  ProgramBuilder b(2);
  Work w;
  w.ctas = 0;  // an RDMA transfer in flight holds no SM
  w.link_bytes[1] = 5e6;
  KernelSpec t1;
  t1.name = "t1";
  t1.stream = 0;
  t1.work = w;
  KernelSpec t2 = t1;
  t2.name = "t2";
  t2.stream = 1;
  b.add(t1);
  b.add(t2);
  // RDMA 5e4 B/us shared by two transfers: 2.5e4 each; 5e6 / 2.5e4 = 200 us, after 5 us latency.
  CHECK(makespan(toy_gpu(), b.p) == Approx(205.0));
}

TEST_CASE("an SM cap limits a compute kernel", "[engine]") {
  ProgramBuilder b;
  KernelSpec k;
  k.name = "gemm";
  k.work = compute_work(1e9, 100);
  k.sm_cap = 50;
  b.add(k);
  // 100 CTAs on 50 SMs: 2 waves of 50, 50 busy SMs: 1e9 / 50e6 = 20 us.
  CHECK(makespan(toy_gpu(), b.p) == Approx(20.0));
}

TEST_CASE("fixed latency is paid before the work", "[engine]") {
  ProgramBuilder b;
  Work w = memory_work(1e8, 100);
  w.fixed_latency_us = 3;
  b.kernel("copy", 0, w);
  CHECK(makespan(toy_gpu(), b.p) == Approx(103.0));
}

TEST_CASE("the engine refuses work the hardware cannot do", "[engine]") {
  ProgramBuilder b;
  Work w;
  w.tensor_flops[2] = 1e9;  // fp4 on a GPU whose fp4 peak is 0
  b.kernel("fp4", 0, w);
  CHECK_THROWS_AS(Engine(toy_gpu()).run(b.p), SimulationError);
}

TEST_CASE("a wait on an event never recorded is rejected, not hung on", "[engine]") {
  ProgramBuilder b(2);
  b.given("k", 0, 1.0);
  b.wait("never", 1);
  CHECK_THROWS_AS(Engine(toy_gpu()).run(b.p), std::invalid_argument);
}

TEST_CASE("ties break deterministically: same program, same timeline", "[engine]") {
  ProgramBuilder b(3);
  for (int i = 0; i < 30; ++i)
    b.kernel("k" + std::to_string(i), i % 3, memory_work(1e6 * (1 + i % 4), 40));
  Timeline t1(b.p), t2(b.p);
  Engine(toy_gpu()).run(b.p, &t1);
  Engine(toy_gpu()).run(b.p, &t2);
  for (size_t i = 0; i < b.p.kernels.size(); ++i) {
    CHECK(t1.kernels()[i].start_us == t2.kernels()[i].start_us);
    CHECK(t1.kernels()[i].end_us == t2.kernels()[i].end_us);
  }
}
