// GPU names and NVLink domains: a profile's aliases resolve as its name; the profile's
// `nvlink_domain_gpus` is the default GPUs per node, so an EP group inside the domain (GB200
// NVL72: 72 GPUs) sends nothing over RDMA and one larger than it does; EP sizes that do not divide
// the routed experts run with redundant copies (SGLang --ep-num-redundant-experts).
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "app/analysis/whatif.hpp"
#include "app/sweep/sweep_point.hpp"
#include "app/sweep/sweep_spec.hpp"
#include "cli_json.hpp"
#include "helpers.hpp"
#include "models/cost/comm.hpp"
#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

// Bytes the forward of `strategy` puts on each link, summed over its kernels.
std::array<double, kNumLinks> link_bytes(const std::string& model, const std::string& hw,
                                         Workload w, const std::string& strategy) {
  const ModelConfig m = load_model_config(model);
  WhatIfSession session(m, load_hw_profile(hw), w);
  const StrategyRun& run = session.run(load_strategy(strategy, m.family));
  std::array<double, kNumLinks> sum{};
  for (const auto& k : run.built.program.kernels)
    for (int l = 0; l < kNumLinks; ++l) sum[l] += k.work.link_bytes[l];
  return sum;
}

Workload decode(std::int64_t requests, int ep, int redundant = 0) {
  Workload w = workload(Phase::decode, requests, 2000, ep);
  w.gpus_per_node = 0;  // the profile's NVLink domain
  w.redundant_experts = redundant;
  return w;
}

constexpr int kNvlink = static_cast<int>(Link::nvlink);
constexpr int kRdma = static_cast<int>(Link::rdma);

}  // namespace

TEST_CASE("aliases resolve as names: H20, GB200, gb200-nvl72", "[profiles][names]") {
  CHECK(load_hw_profile("H20").name == "h20");
  CHECK(load_hw_profile("GB200").name == "gb200");
  CHECK(load_hw_profile("gb200-nvl72").name == "gb200");
  CHECK(load_hw_profile("H800").name == "h800-sxm");  // published-data names resolve too
  // The file names keep working, and an unknown name still lists the shipped files.
  CHECK(load_hw_profile("gb200").name == "gb200");
  try {
    load_hw_profile("GB300");
    FAIL("GB300 is not shipped");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("unknown hardware profile 'GB300'") != std::string::npos);
    CHECK(std::string(e.what()).find("gb200") != std::string::npos);
  }
  // On the command line as well.
  CHECK(whatif_json({"--hw", "GB200", "--tokens-per-gpu", "8", "--context", "2000", "--ep", "8",
                     "--strategy", "sbo"})["hardware"] == "gb200");
}

TEST_CASE("every alias names exactly one shipped profile and no other profile's file",
          "[profiles][names]") {
  const auto names = shipped_names("hw_profiles");
  std::map<std::string, std::string> owner;
  for (const auto& n : names) {
    const HwProfile p = load_hw_profile(n);
    CHECK(p.name == n);
    for (const auto& a : p.aliases) {
      INFO(n << " alias " << a);
      CHECK(owner.emplace(a, n).second);
      CHECK(std::find(names.begin(), names.end(), a) == names.end());
      CHECK(load_hw_profile(a).name == n);
    }
  }
}

TEST_CASE("every shipped profile gives its NVLink domain with a source", "[profiles][nvlink]") {
  // Published sizes (gpus.csv): HGX boards join 8 GPUs; GB200 NVL72 joins 72 (nvlink_domain_size).
  const std::map<std::string, int> expected{{"h100-sxm", 8}, {"h800-sxm", 8}, {"h200-sxm", 8},
                                            {"h20", 8},      {"b200", 8},     {"gb200", 72},
                                            {"mi355x", 8}};
  CHECK(shipped_names("hw_profiles").size() == expected.size());
  for (const auto& [name, gpus] : expected) {
    INFO(name);
    const HwProfile p = load_hw_profile(name);
    CHECK(p.nvlink_domain_gpus == gpus);
    bool sourced = false;
    for (const auto& f : p.fields)
      if (f.path == "nvlink_domain_gpus") sourced = !f.source.empty();
    CHECK(sourced);
  }
}

TEST_CASE("a profile with cost models but no NVLink domain is an error naming the field",
          "[profiles][nvlink][bad-input]") {
  std::ifstream in(source_path("hw_profiles/h800-sxm.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), {}), kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("nvlink_domain_gpus:", 0) != 0) kept += line + "\n";
  REQUIRE(kept.size() < text.size());
  const std::string path =
      (std::filesystem::temp_directory_path() / "overlapsim-test-no-domain.yaml").string();
  std::ofstream(path) << kept;
  const CliResult r = cli({"whatif", "--hw", path, "--tokens-per-gpu", "8", "--context", "64",
                           "--ep", "8", "--strategy", "sbo"});
  std::remove(path.c_str());
  CHECK(r.code == 2);
  CHECK(r.err.find("nvlink_domain_gpus") != std::string::npos);
  CHECK(r.err.find("overlapsim-test-no-domain.yaml") != std::string::npos);
}

TEST_CASE("the GPUs per node default to the profile's NVLink domain and a given value wins",
          "[whatif][nvlink]") {
  auto gpn = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"--tokens-per-gpu", "8",  "--context", "2000",
                                  "--strategy",       "sbo"};
    args.insert(args.end(), extra.begin(), extra.end());
    return whatif_json(args)["gpus_per_node"].get<int>();
  };
  CHECK(gpn({"--hw", "gb200", "--ep", "48", "--redundant-experts", "32"}) == 72);
  CHECK(gpn({"--hw", "h20", "--ep", "16"}) == 8);
  CHECK(gpn({"--hw", "gb200", "--ep", "16", "--gpus-per-node", "4"}) == 4);
}

TEST_CASE("DeepEP inside the NVLink domain uses NVLink only and RDMA beyond it", "[comm][nvlink]") {
  const HwProfile gb200 = load_hw_profile("gb200");
  DeepepShape s;
  s.mode = DeepepMode::low_latency;
  s.tokens = 128;
  s.hidden = 7168;
  s.imbalance = 1.0;
  // 288 physical experts (256 routed + 32 redundant), no group limit: the shares below depend
  // only on how many ranks share the sender's NVLink domain.
  s.routing = {288, 8, 1, 1, 48, gb200.nvlink_domain_gpus};
  const double token_bytes = 7168 + 7168 / 128 * 4;  // FP8 values + one FP32 scale per 128
  const double messages = 128 * 8;                   // one per token and expert
  const double eff = gb200.kernels.comm.ll_nvlink_efficiency;
  {
    // EP48 in a 72-GPU domain: 47 of 48 peers over NVLink, 1 of 48 local, none over RDMA.
    const DeepepCost c = deepep_cost(gb200, s);
    REQUIRE(c.kernels.size() == 3);
    const Work& w = c.kernels[1].work;
    CHECK(w.link_bytes[kRdma] == 0);
    CHECK(w.link_bytes[kNvlink] == Approx(messages * 47.0 / 48.0 * token_bytes / eff));
  }
  {
    // EP144 = two racks: 71 of 144 peers over NVLink, 72 over RDMA, 1 local.
    s.routing.ep_size = 144;
    const DeepepCost c = deepep_cost(gb200, s);
    const Work& w = c.kernels[1].work;
    CHECK(w.link_bytes[kNvlink] == Approx(messages * 71.0 / 144.0 * token_bytes / eff));
    CHECK(w.link_bytes[kRdma] ==
          Approx(messages * 72.0 / 144.0 * token_bytes / gb200.kernels.comm.ll_rdma_efficiency));
  }
  {
    // Normal mode: EP48 is one node of the domain, so no RDMA leg at all.
    s.mode = DeepepMode::normal;
    s.routing.ep_size = 48;
    const DeepepCost c = deepep_cost(gb200, s);
    CHECK(c.routing.nodes == 1);
    CHECK(c.kernels[c.transfer].work.link_bytes[kRdma] == 0);
    CHECK(c.kernels[c.transfer].work.link_bytes[kNvlink] > 0);
  }
}

TEST_CASE("a whole forward on GB200: EP48 and EP72 put no byte on RDMA, EP144 does",
          "[whatif][nvlink]") {
  for (const char* strategy : {"no-overlap", "tbo-decode", "sbo"}) {
    INFO(strategy);
    const auto ep48 = link_bytes("deepseek-v3", "gb200", decode(256, 48, 32), strategy);
    CHECK(ep48[kRdma] == 0);
    CHECK(ep48[kNvlink] > 0);
    const auto ep72 = link_bytes("deepseek-v3", "gb200", decode(256, 72, 32), strategy);
    CHECK(ep72[kRdma] == 0);
    CHECK(ep72[kNvlink] > 0);
    const auto ep144 = link_bytes("deepseek-v3", "gb200", decode(256, 144, 32), strategy);
    CHECK(ep144[kRdma] > 0);
  }
  // The same EP48 on 8-GPU HGX nodes (B200) crosses RDMA between its 6 nodes.
  CHECK(link_bytes("deepseek-v3", "b200", decode(256, 48, 32), "no-overlap")[kRdma] > 0);
  // H20 EP16: two HGX nodes of 8.
  CHECK(link_bytes("deepseek-v3", "h20", decode(32, 16), "no-overlap")[kRdma] > 0);
}

TEST_CASE("EP must divide routed + redundant experts and redundant copies make EP48 run",
          "[whatif][experts]") {
  const CliResult bad = cli({"whatif", "--hw", "gb200", "--tokens-per-gpu", "8", "--context",
                             "2000", "--ep", "48", "--strategy", "sbo"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("256 physical experts") != std::string::npos);
  CHECK(bad.err.find("--redundant-experts") != std::string::npos);
  // 256 + 32 = 288 = 6 x 48: six experts per GPU, as the memory model counts them.
  const auto j = whatif_json({"--hw", "gb200", "--tokens-per-gpu", "8", "--context", "2000", "--ep",
                              "48", "--redundant-experts", "32", "--strategy", "sbo"});
  CHECK(j["overlapped_us"].get<double>() > 0);
  const CliResult negative =
      cli({"whatif", "--hw", "gb200", "--tokens-per-gpu", "8", "--context", "2000", "--ep", "48",
           "--redundant-experts", "-1", "--strategy", "sbo"});
  CHECK(negative.code == 2);
}

TEST_CASE("a sweep's gpus_per_node defaults to auto, the profile's domain, as whatif does",
          "[sweep][nvlink]") {
  const SweepSpec spec = parse_sweep_spec(yaml::load_string(
      "name: t\nbase: {model: deepseek-v3, hw: gb200, context: 2000, ep: 48,\n"
      "       redundant_experts: 32, tokens_per_gpu: 64}\n"
      "axes: [{field: gpus_per_node, values: [auto, 8]}]\nstrategies: [tbo-decode]\n",
      "spec.yaml"));
  PointEvaluator eval(spec);
  auto baseline_us = [&](long long point) {
    const std::string row = eval.rows(point);
    const std::string header = eval.header();
    // The baseline_us column of the row (no field here is quoted).
    auto split = [](const std::string& line) {
      std::vector<std::string> out;
      std::string cell;
      std::istringstream in(line);
      while (std::getline(in, cell, ',')) out.push_back(cell);
      return out;
    };
    const auto names = split(header.substr(0, header.size() - 1));
    const auto cells = split(row);
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == "baseline_us") return std::stod(cells.at(i));
    FAIL("no baseline_us column");
    return 0.0;
  };
  auto whatif_us = [](const char* gpn) {
    std::vector<std::string> args{
        "--hw", "gb200", "--tokens-per-gpu",    "64", "--context",  "2000",
        "--ep", "48",    "--redundant-experts", "32", "--strategy", "tbo-decode"};
    if (*gpn) args.insert(args.end(), {"--gpus-per-node", gpn});
    return whatif_json(args)["baseline_us"].get<double>();
  };
  CHECK(baseline_us(0) == Approx(whatif_us("")).epsilon(1e-12));
  CHECK(baseline_us(1) == Approx(whatif_us("8")).epsilon(1e-12));
  // Six 8-GPU nodes cross RDMA: slower than one NVL72 domain.
  CHECK(baseline_us(1) > baseline_us(0));
}

TEST_CASE("every shipped sweep spec loads and names only shipped files", "[sweep][names]") {
  // Including the H20 and GB200 sweeps behind the README table (redundant experts, MTP).
  const auto specs = shipped_names("strategies/sweeps");
  CHECK(std::find(specs.begin(), specs.end(), "v3-decode-h20-ep16-mtp") != specs.end());
  CHECK(std::find(specs.begin(), specs.end(), "v3-decode-gb200-ep48") != specs.end());
  for (const auto& name : specs) {
    INFO(name);
    const SweepSpec spec = load_sweep_spec(source_path("strategies/sweeps/" + name + ".yaml"));
    CHECK_NOTHROW(check_sweep_names(spec));
    CHECK(spec.points() > 0);
  }
}
