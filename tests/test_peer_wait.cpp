// A collective kernel waits for the rank that reached its barrier earliest (Work::peer_lead_us):
// that rank's compute stream is up to the lead ahead, and a kernel there that fills every SM
// keeps its copy of the collective off the SMs until it ends (engine.cpp, peer_wait_us).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

// Toy GPU of 100 SMs at 1e6 BF16 FLOP/us each. Stream 0: `capped` on 80 SMs for 100 us, then
// `full` on all 100 SMs for 50 us. Stream 1: a collective on 20 SMs with 10 us of latency and
// the given lead, launched at t = 0 (the 20 SMs `capped` leaves are free).
double collective_us(double lead_us) {
  ProgramBuilder b(2);
  KernelSpec capped;
  capped.name = "capped";
  capped.stream = 0;
  capped.work = compute_work(100.0 * 80 * 1e6, 80);
  capped.sm_cap = 80;
  b.add(capped);
  b.kernel("full", 0, compute_work(50.0 * 100 * 1e6, 100));
  KernelSpec c;
  c.name = "collective";
  c.stream = 1;
  c.fixed_sms = 20;
  c.work.ctas = 20;
  c.work.fixed_latency_us = 10;
  c.work.peer_lead_us = lead_us;
  const int id = b.add(c);
  Timeline tl(b.p);
  Engine(toy_gpu()).run(b.p, &tl);
  return tl.kernels()[size_t(id)].duration_us();
}

}  // namespace

TEST_CASE("a collective waits for the earliest rank's full-grid kernel within its lead",
          "[engine][many-ranks]") {
  // No lead: the collective runs beside the capped kernel, 10 us.
  CHECK(collective_us(0) == Approx(10).margin(0.01));
  // A lead that ends before `full` starts (at 100 us): the earliest rank is still inside
  // `capped`, which leaves its 20 SMs free - no wait.
  CHECK(collective_us(90) == Approx(10).margin(0.01));
  // A lead past 100 us: on the earliest rank `full` has started and holds every SM for its 50
  // us; its copy of the collective starts when `full` ends, and this one waits as long.
  CHECK(collective_us(120) == Approx(10 + 50).margin(0.01));
  // A longer lead waits no longer: the wait is at most the blocking kernel's length.
  CHECK(collective_us(400) == Approx(10 + 50).margin(0.01));
}
