// `overlapsim run`: outputs, the trace's structure, determinism and every class of bad input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Writes text to a fresh temporary YAML file and returns its path.
std::string temp_yaml(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

const char* kToyHardware = R"(hardware:
  name: toy
  vendor: nvidia
  arch: generic
  sm_count: 100
  boost_clock_mhz: 1000
  tensor_peak_tflops: {bf16: 100, fp8: 200, fp4: 0}
  cuda_core_peak_tflops: 10
  hbm: {peak_gbps: 1000, achievable_gbps: 1000, saturation_sms: 50}
  l2: {size_mib: 50, achievable_gbps: 4000, saturation_sms: 50}
  links: {nvlink: {gbps: 100, latency_us: 2}}
  host: {launch_eager_us: 0, launch_graph_us: 0}
)";

std::string program(const std::string& body) {
  return std::string(kToyHardware) + "streams: [a, b]\nprogram:\n" + body;
}

// Runs a bad program and checks the one-line error: exit 2, file and line named, field named.
void expect_bad(const std::string& name, const std::string& text, int line,
                const std::string& needle) {
  const std::string path = temp_yaml(name, text);
  const CliResult r = cli({"run", path});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find(path + ":" + std::to_string(line) + ":") != std::string::npos);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("run --json reports makespan_us and serial_us", "[cli][run]") {
  // toy: 100 SMs x 1 TFLOP/s = 1e6 FLOP/us per SM at 1000 MHz; HBM 1e6 B/us.
  const std::string path = temp_yaml("two.yaml", program(R"(
  - launch: {name: gemm, stream: a, work: {tensor_flops: {bf16: 5.0e9}, hbm_bytes: 1.0e7, ctas: 50}}
  - launch: {name: copy, stream: b, work: {hbm_bytes: 1.0e8, ctas: 50}}
)"));
  const CliResult r = cli({"run", path, "--json"});
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  // As in the engine test "compute-bound beside memory-bound": 110 us together, 200 us serial.
  CHECK(j["makespan_us"].get<double>() == Approx(110.0));
  CHECK(j["serial_us"].get<double>() == Approx(200.0));
  CHECK(j["kernels"].size() == 2);
  CHECK(j["streams"][0]["name"] == "a");
}

TEST_CASE("the seed's V4 prefill attention block: ~1012 us overlapped, ~2290 us serial",
          "[cli][run][seed]") {
  const CliResult r =
      cli({"run", source_path("strategies/examples/seed-v4-prefill-attention.yaml"), "--json"});
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  // Main stream 77 + 6 + 929 = 1012 us dominates; serial = 1012 + 1278 us of side kernels.
  CHECK(j["makespan_us"].get<double>() == Approx(1012.0).margin(5));
  CHECK(j["serial_us"].get<double>() == Approx(2290.0).margin(5));
}

TEST_CASE("every shipped example program runs", "[cli][run]") {
  for (const auto& e : fs::directory_iterator(source_path("strategies/examples"))) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path());
    const CliResult r = cli({"run", e.path().string(), "--json"});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
  }
}

TEST_CASE("the trace is valid Trace Event Format with stream, host and counter tracks",
          "[cli][trace]") {
  const std::string trace =
      (fs::temp_directory_path() / "overlapsim-tests" / "trace.json").string();
  const CliResult r = cli(
      {"run", source_path("strategies/examples/seed-v4-prefill-attention.yaml"), "--trace", trace});
  REQUIRE(r.code == 0);
  std::ifstream in(trace);
  const Json j = Json::parse(in);
  REQUIRE(j.contains("traceEvents"));
  REQUIRE(j["traceEvents"].is_array());
  std::set<std::string> thread_names, counters;
  int kernels = 0, host = 0;
  for (const auto& e : j["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    const std::string ph = e["ph"];
    REQUIRE((ph == "M" || ph == "X" || ph == "C" || ph == "i" || ph == "s" || ph == "f"));
    if (ph == "M") {
      REQUIRE(e["args"].is_object());
      if (e["name"] == "thread_name") thread_names.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    REQUIRE(e["ts"].is_number());
    CHECK(e["ts"].get<double>() >= 0);
    if (ph == "X") {
      REQUIRE(e.contains("tid"));
      REQUIRE(e["dur"].is_number());
      CHECK(e["dur"].get<double>() >= 0);
      if (e["cat"] == "host")
        ++host;
      else
        ++kernels;
    }
    if (ph == "C") {
      REQUIRE(e["args"].is_object());
      counters.insert(e["name"].get<std::string>());
    }
  }
  CHECK(thread_names.count("host thread"));
  for (const char* s : {"stream main", "stream side0", "stream side1", "stream side2"})
    CHECK(thread_names.count(s));
  CHECK(counters ==
        std::set<std::string>{"SMs busy", "occupancy", "HBM GB/s", "L2 GB/s", "link GB/s"});
  CHECK(kernels == 2 * 9);  // the program and its serial replay, 9 kernels each
  CHECK(host > 0);
}

TEST_CASE("the same program twice gives byte-identical JSON and traces", "[cli][determinism]") {
  const std::string prog = source_path("strategies/examples/seed-v4-prefill-attention.yaml");
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests";
  const CliResult a = cli({"run", prog, "--json", "--trace", (dir / "t1.json").string()});
  const CliResult b = cli({"run", prog, "--json", "--trace", (dir / "t2.json").string()});
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK(slurp(dir / "t1.json") == slurp(dir / "t2.json"));
}

TEST_CASE("run --help explains itself", "[cli]") {
  const CliResult r = cli({"run", "--help"});
  CHECK(r.code == 0);
  CHECK(r.out.find("--json") != std::string::npos);
  CHECK(r.out.find("--trace") != std::string::npos);
  const CliResult top = cli({"--help"});
  CHECK(top.code == 0);
  CHECK(top.out.find("run") != std::string::npos);
}

TEST_CASE("bad programs: one line naming file, line and field; exit 2", "[cli][bad-input]") {
  SECTION("malformed YAML") {
    expect_bad("malformed.yaml", program("  - launch: {name: x, stream: a, duration_us: 3\n"), 16,
               "malformed YAML");
  }
  SECTION("unknown key, with a suggestion") {
    expect_bad("unknown-key.yaml", program("  - launch: {name: x, stream: a, duraton_us: 3}\n"), 15,
               "did you mean 'duration_us'");
  }
  SECTION("wrong type") {
    expect_bad("wrong-type.yaml", program("  - launch: {name: x, stream: a, duration_us: fast}\n"),
               15, "program[0].launch.duration_us");
  }
  SECTION("unknown stream") {
    expect_bad("unknown-stream.yaml", program("  - launch: {name: x, stream: c, duration_us: 3}\n"),
               15, "unknown stream 'c'");
  }
  SECTION("wait on an event never recorded") {
    expect_bad("unknown-event.yaml",
               program("  - launch: {name: x, stream: a, duration_us: 3}\n  - wait: {event: done, "
                       "stream: b}\n"),
               16, "unknown event 'done'");
  }
  SECTION("wait before the event is recorded") {
    expect_bad("early-wait.yaml",
               program("  - wait: {event: e, stream: b}\n  - record: {event: e, stream: a}\n"), 15,
               "before any record");
  }
  SECTION("negative number") {
    expect_bad("negative.yaml", program("  - launch: {name: x, stream: a, duration_us: -3}\n"), 15,
               "must be >= 0");
  }
  SECTION("NaN") {
    expect_bad("nan.yaml",
               program("  - launch: {name: x, stream: a, work: {hbm_bytes: .nan, ctas: 1}}\n"), 15,
               "finite");
  }
  SECTION("missing required field") {
    expect_bad("missing.yaml", program("  - launch: {name: x, duration_us: 3}\n"), 15,
               "missing required field");
  }
  SECTION("FP4 work on hardware without FP4") {
    expect_bad(
        "fp4.yaml",
        program("  - launch: {name: x, stream: a, work: {tensor_flops: {fp4: 1.0e9}, ctas: 1}}\n"),
        15, "no fp4 tensor cores");
  }
  SECTION("unknown hardware profile") {
    expect_bad("unknown-hw.yaml", "hardware: h800-sx\nstreams: [a]\nprogram:\n  - delay: {us: 1}\n",
               1, "did you mean 'h800-sxm'");
  }
}

TEST_CASE("a missing file or a directory is bad input too", "[cli][bad-input]") {
  const CliResult missing = cli({"run", "/nonexistent/program.yaml"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/nonexistent/program.yaml") != std::string::npos);
  const CliResult dir = cli({"run", fs::temp_directory_path().string()});
  CHECK(dir.code == 2);
  CHECK(dir.err.find("directory") != std::string::npos);
  const CliResult noarg = cli({"run"});
  CHECK(noarg.code == 2);
}
