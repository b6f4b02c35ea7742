// `overlapsim validate TRACE.json`: the imported trace replayed by the engine against measured.
// Hand-checkable numbers come from a tiny synthetic trace; DeepSeek's H800 trace
// (../shared/data, not shipped) is used when present.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests-validate-trace";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

const std::string kDeepSeekTrace =
    std::string(OVS_SOURCE_DIR) + "/../shared/data/deepseek-profile-train-h800-ep64.json";

// Measured (us; the trace's clock starts at 1000):
//   stream 7:  gemm_a [1000, 1010] grid 112, launched at 990 (3 us)
//              vectorized_elementwise_b [1012, 1020] grid 4096, launched at 995 (4 us)
//   stream 9:  deep_ep::internode::dispatch [1005, 1015] grid 20, launched at 1001 (2 us)
// The exported program paces the host as measured: gemm_a after 3 us (its call), dispatch
// 11 us later (1001 - 990), elementwise_b at once (its call came earlier than dispatch's).
// Replayed by the engine (no launch latency on the GPU, given durations):
//   gemm_a         [3, 13] on 112 SMs
//   dispatch       [14, 24] on 20 SMs (the communication stream has priority)
//   elementwise_b  from 14 on the 112 SMs left of the 132 it asks for: 8 x 132 / 112 =
//                  9.4286 us, [14, 23.4286]
const char* kTrace = R"({
  "deviceProperties": [{"id": 0, "name": "NVIDIA H800", "numSms": 132}],
  "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 990, "dur": 3,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 995, "dur": 4,
     "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1001, "dur": 2,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 1000, "dur": 10,
     "args": {"stream": 7, "correlation": 1, "grid": [112, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "deep_ep::internode::dispatch", "pid": 0, "tid": 9, "ts": 1005,
     "dur": 10, "args": {"stream": 9, "correlation": 3, "grid": [20, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_b", "pid": 0, "tid": 7, "ts": 1012,
     "dur": 8, "args": {"stream": 7, "correlation": 2, "grid": [4096, 1, 1]}}
  ]
})";

const Json& named(const Json& list, const std::string& key, const std::string& name) {
  for (const auto& x : list)
    if (x[key] == name) return x;
  FAIL("no " << key << " " << name);
  return list;
}

}  // namespace

TEST_CASE("validate TRACE.json replays the trace and compares scheduling, not given durations",
          "[validate][trace]") {
  const std::string trace = temp_file("two-streams.json", kTrace);
  const CliResult r = cli({"validate", trace, "--hw", "h800-sxm", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["kind"] == "replay");
  CHECK(j["kernels"] == 3);
  // Makespan: measured 1000..1020; replayed 3..24.
  CHECK(j["makespan_us"]["measured"] == Approx(20));
  CHECK(j["makespan_us"]["replayed"] == Approx(21));
  // Two streams busy: measured [1005, 1010] + [1012, 1015] = 8; replayed [14, 23.4286].
  CHECK(j["multi_stream_us"]["measured"] == Approx(8));
  CHECK(j["multi_stream_us"]["replayed"] == Approx(8.0 * 132 / 112));
  const Json& s7 = named(j["streams"], "name", "stream7");
  CHECK(s7["span_us"]["measured"] == Approx(20));
  CHECK(s7["span_us"]["replayed"] == Approx(14 + 8.0 * 132 / 112 - 3));  // 3 .. 23.4286
  const Json& s9 = named(j["streams"], "name", "stream9");
  CHECK(s9["beside_other_us"]["measured"] == Approx(8));
  CHECK(s9["beside_other_us"]["replayed"] == Approx(8.0 * 132 / 112));
  // Per family: the GEMM ran beside the dispatch for 5 us; in the replay, before it.
  const Json& gemm = named(j["families"], "family", "gemm");
  CHECK(gemm["beside_other_us"]["measured"] == Approx(5));
  CHECK(gemm["beside_other_us"]["replayed"] == Approx(0));
  CHECK(gemm["kernel_us_given"]["replayed"] == Approx(10));  // its duration is an input
  const Json& elementwise = named(j["families"], "family", "elementwise");
  CHECK(elementwise["kernel_us_given"]["replayed"] == Approx(8.0 * 132 / 112));  // stretched
  // MAPE per-stream span: stream7 (23.4286 - 3 - 20) / 20, stream9 exact.
  CHECK(j["mape"]["stream_span"] == Approx((20.4286 / 20 - 1) / 2).epsilon(1e-3));
  // Profile parameters the trace measures: the DeepEP stream's 20 SMs, the launch cost.
  const Json& sms = named(j["profile"], "parameter", "kernels.comm.deepep_normal_sms");
  CHECK(sms["measured"] == 20);
  CHECK(sms["profile"] == 20);
  const Json& launch = named(j["profile"], "parameter", "host.launch_eager_us");
  CHECK(launch["measured"] == Approx(3));  // median of 3, 4, 2
}

TEST_CASE("validate TRACE.json: table, --program for `overlapsim run`, detection by content",
          "[validate][trace]") {
  const std::string trace = temp_file("no-extension", kTrace);
  const std::string program = temp_file("replayed.yaml", "");
  const CliResult r = cli({"validate", trace, "--hw", "h800-sxm", "--program", program});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("replayed by the engine") != std::string::npos);
  CHECK(r.out.find("MAPE per-stream span") != std::string::npos);
  CHECK(r.out.find("not priced by the cost models") != std::string::npos);
  const CliResult run = cli({"run", program, "--json"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(Json::parse(run.out)["kernels"].size() == 3);
  // A CSV is still validated row by row; --program is for traces only.
  const CliResult csv =
      cli({"validate", source_path("calibrate/published/deepgemm.csv"), "--program", program});
  CHECK(csv.code == 2);
  CHECK(csv.err.find("--program") != std::string::npos);
}

TEST_CASE("the replay validate runs in memory is the program --program writes",
          "[validate][trace]") {
  // validate builds the program in memory and runs it; `overlapsim run` reads the YAML that
  // --program writes. Same program, same engine: the replayed makespan (first start to last end)
  // is run's makespan minus its first kernel's start. Tiny trace: 24 - 3 = 21 (see kTrace).
  // validate places the replay on the trace's clock: DeepSeek's timestamps are ~1.74e15 us,
  // where a double resolves 0.25 us, so a time there is within 0.25 us of the engine's and a
  // span of two such times within 0.5 us.
  std::vector<std::string> traces{temp_file("same-program.json", kTrace)};
  if (fs::exists(kDeepSeekTrace)) traces.push_back(kDeepSeekTrace);
  for (const auto& trace : traces) {
    INFO(trace);
    const std::string program = temp_file("same-program.yaml", "");
    const CliResult v =
        cli({"validate", trace, "--hw", "h800-sxm", "--json", "--program", program});
    INFO(v.err);
    REQUIRE(v.code == 0);
    const CliResult run = cli({"run", program, "--json"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    const Json j = Json::parse(run.out);
    double first_start_us = j["kernels"][0]["start_us"];
    for (const auto& k : j["kernels"])
      first_start_us = std::min(first_start_us, double(k["start_us"]));
    CHECK(double(Json::parse(v.out)["makespan_us"]["replayed"]) ==
          Approx(double(j["makespan_us"]) - first_start_us).margin(0.5));
  }
}

TEST_CASE("validate TRACE.json: a malformed trace or a bad --hw is one line, exit 2",
          "[validate][trace][bad-input]") {
  const std::string bad = temp_file("truncated.json", std::string(kTrace).substr(0, 300));
  const CliResult r = cli({"validate", bad, "--hw", "h800-sxm"});
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.rfind("error: " + bad, 0) == 0);
  const CliResult hw = cli({"validate", temp_file("ok.json", kTrace), "--hw", "h900"});
  CHECK(hw.code == 2);
  CHECK(hw.err.find("h800-sxm") != std::string::npos);  // lists the shipped names
}

TEST_CASE("validate on DeepSeek's H800 trace: replay against measured", "[validate][trace]") {
  if (!fs::exists(kDeepSeekTrace)) {
    WARN("skipped: " << kDeepSeekTrace
                     << " is absent (DeepSeek's profile-data trace is not shipped)");
    return;
  }
  const CliResult r = cli({"validate", kDeepSeekTrace, "--hw", "h800-sxm", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  // The whole timeline: the replay (no cross-stream waits in the exported program) ends within
  // 10 % of the measured 129 ms, with two streams busy about as long as measured.
  const double measured = j["makespan_us"]["measured"];
  CHECK(measured == Approx(129012).epsilon(0.01));
  CHECK(std::fabs(double(j["makespan_us"]["error"])) <= 0.10);
  CHECK(std::fabs(double(j["multi_stream_us"]["error"])) <= 0.10);
  CHECK(j["layers_us"].size() == 4);
  // The compute stream and the DeepEP stream keep their time beside each other within 10 %.
  const Json& compute = named(j["streams"], "name", "stream7");
  CHECK(compute["role"] == "compute");
  CHECK(std::fabs(double(compute["beside_other_us"]["error"])) <= 0.10);
  const Json& deepep = named(j["streams"], "name", "stream27");
  CHECK(deepep["role"] == "communication");
  CHECK(std::fabs(double(deepep["beside_other_us"]["error"])) <= 0.10);
  const Json& sms = named(j["profile"], "parameter", "kernels.comm.deepep_normal_sms");
  CHECK(sms["measured"] == 20);
  // The replay is not the trace: some kernels were stretched by SM contention.
  bool stretched = false;
  for (const auto& f : j["families"])
    stretched |=
        double(f["kernel_us_given"]["replayed"]) > double(f["kernel_us_given"]["measured"]);
  CHECK(stretched);
}
