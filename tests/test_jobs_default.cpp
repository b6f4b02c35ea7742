// -j: without it, sweep and plan run on every core the machine reports (their --help says "all
// cores"); with it, on exactly that many threads. The default is decided in one place,
// resolve_jobs (app/sweep/threads.hpp), which run_sweep and run_plan both call.
#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "app/plan/plan.hpp"
#include "app/sweep/sweep_runner.hpp"
#include "app/sweep/threads.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

// What the standard library reports, at least 1 (hardware_concurrency may say 0: "unknown").
int cores() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

TEST_CASE("without -j, sweep and plan resolve to the machine's core count", "[flags][jobs]") {
  // SweepOptions and PlanRequest are what the CLI fills from the flags; without -j their jobs
  // field keeps its default, and the runners resolve that to the threads they start.
  CHECK(all_cores() == cores());
  CHECK(resolve_jobs(SweepOptions{}.jobs) == cores());
  CHECK(resolve_jobs(PlanRequest{}.jobs) == cores());
}

TEST_CASE("with -j N, sweep and plan run N threads", "[flags][jobs]") {
  for (int n : {1, 2, 3, 4 * cores()}) CHECK(resolve_jobs(n) == n);
}

TEST_CASE("sweep --help and plan --help name the core count the default resolves to",
          "[flags][jobs]") {
  const std::string words = "default: all cores, " + std::to_string(cores()) + " here";
  for (const char* cmd : {"sweep", "plan"}) {
    const CliResult r = cli({cmd, "--help"});
    INFO(cmd << ": " << r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find(words) != std::string::npos);
  }
}
