// The layer benchmark's shipped plans (calibrate/layer-plans/, scripts/export-layer-plans.sh) are
// what the exporter writes today: a GPU run measures the programs the engine predicts now. A cost
// model change that moves them fails here until the script is run again.
#include <catch2/catch.hpp>

#include "helpers.hpp"

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
