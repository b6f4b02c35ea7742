// Every flag is checked when the command line is parsed: one line naming the flag and what it
// must be, exit code 2, before anything runs. Unknown commands and flags get the nearest name;
// --version prints the version CMake was given; a sweep spec's field paths are checked against
// the files they override before the first point runs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "helpers.hpp"

using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

// The what-if flags every case starts from (all valid).
std::vector<std::string> whatif_with(const std::string& flag, const std::string& value) {
  std::vector<std::string> args{"whatif", "--strategy", "tbo-decode"};
  std::map<std::string, std::string> v{
      {"--tokens-per-gpu", "8"}, {"--context", "1024"}, {"--ep", "16"}};
  v[flag] = value;
  for (const auto& [f, x] : v) {
    args.push_back(f);
    args.push_back(x);
  }
  return args;
}

void expect_refused(const std::vector<std::string>& args, const std::string& needle) {
  const CliResult r = cli(args);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("positive whole-number flags say 'must be a whole number >= 1'", "[bad-input][flags]") {
  for (const char* flag :
       {"--tokens-per-gpu", "--context", "--ep", "--gpus-per-node", "--decode-q-len"}) {
    for (const char* value : {"0", "-5"})
      expect_refused(whatif_with(flag, value),
                     std::string(flag) + ": must be a whole number >= 1 (got " + value + ")");
    expect_refused(whatif_with(flag, "abc"),
                   std::string(flag) + ": must be a whole number >= 1 (got 'abc')");
    expect_refused(whatif_with(flag, "2.5"),
                   std::string(flag) + ": must be a whole number >= 1 (got '2.5')");
  }
  // Above what the field holds: said, not wrapped around.
  expect_refused(whatif_with("--ep", "3000000000"), "--ep: must be at most 2147483647");
  // Search and kernel flags use the same checks.
  expect_refused({"search", "--tokens-per-gpu", "0", "--context", "8", "--ep", "8"},
                 "--tokens-per-gpu: must be a whole number >= 1 (got 0)");
  expect_refused({"search", "--tokens-per-gpu", "8", "--context", "8", "--ep", "8", "--top", "0"},
                 "--top: must be a whole number >= 1 (got 0)");
  expect_refused({"kernel", "--gemm", "64,0,7168"}, "--gemm: must be a whole number >= 1 (got 0)");
  expect_refused({"kernel", "--deepep", "normal", "--tokens", "-1"},
                 "--tokens: must be a whole number >= 1 (got -1)");
}

TEST_CASE("real-number flags and choices say what they accept", "[bad-input][flags]") {
  expect_refused(whatif_with("--imbalance", "0.5"), "--imbalance: must be a number >= 1 (got 0.5)");
  expect_refused(whatif_with("--imbalance", "nan"), "--imbalance: must be a number >= 1 (got nan)");
  expect_refused(whatif_with("--phase", "prefil"),
                 "--phase: unknown value 'prefil' (did you mean 'prefill'?)");
  expect_refused(whatif_with("--deepep-mode", "low-latency"),
                 "--deepep-mode: unknown value 'low-latency' (did you mean 'low_latency'?)");
  expect_refused({"import-trace", "x.json", "--max-host-gap-us", "-1"},
                 "--max-host-gap-us: must be a number >= 0 (got -1)");
}

TEST_CASE("sweep -j is between 1 and four threads per core", "[bad-input][flags]") {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int limit = std::max(4, 4 * cores);
  for (const char* j : {"0", "-3"})
    expect_refused({"sweep", "spec.yaml", "--out", "x.csv", "-j", j},
                   std::string("--jobs: must be a whole number >= 1 (got ") + j + ")");
  expect_refused({"sweep", "spec.yaml", "--out", "x.csv", "-j", "10000"},
                 "--jobs: must be at most " + std::to_string(limit) + " (got 10000)");
  expect_refused({"sweep", "spec.yaml", "--out", "x.csv", "--shard", "3/3"},
                 "--shard: expected i/N with 0 <= i < N (got '3/3')");
  expect_refused({"sweep", "spec.yaml", "--out", "x.csv", "--shard", "1-3"},
                 "--shard: expected i/N");
}

TEST_CASE("an unknown command or flag gets the nearest name", "[bad-input][flags]") {
  expect_refused({"swep", "spec.yaml"}, "unknown command 'swep' (did you mean 'sweep'?)");
  expect_refused({"whatiff"}, "unknown command 'whatiff' (did you mean 'whatif'?)");
  // A misspelt flag is named even when CLI11 first notices the required flag it replaced.
  expect_refused(
      {"whatif", "--strategy", "sbo", "--tokns-per-gpu", "8", "--context", "8", "--ep", "8"},
      "unknown flag '--tokns-per-gpu' (did you mean '--tokens-per-gpu'?)");
}

TEST_CASE("a run registers only the command it names; --help lists the same commands", "[flags]") {
  // --help registers every command: its "Subcommands:" list is the table run_cli dispatches on.
  const CliResult all = cli({"--help"});
  REQUIRE(all.code == 0);
  const std::string listed = all.out.substr(all.out.find("Subcommands:"));
  std::vector<std::string> names;
  std::istringstream lines(listed);
  for (std::string line; std::getline(lines, line);)
    if (line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ')
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
  CHECK(names == ovs::command_table_names());
  // Each command alone: its own help, and nothing of another command.
  for (const auto& name : ovs::command_table_names()) {
    INFO(name);
    const CliResult r = cli({name, std::string("--help")});
    CHECK(r.code == 0);
    CHECK(r.out.find("Usage: overlapsim " + name) != std::string::npos);
  }
}

TEST_CASE("overlapsim --version prints the version CMake was given", "[flags]") {
  std::ifstream in(source_path("CMakeLists.txt"));
  const std::string cmake(std::istreambuf_iterator<char>(in), {});
  std::smatch m;
  REQUIRE(std::regex_search(cmake, m, std::regex(R"(project\(overlapsim VERSION ([0-9.]+))")));
  const CliResult r = cli({"--version"});
  CHECK(r.code == 0);
  CHECK(r.out == "overlapsim " + m[1].str() + "\n");
}

TEST_CASE("a sweep spec's field paths are checked against the files at load",
          "[bad-input][flags][sweep]") {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests" / "flags";
  fs::create_directories(dir);
  auto run = [&](const std::string& name, const std::string& text) {
    const fs::path spec = dir / (name + ".yaml"), out = dir / (name + ".csv");
    std::ofstream(spec) << text;
    fs::remove(out);
    const CliResult r = cli({"sweep", spec.string(), "--out", out.string(), "-q"});
    CHECK_FALSE(fs::exists(out));
    return std::make_pair(spec.string(), r);
  };
  const std::string base =
      "name: x\n"
      "base: {model: deepseek-v3, hw: h800-sxm, context: 64, ep: 16, tokens_per_gpu: 8}\n";
  {
    const auto [spec, r] =
        run("hw-typo", base +
                           "axes:\n  - {field: hw.hbm.peek_gbps, values: [1000]}\n"
                           "strategies: [sbo]\n");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("error: " + spec + ":4: field 'axes[0].field': no field 'hbm.peek_gbps'",
                      0) == 0);
    CHECK(r.err.find("did you mean 'hbm.peak_gbps'") != std::string::npos);
  }
  {
    const auto [spec, r] = run("model-typo", base +
                                                 "axes:\n  - {field: model.moe.top_k, values: "
                                                 "[4]}\nstrategies: [sbo]\n");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(":4: field 'axes[0].field': no field 'moe.top_k'") != std::string::npos);
    CHECK(r.err.find("did you mean 'moe.topk'") != std::string::npos);
  }
  {
    // A path to a section, not a single value.
    const auto [spec, r] = run("hw-section", base +
                                                 "axes:\n  - {field: hw.hbm, values: [1]}\n"
                                                 "strategies: [sbo]\n");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("no field 'hbm'") != std::string::npos);
  }
  {
    // The same path in a base field.
    const auto [spec, r] =
        run("base-typo",
            "name: x\nbase: {model: deepseek-v3, hw: h800-sxm, context: 64, ep: 16, "
            "tokens_per_gpu: 8, hw.links.rdma.gbs: 25}\nstrategies: [sbo]\n");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(":2: field 'base.hw.links.rdma.gbs'") != std::string::npos);
  }
}
