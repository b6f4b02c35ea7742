// Determinism: the same inputs give byte-identical JSON, CSV and traces run after run (ties in
// the engine break by time, priority and launch order; sums are taken in a fixed order).
// Across -j: tests/test_sweep.cpp; across builds: .ci/run compares release and sanitizer outputs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"

using namespace ovs::test;
namespace fs = std::filesystem;

TEST_CASE("whatif JSON and its trace are byte-identical run after run", "[determinism]") {
  for (const char* model : {"deepseek-v3", "deepseek-v4-pro"}) {
    std::vector<std::string> args{
        "whatif", "--model",          model,        "--hw",      "h800-sxm", "--phase",
        "decode", "--tokens-per-gpu", "48",         "--context", "4096",     "--ep",
        "32",     "--strategy",       "tbo-decode", "--json",    "--trace"};
    auto a = args, b = args;
    a.push_back(scratch_path("determinism", "a.json").string());
    b.push_back(scratch_path("determinism", "b.json").string());
    const CliResult ra = cli(a), rb = cli(b);
    REQUIRE(ra.code == 0);
    CHECK(ra.out == rb.out);
    CHECK(file_bytes(scratch_path("determinism", "a.json")) ==
          file_bytes(scratch_path("determinism", "b.json")));
  }
}

TEST_CASE("explain, kernel and validate output are byte-identical run after run", "[determinism]") {
  const std::vector<std::vector<std::string>> cmds{
      {"whatif", "--model", "deepseek-v3", "--hw", "b200", "--phase", "prefill", "--tokens-per-gpu",
       "4096", "--context", "4096", "--ep", "16", "--strategy", "tbo-prefill", "--explain",
       "--json"},
      {"kernel", "--hw", "mi355x", "--gemm", "3000,7168,2048", "--groups", "8", "--layout",
       "masked", "--json"},
      {"validate", source_path("calibrate/published/deepep.csv"), "--hw", "h800-sxm", "--json"}};
  for (const auto& c : cmds) {
    const CliResult a = cli(c), b = cli(c);
    REQUIRE(a.code == 0);
    CHECK(a.out == b.out);
  }
}

TEST_CASE("search picks and writes the same strategy run after run", "[determinism]") {
  const std::vector<std::string> args{
      "search",           "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "decode",
      "--tokens-per-gpu", "96",      "--context",   "2048", "--ep",     "32",      "--out"};
  auto a = args, b = args;
  a.push_back(scratch_path("determinism", "s1.yaml").string());
  b.push_back(scratch_path("determinism", "s2.yaml").string());
  const CliResult ra = cli(a), rb = cli(b);
  REQUIRE(ra.code == 0);
  CHECK(file_bytes(scratch_path("determinism", "s1.yaml")) ==
        file_bytes(scratch_path("determinism", "s2.yaml")));
}
