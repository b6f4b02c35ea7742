// `overlapsim import-trace`: streaming Kineto reader, statistics, segments, program export and
// bad input. Hand-checkable numbers come from a tiny synthetic trace written below; the
// DeepSeek H800 trace (../shared/data, not shipped) is used when present.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calibrate/import/kernel_families.hpp"
#include "calibrate/import/segments.hpp"
#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests-import-trace";
  fs::create_directories(dir);
  return dir;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

const std::string kDeepSeekTrace =
    std::string(OVS_SOURCE_DIR) + "/../shared/data/deepseek-profile-train-h800-ep64.json";

bool have_deepseek_trace() {
  if (fs::exists(kDeepSeekTrace)) return true;
  WARN("skipped: " << kDeepSeekTrace
                   << " is absent (DeepSeek's profile-data trace is not shipped)");
  return false;
}

// Two streams, by hand (times in us; the trace's clock starts at 1000):
//   stream 7:  gemm_a [1000, 1010] grid 112;  vectorized_elementwise_b [1012, 1020] grid 4096
//   stream 9:  deep_ep::internode::dispatch [1005, 1015] grid 20
//   launches:  gemm_a at 990 for 3 us, elementwise_b at 995 for 4 us, dispatch at 1001 for 2 us
// plus events the importer must skip: metadata, a CPU op, a flow event, a memcpy on stream 7.
const char* kTinyTrace = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "toy", "numSms": 132}],
  "traceEvents": [
    {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "python3"}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 989, "dur": 30,
     "args": {"Input Dims": [[4, 4], [4, 4]], "nested": {"a": [1, {"b": null}]}}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 990, "dur": 3,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 995, "dur": 4,
     "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 1001, "dur": 2,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": 1, "tid": 1, "ts": 1003, "dur": 1,
     "args": {"correlation": 4}},
    {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 990},
    {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 1000, "dur": 10,
     "args": {"stream": 7, "correlation": 1, "grid": [112, 1, 1], "block": [128, 1, 1]}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD", "pid": 0, "tid": 7, "ts": 1010, "dur": 1,
     "args": {"stream": 7, "correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "deep_ep::internode::dispatch", "pid": 0, "tid": 9, "ts": 1005,
     "dur": 10, "args": {"stream": 9, "correlation": 3, "grid": [20, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_b", "pid": 0, "tid": 7, "ts": 1012.0,
     "dur": 8, "args": {"stream": 7, "correlation": 2, "grid": [4096, 1, 1]}}
  ],
  "traceName": "tiny"
})";

Json import_json(const std::string& path) {
  const CliResult r = cli({"import-trace", path, "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out);
}

const Json& stream_named(const Json& j, const std::string& name) {
  for (const auto& s : j["streams"])
    if (s["name"] == name) return s;
  FAIL("no stream " << name);
  return j;
}

// A bad trace: exit 2, nothing on stdout, one line naming the file, the field and `needle`.
void expect_bad_trace(const std::string& path, const std::string& field,
                      const std::string& needle) {
  const CliResult r = cli({"import-trace", path});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  // "error: FILE:LINE: " (no line when the file cannot be read or has no events at all).
  CHECK(r.err.rfind("error: " + path + ":", 0) == 0);
  if (!field.empty()) CHECK(r.err.find("field '" + field) != std::string::npos);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE(
    "import-trace reports per-stream busy time, overlap, gaps and launch cost of a tiny trace",
    "[import-trace]") {
  const Json j = import_json(temp_file("tiny.json", kTinyTrace));
  CHECK(j["kernels"] == 3);
  CHECK(j["span_us"] == Approx(20));  // 1000 .. 1020
  CHECK(j["gpu_sms"] == 132);
  CHECK(j["compute_stream"] == "stream7");
  CHECK(j["communication_stream"] == "stream9");
  CHECK(j["communication_sms"] == 20);
  const Json& s7 = stream_named(j, "stream7");
  CHECK(s7["kernels"] == 2);
  CHECK(s7["busy_us"] == Approx(18));  // 10 + 8; the memcpy is not a kernel
  CHECK(s7["sms"] == 112);             // 10 us on 112 SMs beats 8 us on min(4096, 132)
  const Json& s9 = stream_named(j, "stream9");
  CHECK(s9["busy_us"] == Approx(10));
  CHECK(s9["role"] == "communication");
  CHECK(s9["grids"][0]["grid"] == Json::array({20, 1, 1}));
  // Both streams busy during [1005, 1010] and [1012, 1015].
  CHECK(j["overlap"]["multi_stream_us"] == Approx(8));
  CHECK(j["overlap"]["pairs"][0]["overlap_us"] == Approx(8));
  const Json& l = j["launch"];
  CHECK(l["kernels_linked"] == 3);
  // Launch calls took 3, 4 and 2 us (cudaEventQuery is not a launch).
  CHECK(l["host_launch"]["count"] == 3);
  CHECK(l["host_launch"]["median_us"] == Approx(3));
  CHECK(l["host_launch"]["p90_us"] == Approx(3.8));  // 3 + 0.8 x (4 - 3)
  // Kernel start - launch start: 10, 4, 17.
  CHECK(l["launch_to_start"]["median_gap_us"] == Approx(10));
  CHECK(l["launch_to_start"]["p90_gap_us"] == Approx(15.6));  // 10 + 0.8 x 7
  // Start - max(launch end, stream predecessor end): 1000-993 = 7, 1005-1003 = 2, 1012-1010 = 2.
  CHECK(l["ready_to_start"]["median_gap_us"] == Approx(2));
  CHECK(l["ready_to_start"]["p90_gap_us"] == Approx(6));  // 2 + 0.8 x 5
  std::map<std::string, int> families;
  for (const auto& f : j["families"]) families[f["family"]] = f["kernels"];
  CHECK(families == std::map<std::string, int>{{"deepep", 1}, {"elementwise", 1}, {"gemm", 1}});
  CHECK(j["segments"]["found"] == false);
}

TEST_CASE("import-trace prints a table naming the compute stream and the SMs the comm stream holds",
          "[import-trace]") {
  const CliResult r = cli({"import-trace", temp_file("tiny-table.json", kTinyTrace)});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("compute    stream7 (gemm): 2 kernels") != std::string::npos);
  CHECK(r.out.find("comm       stream9 (deepep): 1 kernels") != std::string::npos);
  CHECK(r.out.find("holds 20 SMs") != std::string::npos);
  CHECK(r.out.find("stream7 + stream9") != std::string::npos);
}

TEST_CASE("import-trace accepts Chrome's bare-array format and string tids", "[import-trace]") {
  const std::string path = temp_file("array.json", R"([
    {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 3", "ts": 5, "dur": 2},
    {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 3", "ts": 8, "dur": 2}
  ])");
  const Json j = import_json(path);
  CHECK(j["kernels"] == 2);
  CHECK(j["compute_stream"] == "stream3");
  CHECK(j["span_us"] == Approx(5));
  CHECK(j["streams"][0]["busy_us"] == Approx(4));
  CHECK(j["communication_stream"].is_null());
}

TEST_CASE("import-trace --program exports launches in start order with measured durations and SMs",
          "[import-trace]") {
  const std::string trace = temp_file("tiny-export.json", kTinyTrace);
  const std::string out = (temp_dir() / "tiny-export.yaml").string();
  fs::remove(out);
  const CliResult r = cli({"import-trace", trace, "--program", out, "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(Json::parse(r.out)["program"]["launches"] == 3);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const std::string y = text.str();
  CHECK(y.find("hardware: \"h800-sxm\"") != std::string::npos);
  // Start order: gemm_a, dispatch, elementwise_b. The host's launch clock: 990 (first call: its
  // own 3 us), then 1001 (+11 us), then 995 is behind it (+0 us).
  const auto a = y.find(
      "{name: \"gemm_a\", stream: \"stream7\", duration_us: 10, sms: 112, op: gemm, host_us: 3}");
  const auto b = y.find(
      "{name: \"deep_ep::internode::dispatch\", stream: \"stream9\", duration_us: 10, sms: 20, op: "
      "deepep, "
      "host_us: 11}");
  const auto c = y.find(
      "{name: \"vectorized_elementwise_b\", stream: \"stream7\", duration_us: 8, sms: 132, op: "
      "elementwise, "
      "host_us: 0}");
  CHECK(a != std::string::npos);
  CHECK(b != std::string::npos);
  CHECK(c != std::string::npos);
  CHECK((a < b && b < c));
  const CliResult run = cli({"run", out, "--json"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(Json::parse(run.out)["kernels"].size() == 3);
}

TEST_CASE("import-trace --program caps host gaps at --max-host-gap-us", "[import-trace]") {
  const std::string trace = temp_file("tiny-cap.json", kTinyTrace);
  const std::string out = (temp_dir() / "tiny-cap.yaml").string();
  const CliResult r =
      cli({"import-trace", trace, "--program", out, "--max-host-gap-us", "5", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(Json::parse(r.out)["program"]["capped_gaps"] == 1);  // the 11 us gap
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str().find("op: deepep, host_us: 5}") != std::string::npos);
}

TEST_CASE("import-trace rejects a missing file, non-JSON and truncated JSON with exit code 2",
          "[import-trace]") {
  expect_bad_trace((temp_dir() / "does-not-exist.json").string(), "", "cannot open trace");
  const std::string not_json = temp_file("not-json.json", "hello, world");
  expect_bad_trace(not_json, "", "invalid JSON at byte 1:");
  CHECK(cli({"import-trace", not_json}).err.find("ends early") == std::string::npos);
  const std::string tiny = kTinyTrace;
  const std::string cut = tiny.substr(0, tiny.find("\"deep_ep::internode") + 5);
  const std::string path = temp_file("cut.json", cut);
  expect_bad_trace(path, "traceEvents[9].name", "the file ends early");
  expect_bad_trace(path, "", "at byte " + std::to_string(cut.size()));
  expect_bad_trace(
      temp_file("cut-between-events.json", tiny.substr(0, tiny.find("{\"ph\": \"s\""))),
      "traceEvents", "the file ends early");
}

TEST_CASE("import-trace rejects a trace without traceEvents or without kernel events",
          "[import-trace]") {
  expect_bad_trace(temp_file("no-events.json", R"({"schemaVersion": 1, "deviceProperties": []})"),
                   "traceEvents", "no 'traceEvents' array");
  expect_bad_trace(temp_file("events-not-array.json", R"({"traceEvents": {"a": 1}})"),
                   "traceEvents", "expected an array");
  expect_bad_trace(temp_file("cpu-only.json", R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})"),
                   "traceEvents", "no kernel events");
  expect_bad_trace(temp_file("scalar.json", "42"), "", "not an object with 'traceEvents'");
}

TEST_CASE("import-trace rejects a kernel event without a numeric duration, naming it and its byte",
          "[import-trace]") {
  const std::string text = R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 2},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 8, "dur": "2"}]})";
  expect_bad_trace(temp_file("bad-dur.json", text), "traceEvents[1].dur", "got a string");
  expect_bad_trace(temp_file("bad-dur2.json", text), "", "byte " + std::to_string(text.size() - 2));
  expect_bad_trace(temp_file("no-ts.json", R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "dur": 2}]})"),
                   "traceEvents[0].ts", "expected a start time");
}

TEST_CASE("import-trace --program writes nothing when the trace is bad or the target unwritable",
          "[import-trace]") {
  const std::string out = (temp_dir() / "never.yaml").string();
  fs::remove(out);
  const CliResult bad = cli(
      {"import-trace", temp_file("bad-for-export.json", "{\"traceEvents\": ["), "--program", out});
  CHECK(bad.code == 2);
  CHECK_FALSE(fs::exists(out));
  const std::string trace = temp_file("tiny-unwritable.json", kTinyTrace);
  const CliResult r =
      cli({"import-trace", trace, "--program", (temp_dir() / "no-dir" / "p.yaml").string()});
  CHECK(r.code == 2);
  CHECK(r.err.find("cannot write") != std::string::npos);
  const CliResult hw = cli({"import-trace", trace, "--program", out, "--hw", "h801-sxm"});
  CHECK(hw.code == 2);
  CHECK(hw.err.find("--hw") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("kernel families follow the documented rule table", "[import-trace]") {
  using ovs::trace::kernel_family;
  CHECK(kernel_family("void dpsk::ep::internode::combine<false, 8>") == "deepep");
  CHECK(kernel_family("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>") == "deepep");
  CHECK(kernel_family("ncclDevKernel_AllGather_RING_LL") == "nccl");
  CHECK(kernel_family("void cutlass::device_kernel<flash::FlashAttnBwd<...>>") == "attention");
  CHECK(kernel_family("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8::GemmKernel>") ==
        "gemm");
  CHECK(kernel_family("sm90_xmma_gemm_bf16f32_bf16f32_f32_tn_n_tilesize128x128x64") == "gemm");
  CHECK(kernel_family("void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>") == "cast");
  CHECK(kernel_family("void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16>") == "cast");
  CHECK(kernel_family("void layer_norm::ln_fwd_kernel<...>") == "norm");
  CHECK(kernel_family(
            "at::native::DistributionNormal_cu_distribution_elementwise_grid_stride_kernel") ==
        "elementwise");
  CHECK(kernel_family("rotary_kernel") == "other");
}

TEST_CASE("segments are found from markers that recur once per layer, despite an extra kernel",
          "[import-trace]") {
  // Prologue x y, then three layers a b c d e; the second layer has one extra kernel z.
  // Names: a=0 b=1 c=2 d=3 e=4 x=5 y=6 z=7. Kernel i runs [10 i, 10 i + 8].
  const std::vector<int> names{5, 6, 0, 1, 2, 3, 4, 0, 1, 7, 2, 3, 4, 0, 1, 2, 3, 4};
  std::vector<double> start, end;
  for (size_t i = 0; i < names.size(); ++i) {
    start.push_back(10.0 * i);
    end.push_back(10.0 * i + 8);
  }
  const auto r = ovs::trace::find_segments(names, start, end);
  REQUIRE(r.found);
  CHECK(r.segments.size() == 3);
  CHECK(r.marker == 0);  // 'a' recurs first
  CHECK(r.agreeing_markers == 5);
  CHECK(r.prologue_kernels == 2);
  CHECK(r.period_kernels == Approx(5.5));  // every marker: spacings 5 and 6 (or 6 and 5)
  CHECK(r.segments[0].kernels == 5);
  CHECK(r.segments[1].kernels == 6);
  CHECK(r.segments[2].kernels == 5);
  CHECK(r.segments[0].duration_us() == Approx(50));  // start of kernel 2 to start of kernel 7
  CHECK(r.segments[1].duration_us() == Approx(60));
  CHECK(r.segments[2].duration_us() == Approx(48));  // kernel 13's start to kernel 17's end
  // Kernels 2..11 compared with 6 (rounded period) +- 2 positions later: all but z recur.
  CHECK(r.self_similarity == Approx(0.9));

  const auto none = ovs::trace::find_segments({0, 1, 2, 3}, {0, 1, 2, 3}, {1, 2, 3, 4});
  CHECK_FALSE(none.found);
  CHECK_FALSE(none.reason.empty());
}

TEST_CASE("DeepSeek's H800 trace: compute stream 7, DeepEP stream 27 on 20 SMs, ~2 us start gaps",
          "[import-trace]") {
  if (!have_deepseek_trace()) return;
  const Json j = import_json(kDeepSeekTrace);
  CHECK(j["kernels"] == 963);
  CHECK(j["gpu_sms"] == 132);
  CHECK(j["compute_stream"] == "stream7");
  CHECK(j["communication_stream"] == "stream27");
  CHECK(j["communication_sms"] == 20);
  const Json& s27 = stream_named(j, "stream27");
  CHECK(s27["grids"][0]["grid"] == Json::array({20, 1, 1}));
  CHECK(s27["grids"][0]["kernels"] == 28);
  CHECK(stream_named(j, "stream7")["sms"] == 112);  // the compute GEMMs leave DeepEP its 20 SMs
  // DeepEP's kernels run beside compute most of the time.
  CHECK(j["overlap"]["multi_stream_us"].get<double>() > 0.8 * j["span_us"].get<double>());
  // Eager launches: a call costs ~3 us on the host (gpus.csv: cudaLaunchKernel median 3 us);
  // the host runs ~15 ms ahead of the GPU, and a kernel whose stream is free starts ~2 us later.
  CHECK(j["launch"]["kernels_linked"] == 963);
  CHECK(j["launch"]["host_launch"]["median_us"] == Approx(3));
  CHECK(j["launch"]["launch_to_start"]["median_gap_us"].get<double>() > 10000);
  CHECK(j["launch"]["ready_to_start"]["median_gap_us"] == Approx(2).margin(1));
  // profile_train_h800_kernels.csv: the DeepEP families sum to 28360 us per layer, x 4 layers.
  for (const auto& f : j["families"])
    if (f["family"] == "deepep") CHECK(f["total_us"] == Approx(4 * 28360.0).epsilon(0.001));
  const CliResult table = cli({"import-trace", kDeepSeekTrace});
  INFO(table.out);
  CHECK(table.out.find("compute    stream7 (gemm): 907 kernels") != std::string::npos);
  CHECK(table.out.find("comm       stream27 (deepep): 40 kernels") != std::string::npos);
  CHECK(table.out.find("holds 20 SMs") != std::string::npos);
}

TEST_CASE("DeepSeek's H800 trace repeats in 4 layer segments of 31-32.5 ms", "[import-trace]") {
  if (!have_deepseek_trace()) return;
  const Json j = import_json(kDeepSeekTrace);
  const Json& sg = j["segments"];
  REQUIRE(sg["found"] == true);
  CHECK(sg["count"] == 4);
  CHECK(sg["period_kernels"] == Approx(227).margin(1));
  CHECK(sg["self_similarity"].get<double>() > 0.9);
  for (const auto& s : sg["list"]) {
    CHECK(s["duration_us"].get<double>() > 31000);
    CHECK(s["duration_us"].get<double>() < 32500);
  }
  CHECK(sg["mean_us"] == Approx(31676).margin(100));
}

TEST_CASE("DeepSeek's H800 trace exported as a program runs within 20 % of its measured span",
          "[import-trace]") {
  if (!have_deepseek_trace()) return;
  const std::string out = (temp_dir() / "deepseek-h800.yaml").string();
  const CliResult r = cli({"import-trace", kDeepSeekTrace, "--program", out, "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["program"]["launches"] == 963);
  const double measured = j["program"]["measured_span_us"];
  const CliResult run = cli({"run", out, "--json"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  const double makespan = Json::parse(run.out)["makespan_us"];
  INFO("measured span " << measured << " us, simulated makespan " << makespan << " us");
  CHECK(makespan == Approx(measured).epsilon(0.2));
  fs::remove(out);
}
