// Max-min fair sharing: inequalities and expected shares stated before each assertion.
#include <catch2/catch.hpp>

#include "sim/engine/share_solver.hpp"

using ovs::ShareSolver;

TEST_CASE("equal demands on one resource split it equally", "[solver]") {
  ShareSolver s(1);
  s.set_capacities({10.0});
  const double u = 1.0;
  s.add(100.0, &u);
  s.add(100.0, &u);
  s.solve();
  // x1 + x2 <= 10, both want 100: 5 and 5.
  CHECK(s.rate()[0] == Approx(5.0));
  CHECK(s.rate()[1] == Approx(5.0));
}

TEST_CASE("a consumer that wants less than its share gets all it wants", "[solver]") {
  ShareSolver s(1);
  s.set_capacities({10.0});
  const double u = 1.0;
  s.add(2.0, &u);
  s.add(100.0, &u);
  s.solve();
  // Fair share 5 > 2: the first gets 2, the second the other 8.
  CHECK(s.rate()[0] == Approx(2.0));
  CHECK(s.rate()[1] == Approx(8.0));
}

TEST_CASE("bytes per unit of progress set the rate from the bandwidth share", "[solver]") {
  ShareSolver s(1);
  s.set_capacities({12.0});
  const double big = 4.0, small = 2.0;
  s.add(100.0, &big);
  s.add(100.0, &small);
  s.solve();
  // Max-min in bytes: 6 B each; rates 6/4 = 1.5 and 6/2 = 3.
  CHECK(s.rate()[0] == Approx(1.5));
  CHECK(s.rate()[1] == Approx(3.0));
}

TEST_CASE("a consumer limited on one resource leaves the other to its neighbour", "[solver]") {
  ShareSolver s(2);
  s.set_capacities({10.0, 10.0});
  const double a[2] = {1.0, 1.0};  // uses both
  const double b[2] = {0.0, 1.0};  // uses the second only
  const double c[2] = {1.0, 0.0};  // uses the first only
  s.add(100.0, a);
  s.add(100.0, b);
  s.add(100.0, c);
  s.solve();
  // Level rises together: each resource has two users, both saturate at 5 each.
  CHECK(s.rate()[0] == Approx(5.0));
  CHECK(s.rate()[1] == Approx(5.0));
  CHECK(s.rate()[2] == Approx(5.0));
}

TEST_CASE("a consumer using no shared resource runs at its ceiling", "[solver]") {
  ShareSolver s(1);
  s.set_capacities({1.0});
  const double none = 0.0;
  s.add(7.0, &none);
  s.solve();
  CHECK(s.rate()[0] == Approx(7.0));
}
