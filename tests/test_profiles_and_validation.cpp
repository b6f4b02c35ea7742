// Shipped profiles load and cite a source for every number; the cost models meet the published
// measurements (calibrate/published/, copies of ../shared/data) within the bounds users rely on.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "calibrate/fit/validation.hpp"
#include "helpers.hpp"
#include "sim/io/data_paths.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {
std::string published(const std::string& name) {
  return source_path("calibrate/published/" + name);
}
}  // namespace

TEST_CASE("every shipped profile loads and every number in it has a source", "[profiles]") {
  const auto names = shipped_names("hw_profiles");
  CHECK(names == std::vector<std::string>{"b200", "gb200", "h100-sxm", "h20", "h200-sxm",
                                          "h800-sxm", "mi355x"});
  for (const auto& n : names) {
    INFO(n);
    const HwProfile p = load_hw_profile(n);
    CHECK(p.has_kernel_params);
    CHECK(p.fields.size() > 40);
    for (const auto& f : p.fields) {
      INFO(f.path);
      CHECK(!f.source.empty());
    }
  }
}

TEST_CASE("DeepGEMM rows on h800-sxm: MAPE <= 5 %", "[validate]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  const auto set = load_measurements(published("deepgemm.csv"), hw);
  REQUIRE(set.rows.size() == 20);  // today's table (a9967bc)
  const auto r = validate(hw, set);
  CHECK(r.mape.at("deepgemm") <= 0.05);
}

TEST_CASE("DeepEP low-latency and normal: every row within 10 %", "[validate]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  const auto set = load_measurements(published("deepep.csv"), hw);
  const auto r = validate(hw, set);
  CHECK(r.mape.at("deepep_low_latency") <= 0.10);
  CHECK(r.mape.at("deepep_normal") <= 0.10);
  // Each row of DeepEP's current tables alone (send + data in flight + receive for low-latency).
  for (const auto& row : r.rows) {
    INFO(row.m->label << ": measured " << row.m->measured_us << " us, predicted "
                      << row.predicted_us << " us");
    CHECK(std::fabs(row.error) <= 0.10);
  }
}

TEST_CASE("FlashMLA per-shape rows within 15 %", "[validate]") {
  const HwProfile hw = load_hw_profile("h100-sxm");
  const auto set = load_measurements(published("flashmla.csv"), hw);
  REQUIRE(set.rows.size() == 5);
  const auto r = validate(hw, set);
  for (const auto& row : r.rows) {
    INFO(row.m->label);
    CHECK(std::fabs(row.error) <= 0.15);
  }
}

TEST_CASE("other shapes of the same kernels: older DeepGEMM tables within their version spread",
          "[validate]") {
  // The older tables (a6d97a1, 55ab91f) measured the same shapes with slower kernels: the model
  // fitted to today's table must not be further off than the spread between versions (~10 %).
  const HwProfile hw = load_hw_profile("h800-sxm");
  const auto set = load_measurements(published("deepgemm.csv"), hw, SelectOptions{true});
  const auto r = validate(hw, set);
  CHECK(r.rows.size() == 60);
  CHECK(r.mape.at("deepgemm") <= 0.10);
}

TEST_CASE("kernel and validate commands answer with JSON", "[cli][kernel]") {
  const CliResult k =
      cli({"kernel", "--hw", "h800-sxm", "--gemm", "4096,7168,16384", "--dtype", "fp8", "--json"});
  REQUIRE(k.code == 0);
  CHECK(k.out.find("\"time_us\"") != std::string::npos);
  CHECK(k.out.find("\"bound\": \"compute\"") != std::string::npos);
  const CliResult ll =
      cli({"kernel", "--hw", "h800-sxm", "--deepep", "low_latency", "--op", "dispatch", "--ep",
           "32", "--tokens", "128", "--hidden", "7168", "--topk", "8", "--json"});
  REQUIRE(ll.code == 0);
  CHECK(ll.out.find("\"bound\": \"link\"") != std::string::npos);
  for (const auto& hw : shipped_names("hw_profiles")) {
    INFO(hw);
    CHECK(cli({"kernel", "--hw", hw, "--gemm", "256,7168,2048", "--groups", "4", "--layout",
               "masked", "--json"})
              .code == 0);
    CHECK(cli({"kernel", "--hw", hw, "--attention", "mla_decode", "--batch", "64", "--kv-len",
               "4096"})
              .code == 0);
    CHECK(cli({"validate", published("deepgemm.csv"), "--hw", hw}).code == 0);
  }
}

TEST_CASE("validate shows the source of every profile number its predictions use",
          "[validate][profiles]") {
  // H20 has no DeepGEMM row of its own: validate says so and shows where the GEMM numbers it
  // would use come from (copied from H800's fit, with the copy named).
  const CliResult t = cli({"validate", published("deepgemm.csv"), "--hw", "H20"});
  REQUIRE(t.code == 0);
  CHECK(t.out.find("no row of this file applies to h20") != std::string::npos);
  CHECK(t.out.find("profile numbers these predictions use") != std::string::npos);
  CHECK(t.out.find("kernels.gemm.efficiency.fp8") != std::string::npos);
  CHECK(t.out.find("as for h800-sxm") != std::string::npos);
  CHECK(t.out.find("kernels.comm.") == std::string::npos);  // DeepEP numbers: not used here
  // JSON: one entry per field with its line, and whether it is labelled an estimate.
  const CliResult j = cli({"validate", published("deepep.csv"), "--hw", "gb200", "--json"});
  REQUIRE(j.code == 0);
  const auto sources = nlohmann::json::parse(j.out)["profile_sources"];
  bool hbm = false, nvlink = false;
  for (const auto& f : sources) {
    CHECK(!f["source"].get<std::string>().empty());
    const std::string field = f["field"];
    if (field == "hbm.peak_gbps") {
      hbm = true;
      CHECK(f["value"].get<double>() == Approx(8000));  // gpus.csv GB200 hbm_bandwidth 8 TB/s
      CHECK(f["estimate"].get<bool>() == false);
    }
    if (field == "links.nvlink.gbps") {
      nvlink = true;
      CHECK(f["value"].get<double>() == Approx(726));  // gpus.csv SM100 DeepEP V2 dispatch
      CHECK(f["estimate"].get<bool>() == true);        // a B200 figure taken for GB200
    }
    CHECK(field.rfind("kernels.gemm", 0) == std::string::npos);
  }
  CHECK(hbm);
  CHECK(nvlink);
}

TEST_CASE("bad profiles: one line naming file, line and field; exit 2", "[profiles][bad-input]") {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests";
  fs::create_directories(dir);
  std::ifstream in(source_path("tests/data/test-gpu.yaml"));
  const std::string good((std::istreambuf_iterator<char>(in)), {});
  auto bad = [&](const std::string& name, std::string text, const std::string& needle) {
    const fs::path p = dir / name;
    std::ofstream(p) << text;
    const CliResult r =
        cli({"kernel", "--hw", p.string(), "--gemm", "64,64,64", "--dtype", "bf16"});
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(p.string() + ":") != std::string::npos);
    CHECK(r.err.find(needle) != std::string::npos);
  };
  std::string missing = good;
  missing.erase(missing.find("cuda_core_peak_tflops"),
                missing.find('\n', missing.find("cuda_core_peak_tflops")) -
                    missing.find("cuda_core_peak_tflops") + 1);
  bad("missing.yaml", missing, "cuda_core_peak_tflops");
  std::string negative = good;
  negative.replace(negative.find("achievable_gbps: {value: 1000"), 29,
                   "achievable_gbps: {value: -5");
  bad("negative.yaml", negative, "hbm.achievable_gbps");
  std::string dtype = good;
  dtype.replace(dtype.find("fp4: {value: 0"), 3, "fp6");
  bad("dtype.yaml", dtype, "unknown key");
  const CliResult unknown = cli({"kernel", "--hw", "h900", "--gemm", "64,64,64"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("h800-sxm") != std::string::npos);  // lists the shipped names
}
