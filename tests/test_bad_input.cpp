// The bad-input suite: every loader (program, model config, hardware profile, strategy, sweep
// spec, microbenchmark CSV, published CSV, trace JSON) against every class of bad input
// (malformed syntax, unknown key with "did you mean", wrong type, missing field, out-of-range /
// NaN / negative number, unknown name, empty stage, cycle, a wait that can never fire, truncated
// file, missing file, directory). Each answer: exit code 2, exactly one line on stderr naming the
// file and the line (and the field where there is one), and no output file left behind.
// Cases already covered elsewhere (test_cli_run, test_profiles_and_validation,
// test_whatif_behaviour, test_sweep, test_bench_fit, test_import_trace) are not repeated here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "helpers.hpp"

using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

fs::path tmp_dir() {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests" / "bad-input";
  fs::create_directories(dir);
  return dir;
}

// `text` with `from` replaced by `to` (which must be there: a test that silently stops
// mutating its input would pass for the wrong reason).
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// `text` cut in the middle of the line holding `marker`, right after it.
// The 1-based line of the first occurrence of `needle` (so a test follows edits to the file).
int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::string cut_after(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  REQUIRE(at != std::string::npos);
  return text.substr(0, at + marker.size());
}

enum class Input { file, dir_of_file, missing, directory };

struct Case {
  Case(std::string name_, std::vector<std::string> args_, std::string text_, int line_,
       std::string field_, std::string needle_, Input input_ = Input::file,
       std::string file_in_dir_ = "", std::string ext_ = ".yaml")
      : name(std::move(name_)),
        args(std::move(args_)),
        text(std::move(text_)),
        line(line_),
        field(std::move(field_)),
        needle(std::move(needle_)),
        input(input_),
        file_in_dir(std::move(file_in_dir_)),
        ext(std::move(ext_)) {}
  std::string name;
  std::vector<std::string> args;  // "{in}": the input path, "{out}": an output path
  std::string text;               // the input's content
  int line;                       // expected line (0: none, e.g. a missing file)
  std::string field;              // expected field ("" when there is none)
  std::string needle;             // expected in the message
  Input input;
  std::string file_in_dir;  // Input::dir_of_file: the file's name inside the folder {in}
  std::string ext;          // the input file's extension
};

void check(const Case& c) {
  const fs::path base = tmp_dir() / c.name;
  fs::remove_all(base);
  fs::remove_all(base.string() + c.ext);
  std::string in = base.string() + c.ext, named = in;
  switch (c.input) {
    case Input::file:
      std::ofstream(in, std::ios::binary) << c.text;
      break;
    case Input::dir_of_file:
      fs::create_directories(base);
      in = base.string();
      named = (base / c.file_in_dir).string();
      std::ofstream(named, std::ios::binary) << c.text;
      break;
    case Input::missing:
      in = named = (base / "absent" / ("missing" + c.ext)).string();
      break;
    case Input::directory:
      fs::create_directories(base);
      in = named = base.string();
      break;
  }
  const fs::path out = tmp_dir() / (c.name + ".out");
  fs::remove(out);
  std::vector<std::string> args;
  for (auto a : c.args) {
    a = std::regex_replace(a, std::regex("\\{in\\}"), in);
    a = std::regex_replace(a, std::regex("\\{out\\}"), out.string());
    args.push_back(a);
  }
  const CliResult r = cli(args);
  INFO("case " << c.name << ": " << r.err);
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  if (c.input == Input::missing) {
    // A missing file named by a flag may be reported as the flag's error; it names the path.
    CHECK(r.err.find(named) != std::string::npos);
  } else {
    const std::string where =
        "error: " + named + (c.line > 0 ? ":" + std::to_string(c.line) : "") + ": ";
    CHECK(r.err.rfind(where, 0) == 0);
  }
  if (!c.field.empty()) CHECK(r.err.find("field '" + c.field + "'") != std::string::npos);
  CHECK(r.err.find(c.needle) != std::string::npos);
  // No output, and no temporary beside it.
  CHECK_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(tmp_dir()))
    CHECK(e.path().filename().string().rfind(c.name + ".out", 0) == std::string::npos);
}

void check_all(const std::vector<Case>& cases) {
  for (const auto& c : cases) check(c);
}

// --- programs (overlapsim run) ------------------------------------------------------------------

const std::vector<std::string> kRun{"run", "{in}", "--trace", "{out}"};

const std::string kProgram =
    "hardware: h800-sxm\n"             // 1
    "launch_mode: eager\n"             // 2
    "streams:\n"                       // 3
    "  - compute\n"                    // 4
    "  - {name: side, priority: 1}\n"  // 5
    "program:\n"                       // 6
    "  - launch: {name: gemm, stream: compute, work: {tensor_flops: {bf16: 1.0e9}, ctas: "
    "64}}\n"                                                              // 7
    "  - record: {event: done, stream: compute}\n"                        // 8
    "  - wait: {event: done, stream: side}\n"                             // 9
    "  - launch: {name: after, stream: side, duration_us: 5, sms: 8}\n";  // 10

// --- what-if inputs (model, hardware, strategy) --------------------------------------------------

std::vector<std::string> whatif(const std::string& model, const std::string& hw,
                                const std::string& strategy, const std::string& tokens = "8") {
  return {"whatif", "--model",          model,    "--hw",      hw,     "--phase",
          "decode", "--tokens-per-gpu", tokens,   "--context", "1024", "--ep",
          "16",     "--strategy",       strategy, "--trace",   "{out}"};
}

const std::string kV3Ops =
    "[comm_prepare_attn, attn.prepare, yield, attn.core, comm_prepare_mlp, gate, select_experts, "
    "yield, dispatch_a, shared_experts, yield, dispatch_b, experts, combine_a, yield, combine_b, "
    "yield, output, postprocess_layer]";

const std::string kStrategy =
    "name: bad\n"                  // 1
    "model_family: deepseek-v3\n"  // 2
    "two_batch_overlap: true\n"    // 3
    "tbo_delta_stages: 2\n"        // 4
    "deepep_mode: low_latency\n"   // 5
    "side_streams: [side0]\n"      // 6
    "layers:\n"                    // 7
    "  moe:\n"                     // 8
    "    operations: " +
    kV3Ops +
    "\n"                                                                                     // 9
    "    placement:\n"                                                                       // 10
    "      - {op: shared_experts, kernel: shared_quant, stream: side0, wait: [op_start]}\n"  // 11
    "      - {op: shared_experts, kernel: shared_down, stream: side0, record: [shared_done]}\n"  // 12
    "      - {op: output, kernel: moe_output_add, wait: [shared_done]}\n";  // 13

// --- sweep specs ---------------------------------------------------------------------------------

const std::vector<std::string> kSweep{"sweep", "{in}", "--out", "{out}", "-q"};

const std::string kSweepSpec =
    "name: bad-sweep\n"                                                                 // 1
    "base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, ep: 16}\n"  // 2
    "axes:\n"                                                                           // 3
    "  - {field: tokens_per_gpu, values: [8, 64]}\n"                                    // 4
    "  - {field: imbalance, range: {from: 1.0, to: 1.2, steps: 3}}\n"                   // 5
    "strategies: [tbo-decode]\n";                                                       // 6

// --- CSVs ----------------------------------------------------------------------------------------

const std::vector<std::string> kBench{"calibrate", "--base", "h800-sxm", "--bench",
                                      "{in}",      "--out",  "{out}"};
const std::string kBenchMeta = "# gpu: NVIDIA H800\n# date_utc: 2026-01-15T10:00:00Z\n";
const std::string kHbm = kBenchMeta +
                         "kernel,sms_used,ctas,bytes_moved,time_us\n"  // 3
                         "read,132,1056,1073741824,400\n"              // 4
                         "copy,66,528,1073741824,800\n";               // 5
const std::string kGemm = kBenchMeta +
                          "op,dtype,m,n,k,batch,sm_count_target,time_us,tile,splitk\n"  // 3
                          "gemm,bf16,4096,4096,4096,1,0,150,128x128,1\n";               // 4

const std::vector<std::string> kCalibrateData{"calibrate", "--base", "h800-sxm", "--data",
                                              "{in}",      "--out",  "{out}"};
const std::string kDeepgemm =
    "source_commit,kind,groups,m,n,k,tflops,gbps,speedup,gpu\n"                        // 1
    "a6d97a1,dense_normal,1,64,2112,7168,206,1688,2.7,H800 (NVCC 12.8)\n"              // 2
    "a6d97a1,grouped_contiguous,4,8192,4096,7168,1297,418,1.2,H800 (NVCC 12.8)\n"      // 3
    "a6d97a1,grouped_masked,1,1024,4096,7168,1233,924,1.2,\"H800 (NVCC 12.8; x)\"\n";  // 4

// --- traces --------------------------------------------------------------------------------------

const std::vector<std::string> kImport{"import-trace", "{in}", "--program", "{out}"};

const std::string kTrace =
    "{\"traceEvents\": [\n"                                                                    // 1
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7,\n"     // 2
    "   \"ts\": 100, \"dur\": 10, \"args\": {\"stream\": 7, \"grid\": [132, 1, 1]}},\n"        // 3
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"combine\", \"pid\": 0, \"tid\": 9,\n"  // 4
    "   \"ts\": 105, \"dur\": 12, \"args\": {\"stream\": 9, \"grid\": [20, 1, 1]}}\n"          // 5
    "]}\n";                                                                                    // 6

}  // namespace

TEST_CASE("bad programs: every class, one located line, no trace left behind", "[bad-input]") {
  check_all({
      {"program-malformed", kRun,
       edit(kProgram, "duration_us: 5, sms: 8}", "duration_us: 5, sms: 8"), 11, "",
       "malformed YAML"},
      {"program-unknown-key", kRun, edit(kProgram, "streams:", "stream:"), 3, "stream",
       "unknown key (did you mean 'streams'?)"},
      {"program-wrong-type", kRun, edit(kProgram, "launch_mode: eager", "launch_mode: [eager]"), 2,
       "launch_mode", "expected a text value"},
      {"program-missing-field", kRun, cut_after(kProgram, "priority: 1}\n"), 1, "program",
       "missing required field"},
      {"program-out-of-range", kRun, edit(kProgram, "sms: 8", "sms: 500"), 10,
       "program[3].launch.sms", "must be in [0, 132]"},
      {"program-nan", kRun, edit(kProgram, "sms: 8}", "sms: 8, host_us: .nan}"), 10,
       "program[3].launch.host_us", "finite"},
      {"program-negative", kRun, kProgram + "  - delay: {us: -2}\n", 11, "program[4].delay.us",
       "must be >= 0"},
      {"program-unknown-stream", kRun,
       edit(kProgram, "stream: side, duration", "stream: sid, duration"), 10,
       "program[3].launch.stream", "unknown stream 'sid' (did you mean 'side'?)"},
      {"program-unknown-event", kRun, kProgram + "  - block: {event: don}\n", 11,
       "program[4].block.event",
       "unknown event 'don': no action records it (did you mean 'done'?)"},
      {"program-unknown-hardware", kRun, edit(kProgram, "h800-sxm", "b300"), 1, "hardware",
       "unknown hardware profile 'b300'"},
      // The host would block on an event that is only recorded after it: a cycle.
      {"program-block-before-record", kRun,
       edit(kProgram, "  - record: {event: done",
            "  - block: {event: late}\n  - record: {event: late, stream: side}\n  - record: "
            "{event: done"),
       8, "program[1].block.event", "waited on before any record"},
      {"program-empty", kRun, cut_after(kProgram, "program:") + " []\n", 6, "program",
       "the program has no action"},
      {"program-empty-repeat", kRun, kProgram + "  - repeat: {count: 2, body: []}\n", 11,
       "program[4].repeat.body", "empty repeat body"},
      {"program-two-actions", kRun, kProgram + "  - {delay: {us: 1}, block: {event: done}}\n", 11,
       "program[4]", "exactly one of"},
      {"program-huge-repeat", kRun,
       kProgram +
           "  - repeat: {count: 1000000, body: [{repeat: {count: 1000000, body: [{delay: {us: "
           "1}}]}}]}\n",
       11, "program[4].repeat.count", "too many actions"},
      {"program-truncated", kRun, cut_after(kProgram, "work: {tensor_flops: {bf16: 1"), 7, "",
       "malformed YAML"},
      {"program-missing-file", kRun, "", 0, "", "no such file", Input::missing},
      {"program-directory", kRun, "", 0, "", "is a directory", Input::directory},
  });
}

TEST_CASE("bad model configs: every class, one located line, no trace left behind", "[bad-input]") {
  const std::string v3 = file_bytes(source_path("models/configs/deepseek-v3.yaml"));
  // The line of the shipped config a case edits (the config grows as the model does).
  auto line_of = [&v3](const std::string& text) {
    const auto at = v3.find(text);
    REQUIRE(at != std::string::npos);
    return 1 + static_cast<int>(std::count(v3.begin(), v3.begin() + at, '\n'));
  };
  const int v3_lines = static_cast<int>(std::count(v3.begin(), v3.end(), '\n'));
  const auto w = whatif("{in}", "h800-sxm", "tbo-decode");
  check_all({
      {"model-malformed", w, edit(v3, "hidden: {value: 7168,", "hidden: {value: 7168 ["), 5, "",
       "malformed YAML"},
      {"model-unknown-key", w, edit(v3, "hidden:", "hiden:"), 5, "hiden",
       "unknown key (did you mean 'hidden'?)"},
      {"model-wrong-type", w, edit(v3, "layers: {value: 61", "layers: {value: many"), 6,
       "layers.value", "expected an integer, got 'many'"},
      {"model-missing-field", w, edit(v3, "vocab:", "# vocab:"), 1, "vocab",
       "missing required field"},
      {"model-out-of-range", w, edit(v3, "topk: {value: 8", "topk: {value: 300"), 20, "moe.topk",
       "more experts per token than experts"},
      {"model-nan", w,
       edit(v3, "kv_bytes_per_token: {value: 656", "kv_bytes_per_token: {value: .nan"), 17,
       "attention.kv_bytes_per_token.value", "finite"},
      {"model-negative", w, edit(v3, "dense_layers: {value: 3", "dense_layers: {value: -3"), 7,
       "dense_layers.value", "must be in [0,"},
      {"model-unknown-family", w, edit(v3, "family: v3", "family: v5"), 4, "family",
       "unknown value 'v5' (did you mean 'v3'?)"},
      {"model-unknown-dtype", w, edit(v3, "expert_dtype: fp8", "expert_dtype: fp6"),
       line_of("expert_dtype: fp8"), "moe.expert_dtype", "expected one of: bf16, fp8, fp4"},
      {"model-v4-key-in-v3", w, v3 + "mhc: {hc_mult: 4, sinkhorn_iters: 20}\n", v3_lines + 1, "mhc",
       "mHC is a V4 feature"},
      {"model-mtp-rate", w,
       edit(v3, "acceptance_rate: {value: 0.85", "acceptance_rate: {value: 1.5"),
       line_of("acceptance_rate: {value: 0.85"), "mtp.acceptance_rate.value",
       "must be <= 1, got 1.5"},
      {"model-mtp-no-source", w,
       edit(v3, "acceptance_rate: {value: 0.85, range: [0.85, 0.9], source:",
            "acceptance_rate: {value: 0.85, range: [0.85, 0.9], sorce:"),
       line_of("acceptance_rate: {value: 0.85"), "mtp.acceptance_rate.sorce",
       "unknown key (did you mean 'source'?)"},
      {"model-truncated", w, cut_after(v3, "routed_experts: {value: 256, spread: 0, sour"), 19, "",
       "malformed YAML"},
      {"model-missing-file", w, "", 0, "", "no such model file", Input::missing},
      {"model-directory", w, "", 0, "", "is a directory", Input::directory},
      // search --out writes nothing either.
      {"model-search",
       {"search", "--model", "{in}", "--tokens-per-gpu", "8", "--context", "1024", "--ep", "16",
        "--out", "{out}"},
       edit(v3, "hidden:", "hiden:"),
       5,
       "hiden",
       "did you mean 'hidden'"},
  });
}

TEST_CASE("bad hardware profiles: every class, one located line, no trace left behind",
          "[bad-input]") {
  const std::string h800 = file_bytes(source_path("hw_profiles/h800-sxm.yaml"));
  const auto w = whatif("deepseek-v3", "{in}", "tbo-decode");
  check_all({
      {"hw-malformed", w, edit(h800, "vendor: nvidia", "vendor: [nvidia"), 7, "", "malformed YAML"},
      {"hw-unknown-key", w, edit(h800, "sm_count:", "sm_cont:"), 8, "sm_cont",
       "unknown key (did you mean 'sm_count'?)"},
      {"hw-wrong-type", w, edit(h800, "sm_count: {value: 132", "sm_count: {value: lots"), 8,
       "sm_count.value", "expected a number, got 'lots'"},
      {"hw-missing-field", w, edit(h800, "boost_clock_mhz:", "# boost_clock_mhz:"), 1,
       "boost_clock_mhz", "missing required field"},
      {"hw-out-of-range", w, edit(h800, "fp8: {value: 0.9422", "fp8: {value: 1.5"),
       line_of(h800, "fp8: {value: 0.9422"), "kernels.gemm.efficiency.fp8.value", "must be <= 1"},
      {"hw-nan", w, edit(h800, "peak_gbps: {value: 3350", "peak_gbps: {value: .NaN"),
       line_of(h800, "peak_gbps: {value: 3350"), "hbm.peak_gbps.value", "finite"},
      {"hw-negative", w, edit(h800, "launch_eager_us: {value: 3", "launch_eager_us: {value: -3"),
       line_of(h800, "launch_eager_us: {value: 3"), "host.launch_eager_us.value", "must be >= 0"},
      {"hw-unknown-vendor", w, edit(h800, "vendor: nvidia", "vendor: nvida"), 6, "vendor",
       "unknown value 'nvida' (did you mean 'nvidia'?)"},
      {"hw-achievable-over-peak", w,
       edit(h800, "achievable_gbps: {value: 2792", "achievable_gbps: {value: 4000"),
       line_of(h800, "achievable_gbps: {value: 2792"), "hbm.achievable_gbps",
       "must not exceed peak_gbps"},
      {"hw-dispatch-share-over-1", w,
       edit(h800, "dispatch_share: {value: 0,", "dispatch_share: {value: 1.5,"),
       line_of(h800, "dispatch_share: {value: 0,"), "sm.dispatch_share.value", "must be <= 1"},
      {"hw-split-k-without-1", w,
       edit(h800, "    pipeline_stages: {value: 0,",
            "    split_k: [2, 4]\n    pipeline_stages: {value: 0,"),
       line_of(h800, "pipeline_stages: {value: 0,"), "kernels.gemm.split_k",
       "must include 1 (no split)"},
      {"hw-no-kernels", w, cut_after(h800, "kernels:\n").substr(0, h800.find("kernels:\n")), 1,
       "kernels", "no kernels: section"},
      {"hw-truncated", w,
       cut_after(h800, "saturation_sms: {value: 37, range: [22.2, 55.5], source: \"Little"),
       line_of(h800, "saturation_sms: {value: 37"), "", "malformed YAML"},
      {"hw-missing-file", w, "", 0, "", "no such hardware profile file", Input::missing},
      {"hw-directory", w, "", 0, "", "is a directory", Input::directory},
  });
}

TEST_CASE("bad strategies: every class, one located line, no trace left behind", "[bad-input]") {
  const auto w = whatif("deepseek-v3", "h800-sxm", "{in}");
  check_all({
      {"strategy-malformed", w, edit(kStrategy, "side_streams: [side0]", "side_streams: [side0"), 7,
       "", "malformed YAML"},
      {"strategy-unknown-key", w, edit(kStrategy, "tbo_delta_stages:", "tbo_delta_stage:"), 4,
       "tbo_delta_stage", "unknown key (did you mean 'tbo_delta_stages'?)"},
      {"strategy-wrong-type", w,
       edit(kStrategy, "two_batch_overlap: true", "two_batch_overlap: maybe"), 3,
       "two_batch_overlap", "expected true or false"},
      {"strategy-missing-field", w, edit(kStrategy, "name: bad\n", ""), 1, "name",
       "missing required field"},
      {"strategy-out-of-range", w, edit(kStrategy, "tbo_delta_stages: 2", "tbo_delta_stages: 99"),
       4, "tbo_delta_stages", "must be in [0, 16]"},
      {"strategy-negative", w,
       edit(kStrategy, "deepep_mode:", "deep_gemm_num_sms: -4\ndeepep_mode:"), 5,
       "deep_gemm_num_sms", "must be in [1, 4096]"},
      {"strategy-unknown-mode", w,
       edit(kStrategy, "deepep_mode: low_latency", "deepep_mode: low-latency"), 5, "deepep_mode",
       "did you mean 'low_latency'"},
      {"strategy-unknown-layer-type", w, edit(kStrategy, "  moe:", "  swa:"), 9, "layers.swa",
       "not a layer type of this model family"},
      {"strategy-unknown-stream", w,
       edit(kStrategy, "kernel: shared_down, stream: side0", "kernel: shared_down, stream: side1"),
       12, "layers.moe.placement[1].stream", "unknown stream 'side1'"},
      {"strategy-unknown-placement-op", w, edit(kStrategy, "{op: output,", "{op: outptu,"), 13,
       "layers.moe.placement[2].op", "unknown op 'outptu' (did you mean 'output'?)"},
      {"strategy-unknown-kernel", w, edit(kStrategy, "kernel: shared_down", "kernel: shared_dow"),
       12, "layers.moe.placement[1].kernel", "op 'shared_experts' has no kernel 'shared_dow'"},
      {"strategy-empty-stage", w, edit(kStrategy, "operations: [", "operations: [yield, "), 9,
       "layers.moe.operations[0]", "empty stage"},
      {"strategy-yield-without-tbo", w,
       edit(edit(kStrategy, "two_batch_overlap: true", "two_batch_overlap: false"),
            "tbo_delta_stages: 2\n", ""),
       8, "layers.moe.operations[2]", "a yield needs two_batch_overlap: true"},
      // The side stream waits for an event that only a later op records: a cycle.
      {"strategy-cycle", w,
       edit(edit(kStrategy, "record: [shared_done]", "wait: [out_ready]"), "wait: [shared_done]",
            "record: [out_ready]"),
       12, "layers.moe.placement[1].wait", "recorded later"},
      {"strategy-wait-on-itself", w,
       edit(kStrategy, "record: [shared_done]}", "record: [shared_done], wait: [shared_done]}"), 12,
       "layers.moe.placement[1].wait", "recorded later"},
      {"strategy-placed-twice", w,
       kStrategy + "      - {op: shared_experts, kernel: shared_down, stream: compute}\n", 14,
       "layers.moe.placement[3]", "placed twice"},
      {"strategy-other-family", w, edit(kStrategy, "deepseek-v3", "deepseek-v4"), 2, "model_family",
       "another model family"},
      {"strategy-truncated", w, cut_after(kStrategy, "wait: [op_st"), 11, "", "malformed YAML"},
      {"strategy-missing-file", w, "", 0, "", "no such strategy file", Input::missing},
      {"strategy-directory", w, "", 0, "", "is a directory", Input::directory},
  });
}

TEST_CASE("bad sweep specs: every class, one located line, no CSV left behind", "[bad-input]") {
  check_all({
      {"sweep-malformed", kSweep, edit(kSweepSpec, "values: [8, 64]}", "values: [8, 64}"), 4, "",
       "malformed YAML"},
      {"sweep-unknown-key", kSweep, edit(kSweepSpec, "strategies:", "stratgies:"), 6, "stratgies",
       "unknown key (did you mean 'strategies'?)"},
      {"sweep-wrong-type", kSweep,
       kSweepSpec.substr(0, kSweepSpec.find("axes:")) + "axes: 5\nstrategies: [tbo-decode]\n", 3,
       "axes", "expected a list"},
      {"sweep-missing-name", kSweep, edit(kSweepSpec, "name: bad-sweep\n", ""), 1, "name",
       "missing required field"},
      {"sweep-out-of-range", kSweep, edit(kSweepSpec, "steps: 3", "steps: 0"), 5,
       "axes[1].range.steps", "must be in [1, 100000]"},
      {"sweep-range-backwards", kSweep, edit(kSweepSpec, "to: 1.2", "to: 0.5"), 5,
       "axes[1].range.to", "must be >= from"},
      {"sweep-nan", kSweep, edit(kSweepSpec, "from: 1.0", "from: .nan"), 5, "axes[1].range.from",
       "finite"},
      {"sweep-negative-axis", kSweep, edit(kSweepSpec, "values: [8, 64]", "values: [8, -64]"), 4,
       "axes[0].values[1]", "must be in [1,"},
      {"sweep-negative-base", kSweep, edit(kSweepSpec, "context: 2048", "context: -2048"), 2,
       "base.context", "must be in [1,"},
      {"sweep-nan-base", kSweep, edit(kSweepSpec, "ep: 16}", "ep: 16, imbalance: .nan}"), 2,
       "base.imbalance", "finite"},
      {"sweep-unknown-phase", kSweep, edit(kSweepSpec, "phase: decode", "phase: decod"), 2,
       "base.phase", "unknown value 'decod' (did you mean 'decode'?)"},
      {"sweep-unknown-hw", kSweep, edit(kSweepSpec, "hw: h800-sxm", "hw: h900-sxm"), 2, "base.hw",
       "unknown hardware profile 'h900-sxm' (did you mean"},
      {"sweep-unknown-model-in-axis", kSweep,
       kSweepSpec.substr(0, kSweepSpec.find("strategies")) +
           "  - {field: model, values: [deepseek-v3, deepseek-v7]}\nstrategies: [tbo-decode]\n",
       6, "axes[2].values", "unknown model 'deepseek-v7'"},
      {"sweep-unknown-baseline", kSweep, kSweepSpec + "baseline: no-overlapp\n", 7, "baseline",
       "did you mean 'no-overlap'"},
      {"sweep-unknown-base-field", kSweep, edit(kSweepSpec, "ep: 16}", "ep: 16, tokens: 8}"), 2,
       "base.tokens", "unknown field"},
      {"sweep-no-strategy", kSweep, edit(kSweepSpec, "[tbo-decode]", "[]"), 6, "strategies",
       "at least one strategy"},
      {"sweep-zip-unequal", kSweep, kSweepSpec + "combine: zip\n", 5, "axes",
       "zipped axes need the same number of values"},
      {"sweep-too-many-points", kSweep,
       kSweepSpec.substr(0, kSweepSpec.find("strategies")) +
           "  - {field: context, range: {from: 1, to: 100000, steps: 100000}}\n"
           "  - {field: hw.hbm.peak_gbps, range: {from: 1, to: 100000, steps: 100000}}\n"
           "  - {field: hw.l2.size_mib, range: {from: 1, to: 100000, steps: 100000}}\n"
           "  - {field: model.hidden, range: {from: 1, to: 100000, steps: 100000}}\n"
           "strategies: [tbo-decode]\n",
       4, "axes", "too many points"},
      {"sweep-truncated", kSweep, cut_after(kSweepSpec, "base: {model: deepseek-v3, hw: h8"), 2, "",
       "malformed YAML"},
      {"sweep-missing-file", kSweep, "", 0, "", "no such file", Input::missing},
      {"sweep-directory", kSweep, "", 0, "", "is a directory", Input::directory},
  });
}

TEST_CASE("bad microbenchmark CSVs: every class, one located line, no profile left behind",
          "[bad-input]") {
  auto hbm = [](const std::string& name, const std::string& text, int line,
                const std::string& field, const std::string& needle) {
    return Case{name, kBench, text, line, field, needle, Input::dir_of_file, "hbm.csv", ""};
  };
  check_all({
      hbm("bench-unterminated-quote", edit(kHbm, "copy,66", "\"copy,66"), 5, "",
          "unterminated quoted field"),
      hbm("bench-field-count", edit(kHbm, "copy,66,528,", "copy,66,528,7,"), 5, "",
          "expected 5 fields, got 6"),
      hbm("bench-duplicate-column", edit(kHbm, "ctas,bytes", "sms_used,bytes"), 3, "sms_used",
          "duplicate column"),
      hbm("bench-not-whole", edit(kHbm, "copy,66,", "copy,66.5,"), 5, "sms_used",
          "expected a whole number >= 1, got '66.5'"),
      hbm("bench-nan", edit(kHbm, "1073741824,800", "1073741824,nan"), 5, "time_us",
          "expected a number, got 'nan'"),
      hbm("bench-zero", edit(kHbm, "1073741824,800", "1073741824,0"), 5, "time_us",
          "expected a positive number"),
      hbm("bench-bad-date", edit(kHbm, "2026-01-15T10:00:00Z", "yesterday"), 2, "date_utc",
          "expected an ISO 8601 date"),
      hbm("bench-bad-sm-count", edit(kHbm, "# date_utc", "# sm_count: many\n# date_utc"), 2,
          "sm_count", "got 'many'"),
      hbm("bench-huge-sm-count", edit(kHbm, "# date_utc", "# sm_count: 1e300\n# date_utc"), 2,
          "sm_count", "got '1e300'"),
      hbm("bench-truncated", cut_after(kHbm, "copy,66,52"), 5, "", "expected 5 fields, got 3"),
      Case{"bench-huge-tile", kBench, edit(kGemm, "128x128", "99999999999x128"), 4, "tile",
           "99999999999x128", Input::dir_of_file, "gemm.csv", ""},
      Case{"bench-gemm-negative", kBench, edit(kGemm, "bf16,4096", "bf16,-4096"), 4, "m",
           "expected a whole number >= 1, got '-4096'", Input::dir_of_file, "gemm.csv", ""},
  });
  // A directory where hbm.csv should be a file.
  const fs::path d = tmp_dir() / "bench-csv-is-dir";
  fs::remove_all(d);
  fs::create_directories(d / "hbm.csv");
  const fs::path out = tmp_dir() / "bench-csv-is-dir.out";
  const CliResult r =
      cli({"calibrate", "--base", "h800-sxm", "--bench", d.string(), "--out", out.string()});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.rfind("error: " + (d / "hbm.csv").string() + ": is a directory", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("bad published CSVs: every class, one located line, no profile left behind",
          "[bad-input]") {
  auto csv = [](const std::string& name, const std::string& text, int line,
                const std::string& field, const std::string& needle, Input input = Input::file) {
    return Case{name, kCalibrateData, text, line, field, needle, input, "", ".csv"};
  };
  check_all({
      csv("published-unknown-header", edit(kDeepgemm, "source_commit,", "commit,"), 1, "header",
          "unrecognised CSV"),
      csv("published-unterminated-quote", edit(kDeepgemm, "x)\"", "x)"), 4, "",
          "unterminated quoted field"),
      csv("published-field-count", edit(kDeepgemm, "1688,2.7,", "1688,2.7,9,"), 2, "",
          "expected 10 fields, got 11"),
      csv("published-not-a-number", edit(kDeepgemm, "7168,206,", "7168,fast,"), 2, "tflops",
          "expected a number, got 'fast'"),
      csv("published-zero", edit(kDeepgemm, "7168,206,", "7168,0,"), 2, "tflops",
          "expected a positive number, got '0'"),
      csv("published-nan", edit(kDeepgemm, "1,64,2112", "1,nan,2112"), 2, "m",
          "expected a number, got 'nan'"),
      csv("published-negative", edit(kDeepgemm, "1,64,2112", "1,-64,2112"), 2, "m",
          "expected a whole number in [1, 1073741824], got '-64'"),
      csv("published-fraction", edit(kDeepgemm, "grouped_contiguous,4,", "grouped_contiguous,2.5,"),
          3, "groups", "expected a whole number in [1, 4096], got '2.5'"),
      csv("published-huge", edit(kDeepgemm, "1,64,2112", "1,1e300,2112"), 2, "m",
          "expected a whole number in [1, 1073741824], got '1e300'"),
      csv("published-truncated", cut_after(kDeepgemm, "a6d97a1,grouped_contiguous,4,81"), 3, "",
          "expected 10 fields, got 4"),
      csv("published-missing-file", "", 0, "", "no such file", Input::missing),
      csv("published-directory", "", 0, "", "is a directory", Input::directory),
  });
  // validate reads the same files the same way.
  const fs::path p = tmp_dir() / "published-validate.csv";
  std::ofstream(p) << edit(kDeepgemm, "7168,206,", "7168,-206,");
  const CliResult r = cli({"validate", p.string(), "--hw", "h800-sxm"});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.rfind("error: " + p.string() + ":2: field 'tflops': ", 0) == 0);
}

TEST_CASE("bad traces: every class, one located line, no program left behind", "[bad-input]") {
  auto trace = [](const std::string& name, const std::string& text, int line,
                  const std::string& field, const std::string& needle, Input input = Input::file) {
    return Case{name, kImport, text, line, field, needle, input, "", ".json"};
  };
  check_all({
      trace("trace-malformed", edit(kTrace, "\"dur\": 12,", "\"dur\": 12"), 5, "",
            "invalid JSON at byte"),
      trace("trace-wrong-type", edit(kTrace, "\"ts\": 105", "\"ts\": \"105\""), 5,
            "traceEvents[1].ts", "expected a start time in us, got a string"),
      trace("trace-negative", edit(kTrace, "\"dur\": 12", "\"dur\": -12"), 5, "traceEvents[1].dur",
            "expected a duration in us >= 0"),
      trace("trace-huge", edit(kTrace, "\"dur\": 12", "\"dur\": 1e999"), 5, "", "invalid JSON"),
      trace("trace-missing-name", edit(kTrace, "\"name\": \"combine\", ", ""), 5,
            "traceEvents[1].name", "expected a kernel name"),
      trace("trace-no-stream",
            edit(edit(kTrace, "\"tid\": 9,", "\"tid\": \"gpu\","), "\"stream\": 9, ", ""), 5,
            "traceEvents[1].tid", "no stream"),
      trace("trace-events-not-list", "{\"traceEvents\":\n  \"none\"}", 2, "traceEvents",
            "expected an array of events, got a string"),
      trace("trace-truncated", cut_after(kTrace, "\"name\": \"comb"), 4, "traceEvents[1].name",
            "the file ends early"),
      trace("trace-missing-file", "", 0, "", "cannot open trace", Input::missing),
      trace("trace-directory", "", 0, "", "is a directory", Input::directory),
  });
}

TEST_CASE("a split that leaves a micro-batch empty says so and runs unsplit", "[bad-input]") {
  for (const auto& [phase, strategy] :
       {std::pair<std::string, std::string>{"decode", "tbo-decode"}, {"prefill", "tbo-prefill"}}) {
    const CliResult r = cli({"whatif", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase",
                             phase, "--tokens-per-gpu", "1", "--context", "1024", "--ep", "16",
                             "--strategy", strategy, "--json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("cannot be split in two") != std::string::npos);
    CHECK(r.out.find("without two-batch overlap") != std::string::npos);
  }
  // The same inside a sweep: the point's row says so, the sweep goes on.
  const fs::path spec = tmp_dir() / "split-sweep.yaml";
  std::ofstream(spec) << "name: split\nbase: {model: deepseek-v3, hw: h800-sxm, context: 1024, "
                         "ep: 16}\naxes:\n  - {field: tokens_per_gpu, values: [1, 2]}\n"
                         "strategies: [tbo-decode]\n";
  const fs::path out = tmp_dir() / "split-sweep.csv";
  const CliResult r = cli({"sweep", spec.string(), "--out", out.string(), "-q", "-j", "1"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string csv = file_bytes(out.string());
  CHECK(csv.find("cannot be split in two") != std::string::npos);
}
