// Command-line conventions: names matched by whole words and aliases before a guess, --json on
// every command, SGLang's own op names understood, and a way to describe (and copy) a profile.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/strategy/strategy.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

Json whatif_json(const std::string& model, const std::string& hw, const std::string& strategy) {
  const CliResult r = cli({"whatif", "--model", model, "--hw", hw, "--tokens-per-gpu", "16",
                           "--context", "1024", "--ep", "32", "--strategy", strategy, "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out);
}

}  // namespace

TEST_CASE("names: whole words and aliases before edit distance", "[cli][names]") {
  for (const char* hw : {"h800", "H800", "H800-SXM", "H800 SXM5", "h800_sxm"}) {
    INFO(hw);
    CHECK(whatif_json("deepseek-v3", hw, "tbo-decode")["hardware"] == "h800-sxm");
  }
  CHECK(whatif_json("v3", "h200", "tbo-decode")["hardware"] == "h200-sxm");
  CHECK(whatif_json("V3", "h100", "tbo-decode")["model"] == "deepseek-v3");
  // Several names share the words: an error naming them, not a pick.
  auto err = [](std::vector<std::string> a) {
    a.insert(a.begin(), "whatif");
    for (const char* f : {"--tokens-per-gpu", "16", "--context", "1024", "--ep", "32"})
      a.push_back(f);
    const CliResult r = cli(a);
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK(
      err({"--model", "deepseek-v4", "--strategy", "sbo"})
          .find("model 'deepseek-v4' is ambiguous: it names deepseek-v4-flash, deepseek-v4-pro") !=
      std::string::npos);
  CHECK(err({"--strategy", "tbo"}).find("it names tbo-decode, tbo-prefill") != std::string::npos);
  // A word cut short is a misspelling, answered with the nearest name.
  CHECK(err({"--strategy", "tbo-decod"}).find("did you mean 'tbo-decode'") != std::string::npos);
  CHECK(err({"--hw", "h900", "--strategy", "sbo"}).find("unknown hardware profile 'h900'") !=
        std::string::npos);
}

TEST_CASE("every command takes --json", "[cli][json]") {
  const CliResult help = cli({"--help"});
  REQUIRE(help.code == 0);
  // The command list of --help: "  name   description" lines after "Subcommands:".
  const size_t list = help.out.find("ubcommands:");
  REQUIRE(list != std::string::npos);
  std::istringstream lines(help.out.substr(list));
  std::string line;
  std::vector<std::string> commands;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    if (line.rfind("  ", 0) == 0 && line.rfind("   ", 0) != 0 && (words >> first))
      commands.push_back(first);
  }
  REQUIRE(commands.size() >= 12);
  for (const char* c : {"plan", "describe", "search", "calibrate", "merge", "report"})
    CHECK(std::find(commands.begin(), commands.end(), c) != commands.end());
  for (const auto& c : commands) {
    INFO(c);
    const CliResult r = cli({c, "--help"});
    CHECK(r.code == 0);
    CHECK(r.out.find("--json") != std::string::npos);
  }
}

TEST_CASE("sweep, merge, report and calibrate print one JSON object with --json", "[cli][json]") {
  const fs::path spec = scratch_path("conventions", "json.yaml");
  std::ofstream(spec) << "name: json\nbase: {model: deepseek-v3, hw: h800-sxm, phase: decode, "
                         "context: 1024, ep: 32}\naxes:\n  - {field: tokens_per_gpu, values: [8, "
                         "64]}\nstrategies: [tbo-decode]\n";
  std::vector<std::string> parts;
  for (int i = 0; i < 2; ++i) {
    const std::string part =
        scratch_path("conventions", "part-" + std::to_string(i) + ".csv").string();
    fs::remove(part);
    const CliResult r = cli({"sweep", spec.string(), "--out", part, "--shard",
                             std::to_string(i) + "/2", "-q", "--json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const Json j = Json::parse(r.out);
    CHECK(j["points"] == 1);
    CHECK(j["shard"] == std::to_string(i) + "/2");
    parts.push_back(part);
  }
  const std::string merged = scratch_path("conventions", "merged.csv").string();
  const CliResult m = cli({"merge", merged, parts[0], parts[1], "--json"});
  INFO(m.err);
  REQUIRE(m.code == 0);
  const Json mj = Json::parse(m.out);
  CHECK(mj["points"] == 2);
  CHECK(mj["missing_shards"].empty());
  const CliResult rep = cli({"report", merged, "--out-dir",
                             scratch_path("conventions", "json-report").string(), "--json"});
  REQUIRE(rep.code == 0);
  const Json rj = Json::parse(rep.out);
  CHECK(rj["x"] == "tokens_per_gpu");
  CHECK(rj["crossovers"].size() == 1);
  const CliResult cal = cli({"calibrate", "--base", "h800-sxm", "--data",
                             source_path("calibrate/published/deepep.csv"), "--out",
                             scratch_path("conventions", "cal.yaml").string(), "--json"});
  INFO(cal.err);
  REQUIRE(cal.code == 0);
  const Json cj = Json::parse(cal.out);
  CHECK(cj["base"] == "h800-sxm");
  REQUIRE(!cj["fits"].empty());
  for (const auto& f : cj["fits"])
    CHECK(f["mape_after"].get<double>() <= f["mape_before"].get<double>() + 1e-12);
}

TEST_CASE("SGLang's full op names are read as ours, with a note", "[cli][strategy]") {
  CHECK(op_from_sglang_name("layer.mlp.op_dispatch_a") == "dispatch_a");
  CHECK(op_from_sglang_name("layer.self_attn.op_core") == "attn.core");
  CHECK(op_from_sglang_name("layer.op_comm_prepare_attn") == "comm_prepare_attn");
  CHECK(op_from_sglang_name("layer.op_comm_postprocess_layer") == "postprocess_layer");
  CHECK(op_from_sglang_name("operations.YieldOperation()") == "yield");
  CHECK(op_from_sglang_name("dispatch_a").empty());  // already ours
  // SGLang's DeepSeek decode strategy, pasted from operations_strategy.py.
  const fs::path p = scratch_path("conventions", "sglang-names.yaml");
  std::ofstream(p) << R"(name: pasted
model_family: deepseek-v3
two_batch_overlap: true
tbo_delta_stages: 2
deepep_mode: low_latency
layers:
  moe:
    operations: [layer.op_comm_prepare_attn, layer.self_attn.op_prepare, operations.YieldOperation(),
                 layer.self_attn.op_core, layer.op_comm_prepare_mlp, layer.mlp.op_gate,
                 layer.mlp.op_select_experts, operations.YieldOperation(),
                 layer.mlp.op_dispatch_a, layer.mlp.op_shared_experts, operations.YieldOperation(),
                 layer.mlp.op_dispatch_b, layer.mlp.op_experts, layer.mlp.op_combine_a,
                 operations.YieldOperation(), layer.mlp.op_combine_b, operations.YieldOperation(),
                 layer.mlp.op_output, layer.op_comm_postprocess_layer]
)";
  const Json pasted = whatif_json("deepseek-v3", "h800-sxm", p.string());
  const Json shipped = whatif_json("deepseek-v3", "h800-sxm", "tbo-decode");
  CHECK(pasted["overlapped_us"] == shipped["overlapped_us"]);
  REQUIRE(pasted.contains("notes"));
  bool hinted = false;
  for (const auto& n : pasted["notes"])
    hinted = hinted ||
             n.get<std::string>().find("read SGLang's 'layer.mlp.op_dispatch_a' as 'dispatch_a'") !=
                 std::string::npos;
  CHECK(hinted);
  // An SGLang-style name for an op we do not have is still an error naming the file and field.
  const fs::path q = scratch_path("conventions", "sglang-bad.yaml");
  std::string text = R"(name: bad
model_family: deepseek-v3
layers:
  moe:
    operations: [layer.op_comm_prepare_attn, layer.self_attn.op_prepare, layer.self_attn.op_core,
                 layer.mlp.op_gatee]
)";
  std::ofstream(q) << text;
  const CliResult r = cli({"whatif", "--tokens-per-gpu", "16", "--context", "1024", "--ep", "32",
                           "--strategy", q.string()});
  CHECK(r.code == 2);
  CHECK(r.err.find(q.string()) != std::string::npos);
  CHECK(r.err.find("unknown op 'gatee' (did you mean 'gate'?)") != std::string::npos);
}

TEST_CASE("describe prints a profile with its sources, and a template that loads",
          "[cli][describe]") {
  const CliResult d = cli({"describe", "hw", "H800"});
  INFO(d.err);
  REQUIRE(d.code == 0);
  CHECK(d.out.find("hw_profiles/h800-sxm.yaml") != std::string::npos);
  CHECK(d.out.find("sm_count: {value: 132, spread: 0, source:") != std::string::npos);
  const CliResult j = cli({"describe", "model", "v3", "--json"});
  REQUIRE(j.code == 0);
  bool experts = false;
  const Json described = Json::parse(j.out);
  for (const auto& f : described["fields"])
    if (f["field"] == "moe.routed_experts") {
      experts = f["value"] == 256 &&
                f["source"].get<std::string>().find("n_routed_experts") != std::string::npos;
    }
  CHECK(experts);
  // The template: every source marked TODO, the same numbers, so it runs as the original does.
  const CliResult t = cli({"describe", "hw", "h800-sxm", "--template"});
  REQUIRE(t.code == 0);
  CHECK(t.out.find("name: my-h800-sxm") != std::string::npos);
  CHECK(t.out.find("source: \"TODO: where your number comes from") != std::string::npos);
  const fs::path mine = scratch_path("conventions", "my-gpu.yaml");
  std::ofstream(mine) << t.out;
  CHECK(whatif_json("deepseek-v3", mine.string(), "tbo-decode")["overlapped_us"] ==
        whatif_json("deepseek-v3", "h800-sxm", "tbo-decode")["overlapped_us"]);
  const CliResult bad = cli({"describe", "gpu", "h800"});
  CHECK(bad.code == 2);
  const CliResult unknown = cli({"describe", "hw", "h900"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("did you mean") != std::string::npos);
}
