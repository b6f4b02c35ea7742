// Sweeps: rows equal the same points run one by one with whatif; identical bytes for any -j;
// resume after SIGKILL loses and repeats nothing; shards merge into the unsharded file;
// crossover interpolation; charts are well-formed SVG.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/sweep/crossover.hpp"
#include "app/sweep/svg_chart.hpp"
#include "helpers.hpp"
#include "sim/core/caches.hpp"
#include "sim/io/csv_reader.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

fs::path tmp(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests" / "sweep";
  fs::create_directories(dir);
  return dir / name;
}

const char* kSpec = R"(name: test-sweep
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, ep: 16}
axes:
  - {field: tokens_per_gpu, values: [8, 64, 256]}
  - {field: hw, values: [h800-sxm, h200-sxm]}
strategies: [tbo-decode, sbo]
)";

std::string write_spec(const std::string& name, const std::string& text) {
  const fs::path p = tmp(name);
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("a sweep's rows equal the same points run one by one with whatif", "[sweep]") {
  const std::string spec = write_spec("equal.yaml", kSpec);
  const fs::path out = tmp("equal.csv");
  REQUIRE(cli({"sweep", spec, "--out", out.string(), "-j", "2", "-q"}).code == 0);
  const CsvTable t = CsvTable::load(out.string());
  REQUIRE(t.rows() == 3 * 2 * 2);
  for (size_t i = 0; i < t.rows(); ++i) {
    const CliResult r = cli({"whatif", "--model", t.at(i, "model"), "--hw", t.at(i, "hw"),
                             "--phase", t.at(i, "phase"), "--tokens-per-gpu",
                             t.at(i, "tokens_per_gpu"), "--context", t.at(i, "context"), "--ep",
                             t.at(i, "ep"), "--strategy", t.at(i, "strategy"), "--json"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    for (const char* k :
         {"baseline_us", "overlapped_us", "speedup", "advantage_us", "degradation_us",
          "baseline_per_layer_us", "overlapped_per_layer_us", "baseline_tokens_per_s_per_gpu",
          "overlapped_tokens_per_s_per_gpu", "baseline_memory_gb", "overlapped_memory_gb"}) {
      INFO(k << " of row " << i);
      if (j[k].is_null())  // a side that does not fit: no throughput, no speedup
        CHECK(t.at(i, k).empty());
      else
        CHECK(t.number(i, k) == j[k].get<double>());  // same bits: shortest round-trip
    }
    for (const char* k : {"baseline_fits", "overlapped_fits"})
      CHECK(t.at(i, k) == (j[k].get<bool>() ? "true" : "false"));
    CHECK(t.at(i, "verdict") == j["verdict"].get<std::string>());
  }
}

TEST_CASE("a sweep on 1, on 2 and on all cores (no -j) gives identical bytes", "[sweep]") {
  const std::string spec = write_spec("j.yaml", kSpec);
  REQUIRE(cli({"sweep", spec, "--out", tmp("j1.csv").string(), "-j", "1", "-q"}).code == 0);
  REQUIRE(cli({"sweep", spec, "--out", tmp("j2.csv").string(), "-j", "2", "-q"}).code == 0);
  REQUIRE(cli({"sweep", spec, "--out", tmp("jall.csv").string(), "-q"}).code == 0);
  CHECK(file_bytes(tmp("j1.csv")) == file_bytes(tmp("j2.csv")));
  CHECK(file_bytes(tmp("j1.csv")) == file_bytes(tmp("jall.csv")));
}

TEST_CASE("a sweep with the caches off gives the same bytes, V3 and V4 (every V4 strategy)",
          "[sweep][caches]") {
  // --no-cache computes every GEMM tile, layer plan, routing statistic, kernel time alone and
  // baseline run afresh: the caches may only save time.
  const std::string v3 = write_spec("cache-v3.yaml", kSpec);
  const std::string v4 = write_spec("cache-v4.yaml", R"(name: cache-v4
base: {model: deepseek-v4-pro, hw: mi355x, phase: decode, context: 4096, ep: 8}
axes:
  - {field: tokens_per_gpu, values: [8, 64]}
strategies: [tbo-decode, sbo, multistream, multistream-off, multistream+tbo-decode,
             kv-store-next-indexer, c4-c128-parallel, combine-shared-down-tail]
)");
  for (const auto& [spec, name] : {std::pair{v3, "v3"}, {v4, "v4"}}) {
    const fs::path on = tmp(std::string(name) + "-cached.csv"),
                   off = tmp(std::string(name) + "-uncached.csv");
    REQUIRE(cli({"sweep", spec, "--out", on.string(), "-j", "2", "-q"}).code == 0);
    REQUIRE(cli({"sweep", spec, "--out", off.string(), "-j", "2", "-q", "--no-cache"}).code == 0);
    INFO(name);
    CHECK(file_bytes(on) == file_bytes(off));
  }
  // The switch is restored after the command.
  CHECK(caches_enabled());
}

TEST_CASE("shards merged equal the unsharded sweep", "[sweep]") {
  const std::string spec = write_spec("shard.yaml", kSpec);
  REQUIRE(cli({"sweep", spec, "--out", tmp("full.csv").string(), "-q"}).code == 0);
  for (const char* s : {"0/3", "1/3", "2/3"})
    REQUIRE(cli({"sweep", spec, "--out", tmp(std::string("part") + s[0] + ".csv").string(),
                 "--shard", s, "-q"})
                .code == 0);
  REQUIRE(cli({"merge", tmp("merged.csv").string(), tmp("part0.csv").string(),
               tmp("part1.csv").string(), tmp("part2.csv").string()})
              .code == 0);
  CHECK(file_bytes(tmp("merged.csv")) == file_bytes(tmp("full.csv")));
}

TEST_CASE("resume after SIGKILL loses and repeats nothing", "[sweep][faults]") {
  // A sweep long enough to be killed several times part-way (about 0.05 s a point).
  const std::string spec = write_spec("kill.yaml", R"(name: kill
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, ep: 16}
axes:
  - {field: tokens_per_gpu, range: {from: 2, to: 120, steps: 60}}
strategies: [tbo-decode]
)");
  const fs::path full = tmp("kill-full.csv"), cut = tmp("kill-cut.csv");
  REQUIRE(cli({"sweep", spec, "--out", full.string(), "-q"}).code == 0);
  fs::remove(cut);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const pid_t pid = fork();
    if (pid == 0) {
      execl(OVS_BINARY, "overlapsim", "sweep", spec.c_str(), "--out", cut.string().c_str(),
            "--resume", "-q", "-j", "2", static_cast<char*>(nullptr));
      _exit(127);
    }
    // Kill once the file has grown by some rows since this attempt started.
    const auto before = fs::exists(cut) ? fs::file_size(cut) : 0;
    for (int i = 0; i < 400; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (fs::exists(cut) && fs::file_size(cut) > before + 2000) break;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  const CliResult resumed = cli({"sweep", spec, "--out", cut.string(), "--resume", "-q"});
  INFO(resumed.err);
  REQUIRE(resumed.code == 0);
  CHECK(file_bytes(cut) == file_bytes(full));
}

TEST_CASE("crossover interpolates between the points around speedup 1", "[sweep]") {
  // Linear axis (max/min < 10): speedup 0.8 at x=10, 1.2 at x=20 -> crosses halfway, x = 15.
  Crossover c = crossover_of({{10, 0.8}, {20, 1.2}, {15.5, 0.95}});
  // The point at 15.5 (0.95) is the last below 1: between 15.5 and 20: 15.5 + (0.05/0.25)*4.5
  // = 16.4.
  CHECK(c.status == "crosses");
  CHECK(c.x == Approx(16.4));
  // Log axis (x spans 100x): between 4 (0.5) and 64 (1.5) the crossing is at the geometric
  // middle, sqrt(4*64) = 16.
  c = crossover_of({{4, 0.5}, {64, 1.5}, {400, 2.0}});
  CHECK(c.x == Approx(16.0));
  CHECK(crossover_of({{1, 0.5}, {2, 0.9}}).status == "never");
  CHECK(crossover_of({{1, 1.1}, {2, 0.9}}).status == "always in range");
}

TEST_CASE("charts are well-formed SVG", "[sweep][charts]") {
  const std::string spec = write_spec("chart.yaml", R"(name: chart
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048}
axes:
  - {field: tokens_per_gpu, values: [8, 64, 256]}
  - {field: ep, values: [16, 32]}
strategies: [tbo-decode, sbo]
)");
  const fs::path dir = tmp("report");
  fs::remove_all(dir);
  REQUIRE(cli({"sweep", spec, "--out", tmp("chart.csv").string(), "-q", "--report", dir.string(),
               "--y", "ep"})
              .code == 0);
  int svgs = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".svg") continue;
    ++svgs;
    const std::string text = file_bytes(e.path());
    std::string why;
    INFO(e.path() << ": " << why);
    CHECK(well_formed_xml(text, &why));
    CHECK(text.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  }
  CHECK(svgs >= 3);  // two speedup charts (one per EP) and a heatmap per strategy
  CHECK(fs::exists(dir / "crossover.csv"));
  // A heatmap's file and title say what it shows; its axes speak the user's terms.
  const fs::path heat =
      dir /
      "heatmap-tbo-decode-over-requests-per-gpu-and-ep-size-gpus--deepseek-v3--decode--"
      "h800-sxm.svg";
  REQUIRE(fs::exists(heat));
  const auto texts = svg_texts(file_bytes(heat));
  auto has = [&](const std::string& t) {
    return std::find(texts.begin(), texts.end(), t) != texts.end();
  };
  CHECK(
      has("Speedup of tbo-decode over no-overlap - deepseek-v3 decode on h800-sxm, context 2048"));
  CHECK(has("requests per GPU"));
  CHECK(has("EP size (GPUs) (green outline: pays; grey: does not fit in HBM)"));
  std::string why;
  CHECK_FALSE(well_formed_xml("<svg><g></svg>", &why));  // the checker can fail
}

TEST_CASE("bad sweep specs: one line with file, line and field; no output file",
          "[sweep][bad-input]") {
  auto bad = [&](const std::string& name, const std::string& text, const std::string& needle) {
    const std::string spec = write_spec(name, text);
    const fs::path out = tmp(name + ".csv");
    fs::remove(out);
    const CliResult r = cli({"sweep", spec, "--out", out.string(), "-q"});
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(spec) != std::string::npos);
    CHECK(r.err.find(needle) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  };
  bad("unknown-field.yaml",
      "name: x\nbase: {model: deepseek-v3, hw: h800-sxm, context: 1, ep: 8, tokens_per_gpu: "
      "8}\naxes:\n  - {field: tokens, values: [1]}\nstrategies: [sbo]\n",
      "did you mean 'tokens_per_gpu'");
  bad("unknown-strategy.yaml",
      "name: x\nbase: {model: deepseek-v3, hw: h800-sxm, context: 1, ep: 8, tokens_per_gpu: "
      "8}\nstrategies: [tbo-decod]\n",
      "did you mean 'tbo-decode'");
  bad("missing.yaml",
      "name: x\nbase: {model: deepseek-v3, hw: h800-sxm, context: 1, tokens_per_gpu: "
      "8}\nstrategies: [sbo]\n",
      "base.ep");
}

TEST_CASE("a full disk or an unwritable output directory is reported, not ignored",
          "[sweep][faults]") {
  const std::string spec = write_spec("faults.yaml", kSpec);
  const CliResult dir = cli({"sweep", spec, "--out", "/nonexistent-dir/results.csv", "-q"});
  CHECK(dir.code == 2);
  CHECK(dir.err.find("/nonexistent-dir/results.csv") != std::string::npos);
  // /dev/full accepts the open and fails every write with ENOSPC.
  const CliResult full = cli({"sweep", spec, "--out", "/dev/full", "-q"});
  CHECK(full.code == 2);
  CHECK(full.err.find("/dev/full") != std::string::npos);
  CHECK(std::count(full.err.begin(), full.err.end(), '\n') == 1);
  const CliResult trace =
      cli({"run", source_path("strategies/examples/seed-v4-prefill-attention.yaml"), "--trace",
           "/nonexistent-dir/trace.json"});
  CHECK(trace.code == 2);
}
