// The layer benchmark's shipped plans (calibrate/layer-plans/, scripts/export-layer-plans.sh) are
// what the exporter writes today: a GPU run measures the programs the engine predicts now. A cost
// model change that moves them fails here until the script is run again.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include "helpers.hpp"
#include "sim/io/bench_plan.hpp"

namespace ovs {
namespace {

using namespace ovs::test;

TEST_CASE("LayerPlans: shipped plans are current", "[layer-export]") {
  const auto prefix = scratch_path("layer-plans", "decode-64");
  // The script's decode point at 64 requests per GPU, with two-batch overlap.
  const CliResult r =
      cli({"whatif", "--model", "deepseek-v3", "--hw", "h200-sxm", "--phase", "decode",
           "--tokens-per-gpu", "64", "--context", "4096", "--ep", "32", "--strategy", "tbo-decode",
           "--no-alternatives", "--export-layers", prefix.string()});
  REQUIRE(r.code == 0);
  for (const char* file : {"decode-64-no-overlap.plan", "decode-64-no-overlap.yaml",
                           "decode-64-tbo-decode.plan", "decode-64-tbo-decode.yaml"}) {
    const std::string shipped = file_bytes(source_path("calibrate/layer-plans/h200-sxm/") + file);
    REQUIRE_FALSE(shipped.empty());
    CHECK(file_bytes(prefix.parent_path() / file) == shipped);
  }
}

}  // namespace
}  // namespace ovs

namespace ovs {
namespace {

using namespace ovs::test;

// The README's table of the layer benchmark's predictions ("Layers on silicon") is what the
// shipped plans predict: per layer = the plan's window / its layers, ratio = the strategy's
// window / the same point's no-overlap window, to the table's three decimals.
TEST_CASE("LayerPlans: the README's prediction table is the shipped plans'", "[layer-export]") {
  auto plan_of = [](const std::string& hw, const std::string& stem) {
    return bench_plan::load(source_path("calibrate/layer-plans/" + hw + "/" + stem + ".plan"));
  };
  std::ifstream readme(source_path("README.md"));
  const std::regex row(
      R"(^\| (h\d00-sxm) \| `((decode|prefill)-\d+)-([a-z-]+)` \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| (\d+) / (\d+) \|$)");
  int rows = 0;
  for (std::string line; std::getline(readme, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    ++rows;
    INFO(line);
    const bench_plan::Plan serial = plan_of(m[1], std::string(m[2]) + "-no-overlap");
    const bench_plan::Plan s = plan_of(m[1], std::string(m[2]) + "-" + std::string(m[4]));
    const double serial_us = serial.predicted.at("window_us"), us = s.predicted.at("window_us");
    CHECK(fmt::format("{:.3f}", serial_us / serial.layers / 1000) == m[5].str());
    CHECK(fmt::format("{:.3f}", us / s.layers / 1000) == m[6].str());
    CHECK(fmt::format("{:.3f}", us / serial_us) == m[7].str());
    CHECK(std::to_string(serial.kernels.size()) == m[8].str());
    CHECK(std::to_string(s.kernels.size()) == m[9].str());
  }
  CHECK(rows == 10);
}

}  // namespace
}  // namespace ovs
