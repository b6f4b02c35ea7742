// L2 reuse: a tensor read while resident, or read by two kernels at once, costs L2 bytes.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "sim/engine/l2_tracker.hpp"
#include "sim/engine/timeline.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {
Work reader(double bytes, long long ctas) {
  Work w;
  w.ctas = ctas;
  w.reads.push_back({"hidden", bytes});
  return w;
}
}  // namespace

TEST_CASE("two kernels reading the same tensor at once: the second reads it from L2", "[l2]") {
  ProgramBuilder b(2);
  const double mib = 1024.0 * 1024.0;
  b.kernel("wqkv_a", 0, reader(56 * mib, 50));
  b.kernel("compressor", 1, reader(56 * mib, 50));
  Timeline tl(b.p);
  Engine(toy_gpu()).run(b.p, &tl);
  CHECK(tl.kernels()[0].traffic.hbm_bytes == Approx(56 * mib));
  CHECK(tl.kernels()[1].traffic.hbm_bytes == Approx(0.0));
  CHECK(tl.kernels()[1].traffic.l2_bytes == Approx(56 * mib));
}

TEST_CASE("a small tensor read right after is an L2 hit; after a big stream it is evicted",
          "[l2]") {
  const double mib = 1024.0 * 1024.0;
  ProgramBuilder b;
  b.kernel("first", 0, reader(10 * mib, 50));
  b.kernel("again", 0, reader(10 * mib, 50));        // 0 B streamed since: all resident
  b.kernel("evict", 0, memory_work(100 * mib, 50));  // 100 MiB through a 50 MiB L2
  b.kernel("late", 0, reader(10 * mib, 50));
  Timeline tl(b.p);
  Engine(toy_gpu()).run(b.p, &tl);
  CHECK(tl.kernels()[1].traffic.l2_bytes == Approx(10 * mib));
  CHECK(tl.kernels()[3].traffic.hbm_bytes == Approx(10 * mib));
}

TEST_CASE("partial residency is proportional to what the LRU window still holds", "[l2]") {
  const double mib = 1024.0 * 1024.0;
  ProgramBuilder b;
  b.kernel("first", 0, reader(20 * mib, 50));
  b.kernel("between", 0, memory_work(40 * mib, 50));
  b.kernel("again", 0, reader(20 * mib, 50));
  // 40 MiB streamed since the read; the 50 MiB window keeps (50 - 40) / 20 = half of it.
  Timeline tl(b.p);
  Engine(toy_gpu()).run(b.p, &tl);
  CHECK(tl.kernels()[2].traffic.l2_bytes == Approx(10 * mib));
  CHECK(tl.kernels()[2].traffic.hbm_bytes == Approx(10 * mib));
}

TEST_CASE("tensor ids: one per name and scope, for layer scopes and for any other scope", "[l2]") {
  // Layer scopes (-1 .. 4094) take the dense table, others (a program file may give any int) the
  // hash map; both must give one id per (name, scope), in the order first seen.
  L2Tracker l2(1e6);
  const int a = l2.intern("x", -1), b = l2.intern("x", 0), c = l2.intern("x", 5000),
            d = l2.intern("x", -7), e = l2.intern("y", 0);
  CHECK(std::vector<int>{a, b, c, d, e} == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(l2.intern("x", -1) == a);
  CHECK(l2.intern("x", 0) == b);
  CHECK(l2.intern("x", 5000) == c);
  CHECK(l2.intern("x", -7) == d);
  CHECK(l2.intern("y", 0) == e);
  CHECK(l2.intern("y", 4094) == 5);
}
