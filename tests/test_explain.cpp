// explain: the critical path covers the forward; exposed communication shrinks where overlap hides
// it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/analysis/explain.hpp"
#include "helpers.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;

TEST_CASE("the critical path accounts for the whole overlapped forward", "[explain]") {
  const WhatIfRequest r = whatif_request("deepseek-v3", "h800-sxm",
                                         workload(Phase::decode, 128, 4096, 32), "tbo-decode");
  const Explanation e = explain(r);
  double sum = 0;
  for (const auto& p : e.critical_path) sum += p.us;
  // The walk ends at the first kernel; what precedes it is the host's first launches.
  CHECK(sum == Approx(e.critical_path_us).epsilon(0.01));
  CHECK(e.critical_path_us == Approx(e.whatif.overlapped.total_us).epsilon(0.001));
  // TBO hides the dispatch: less of it is exposed than without overlap.
  CHECK(e.exposed_by_op.at("dispatch_a").second < 0.2 * e.exposed_by_op.at("dispatch_a").first);
  // Five stages per layer plus the merged tail: every stage used some SMs.
  REQUIRE(e.stages.size() >= 5);
  for (const auto& s : e.stages) CHECK(s.window_us > 0);
}

TEST_CASE("whatif --explain --json has the sections", "[explain][cli]") {
  const CliResult c = cli({"whatif", "--model", "deepseek-v4-pro", "--hw", "h800-sxm", "--phase",
                           "decode", "--tokens-per-gpu", "32", "--context", "4096", "--ep", "32",
                           "--strategy", "multistream", "--explain", "--json"});
  REQUIRE(c.code == 0);
  const auto j = nlohmann::json::parse(c.out);
  for (const char* k : {"critical_path_us", "critical_path", "exposed_comm_by_op", "stages",
                        "degradation", "verdict"})
    CHECK(j.contains(k));
}
