// The layer benchmark's CPU side (issue 36): `whatif --export-layers` writes an engine program
// and a bench plan of the same kernels; the plan reader the CUDA benchmark uses reads it back;
// `validate` compares a layer run's CSV with the engine's prediction of the same programs. The
// CUDA part (calibrate/bench/layer.cpp) needs a GPU and is not run here.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "app/program/program_loader.hpp"
#include "calibrate/fit/layer_validation.hpp"
#include "helpers.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/io/bench_plan.hpp"

namespace ovs {
namespace {

using namespace ovs::test;

namespace bp = bench_plan;

const std::vector<std::string> kDecodePoint = {
    "whatif",   "--model",    "deepseek-v3", "--hw",
    "h200-sxm", "--phase",    "decode",      "--tokens-per-gpu",
    "64",       "--context",  "4096",        "--ep",
    "32",       "--strategy", "tbo-decode",  "--no-alternatives"};

// Exports the decode point's two runs into a folder of its own per test (tests run in parallel).
std::filesystem::path exported(const std::string& group) {
  const auto dir = scratch_path(group, "x").parent_path();
  const auto prefix = dir / "v3";
  auto args = kDecodePoint;
  args.insert(args.end(), {"--export-layers", prefix.string()});
  const CliResult r = cli(args);
  REQUIRE(r.code == 0);
  return dir;
}

double engine_window_us(const LoadedProgram& lp, Timeline* tl = nullptr) {
  return Engine(lp.hw.engine).run(lp.program, tl).makespan_us;
}

TEST_CASE("LayerExport: plan and program describe the same kernels", "[layer-export]") {
  const auto dir = exported("layer-export-kernels");
  for (const char* strategy : {"no-overlap", "tbo-decode"}) {
    const std::string stem = (dir / (std::string("v3-") + strategy)).string();
    const bp::Plan plan = bp::load(stem + ".plan");
    const LoadedProgram lp = load_program(stem + ".yaml");
    REQUIRE(plan.kernels.size() == lp.program.kernels.size());
    CHECK(plan.strategy == strategy);
    CHECK(plan.layers == 4);
    CHECK(plan.launch_mode == "graph");  // decode runs under CUDA graphs
    CHECK(plan.point.find("--tokens-per-gpu 64") != std::string::npos);
    int gemms = 0, standins = 0;
    for (size_t i = 0; i < plan.kernels.size(); ++i) {
      const bp::Kernel& k = plan.kernels[i];
      const KernelSpec& spec = lp.program.kernels[i];
      if (k.kind == bp::Kind::standin) {
        ++standins;
        // The stand-in holds DeepEP's SMs for the duration the whole run gave the kernel, and the
        // engine program carries the same given duration.
        REQUIRE(spec.duration_us.has_value());
        CHECK(*spec.duration_us == Approx(k.duration_us).epsilon(1e-12));
        CHECK(spec.sms == k.sms);
        continue;
      }
      if (k.kind != bp::Kind::gemm) continue;
      ++gemms;
      // The priced tensor FLOPs include tile padding: at least the shape's 2 m n k per group,
      // and for these shapes (m >= 1, tiles of at most 256 rows) at most 256 times it.
      const double useful = 2.0 * double(k.m) * double(k.n) * double(k.k) * k.groups;
      CHECK(k.tensor_flops >= useful * (1 - 1e-9));
      CHECK(k.tensor_flops <= useful * 256);
      CHECK_FALSE(k.weight.empty());
    }
    CHECK(gemms > 10);
    CHECK(standins > 4);
  }
}

TEST_CASE("LayerExport: run predicts the exported window", "[layer-export]") {
  const auto dir = exported("layer-export-window");
  for (const char* strategy : {"no-overlap", "tbo-decode"}) {
    const std::string stem = (dir / (std::string("v3-") + strategy)).string();
    const bp::Plan plan = bp::load(stem + ".plan");
    const LoadedProgram lp = load_program(stem + ".yaml");
    // The YAML read back gives the window the exporter's engine run gave (the program's numbers
    // are written round-trip exact).
    CHECK(engine_window_us(lp) ==
          Approx(plan.predicted.at("window_us")).margin(1e-6 * plan.predicted.at("window_us")));
  }
  // Two micro-batches launch each compute kernel of the same layers twice (a few, such as the
  // micro-batch split itself, once per batch).
  const bp::Plan base = bp::load((dir / "v3-no-overlap.plan").string());
  const bp::Plan tbo = bp::load((dir / "v3-tbo-decode.plan").string());
  auto compute = [](const bp::Plan& p) {
    int n = 0;
    for (const auto& k : p.kernels) n += k.kind != bp::Kind::standin;
    return n;
  };
  CHECK(compute(tbo) > 1.8 * compute(base));
  CHECK(compute(tbo) < 2.2 * compute(base));
}

TEST_CASE("LayerExport: plan round trips through its reader", "[layer-export]") {
  const auto dir = exported("layer-export-round-trip");
  const std::string text = file_bytes(dir / "v3-tbo-decode.plan");
  std::ostringstream again;
  bp::write(again, bp::parse(text, "v3-tbo-decode.plan"));
  CHECK(again.str() == text);
}

TEST_CASE("LayerExport: bad plans name file line and field", "[layer-export]") {
  auto error_of = [](const std::string& text) {
    try {
      bp::parse(text, "p.plan");
    } catch (const bp::PlanError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "overlapsim-bench-plan 1\nstream 0 compute 0\nevents 1\n";
  CHECK(error_of("hello\n") ==
        "p.plan:1: header: not an overlapsim bench plan (first line 'overlapsim-bench-plan 1')");
  CHECK(error_of(head + "kernel 0 gemm stream=0 m=1 n=2 k=3 colour=red\nlaunch 0\n") ==
        "p.plan:4: colour: unknown field");
  CHECK(error_of(head + "kernel 0 gemm stream=0 m=1 n=2\nlaunch 0\n") ==
        "p.plan:4: m: a gemm needs m, n and k");
  CHECK(error_of(head + "kernel 0 memory stream=1\nlaunch 0\n") ==
        "p.plan:4: stream: stream 1 is not declared");
  CHECK(error_of(head + "wait 0 0\n") == "p.plan:4: event: waited on before any record");
  CHECK(error_of(head + "launch 3\n") == "p.plan:4: launch: kernel 3 is not declared");
  CHECK(error_of(head + "kernel 0 memory stream=0 read_bytes=-5\nlaunch 0\n") ==
        "p.plan:4: read_bytes: must not be negative");
  CHECK(error_of(head + "kernel 0 memory stream=0\n") ==
        "p.plan:4: launch: kernel 0 is never launched");
}

TEST_CASE("LayerExport: a missing layer is a flag error", "[layer-export]") {
  auto args = kDecodePoint;
  args.insert(args.end(), {"--export-layers", scratch_path("layer-export-bad", "x").string(),
                           "--export-first-layer", "500"});
  const CliResult r = cli(args);
  CHECK(r.code == 2);
  CHECK(r.err.find("--export-first-layer") != std::string::npos);
  CHECK(r.err.find("no kernels of layers 500..503") != std::string::npos);
}

// A layer run's CSV made from the engine's own figures scaled by known factors: the validation's
// errors are those factors' (arithmetic, not a measurement).
TEST_CASE("LayerExport: validate compares runs with the engine", "[layer-export]") {
  const auto dir = exported("layer-validate");
  std::ofstream csv(dir / "layer.csv");
  csv << std::setprecision(17);
  csv << "# gpu: test (rows made from the engine's figures, not measured)\n"
         "plan,strategy,first_layer,layers,kernel,name,kind,stream,runs_as,measured_alone_us,"
         "measured_in_run_us,predicted_alone_us,predicted_in_run_us,reps\n";
  // Measured = predicted x 1.25 for the overlapped window and x 1.0 for the serial one; every
  // kernel 1.1 x the engine's time alone and in the run.
  for (const auto& [strategy, window_factor] :
       {std::pair{"no-overlap", 1.0}, std::pair{"tbo-decode", 1.25}}) {
    const std::string name = std::string("v3-") + strategy;
    const LoadedProgram lp = load_program((dir / (name + ".yaml")).string());
    Timeline tl(lp.program, false, false);
    const double window = engine_window_us(lp, &tl);
    const Engine engine(lp.hw.engine);
    for (size_t i = 0; i < lp.program.kernels.size(); ++i)
      csv << name << ".plan," << strategy << ",0,2," << i << ",k,gemm,0,x,"
          << 1.1 * engine.solo_time_us(lp.program.kernels[i]) << ','
          << 1.1 * tl.kernels()[i].duration_us() << ",0,0,5\n";
    csv << name << ".plan," << strategy << ",0,2,-1,window,window,-1,graph,,"
        << window * window_factor << ",,,5\n";
  }
  csv.close();
  const CliResult r = cli({"validate", dir.string(), "--json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["plans"].size() == 2u);
  CHECK(j["plans"][0]["window_error"].get<double>() == Approx(0).margin(1e-6));
  CHECK(j["plans"][1]["window_error"].get<double>() == Approx(1 / 1.25 - 1).margin(1e-6));
  // |1 / 1.1 - 1| = 9.09 % for every kernel compared (stand-ins are not).
  CHECK(j["plans"][1]["mape_alone_pct"].get<double>() == Approx(100 * (1 - 1 / 1.1)).margin(0.01));
  CHECK(j["plans"][1]["mape_in_run_pct"].get<double>() == Approx(100 * (1 - 1 / 1.1)).margin(0.01));
  REQUIRE(j["ratios"].size() == 1u);
  CHECK(j["ratios"][0]["strategy"] == "tbo-decode");
  // Measured ratio = 1.25 x the predicted one: the ratio's error is 1 / 1.25 - 1 = -20 %.
  CHECK(j["ratios"][0]["error"].get<double>() == Approx(-0.2).margin(1e-6));
  const CliResult table = cli({"validate", dir.string()});
  CHECK(table.out.find("Overlapped over serial") != std::string::npos);
}

}  // namespace
}  // namespace ovs
