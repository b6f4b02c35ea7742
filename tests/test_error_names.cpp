// Every input error names where the bad value came from: a file (with its line and field where
// there is one) or, for what was typed on the command line, the flag. The cases below reach the
// errors libraries raise without knowing the file (a name to resolve, a workload rule, a cost
// model's shape check); the CLI and the sweep say where the value came from.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "helpers.hpp"

using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

// "error: <where>: ..." where <where> is "command line: field '--flag'" (or a positional
// argument's name), a flag CLI11 refused ("--flag: ..."), or an existing file, optionally with
// ":line".
bool names_file_or_flag(const std::string& err, std::string* why) {
  static const std::regex flag(R"(^error: command line: field '(--[a-z][a-z0-9/-]*|name)': .+\n$)");
  static const std::regex parsed(R"(^error: --[a-z][a-z0-9-]*: .+\n$)");
  static const std::regex file(R"(^error: ([^:]+)(:[0-9]+)?: .+\n$)");
  std::smatch m;
  if (std::regex_match(err, m, flag) || std::regex_match(err, m, parsed)) return true;
  if (std::regex_match(err, m, file) && fs::exists(m[1].str())) return true;
  *why = "names neither a file nor a flag";
  return false;
}

struct Case {
  std::vector<std::string> args;
  std::string where;  // expected flag or a part of the file's path
};

// A command with defaults for its required flags; `more` adds flags or replaces a default's value.
std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  for (size_t i = 0; i + 1 < more.size(); i += 2) {
    auto at = std::find(args.begin(), args.end(), more[i]);
    if (at != args.end())
      *(at + 1) = more[i + 1];
    else
      args.insert(args.end(), {more[i], more[i + 1]});
  }
  return args;
}

std::vector<std::string> whatif(const std::vector<std::string>& more) {
  return with({"whatif", "--tokens-per-gpu", "8", "--context", "512", "--ep", "8", "--strategy",
               "tbo-decode"},
              more);
}

std::vector<std::string> search(const std::vector<std::string>& more) {
  return with({"search", "--tokens-per-gpu", "8", "--context", "512", "--ep", "8"}, more);
}

}  // namespace

TEST_CASE("every input error names its file or its flag", "[bad-input][errors]") {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests" / "error-names";
  fs::create_directories(dir);
  const std::string trace = (dir / "tiny.json").string();
  std::ofstream(trace) << R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k",
    "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7}}]})";
  const std::vector<Case> cases{
      // Names resolved by the libraries: each flag that gave one.
      {whatif({"--model", "deepseek-v9"}), "--model"},
      {whatif({"--hw", "h900"}), "--hw"},
      {whatif({"--strategy", "tbo-dec"}), "--strategy"},
      {whatif({"--baseline", "no-overlp"}), "--baseline"},
      {search({"--against", "tbo-dec"}), "--against"},
      {{"plan", "--gpus", "8", "--tpot-ms", "50", "--model", "nope"}, "--model"},
      {{"plan", "--gpus", "8", "--tpot-ms", "50", "--strategies", "nope"}, "--strategies"},
      {{"kernel", "--model", "nope", "--memory", "rmsnorm", "--tokens", "8"}, "--model"},
      {{"describe", "hw", "h900"}, "name"},
      {{"import-trace", trace, "--program", (dir / "p.yaml").string(), "--hw", "h900"}, "--hw"},
      {{"validate", trace, "--hw", "h900"}, "--hw"},
      // Workload rules (the request resolver, the layer builder).
      {whatif({"--ep", "7"}), "--ep"},  // 7 does not divide DeepSeek-V3's 256 experts
      {search({"--ep", "7"}), "--ep"},
      {whatif({"--deepep-mode", "normal", "--cuda-graphs", "on"}), "--cuda-graphs"},
      {search({"--deepep-mode", "normal", "--cuda-graphs", "on"}), "--cuda-graphs"},
      // Plan's own rules.
      {{"plan", "--gpus", "8"}, "--tpot-ms"},
      {{"plan", "--gpus", "8", "--phase", "prefill", "--ttft-ms", "100", "--prompt-len", "512",
        "--mtp", "on"},
       "--mtp"},
      {{"plan", "--gpus", "8", "--tpot-ms", "50", "--strategies", "sbo,sbo"}, "--strategies"},
      // Cost models' shape checks, from the kernel command's flags.
      {{"kernel", "--attention", "sparse_decode"}, "--attn-topk"},
      {{"kernel", "--deepep", "normal", "--tokens", "8", "--ep", "7"}, "--ep/"},
      {{"kernel", "--gemm", "64,64,64", "--deepep", "normal"}, "--gemm/"},
      {{"kernel", "--deepep", "normal"}, "--tokens"},
      {{"validate", source_path("calibrate/published/deepgemm.csv"), "--program", "x.yaml"},
       "--program"},
      // A model without what the query needs: its file.
      {{"kernel", "--memory", "mhc_pre", "--tokens", "8", "--model", "deepseek-v3"},
       "deepseek-v3.yaml"},
  };
  for (const auto& c : cases) {
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    INFO(line);
    const CliResult r = cli(c.args);
    INFO(r.err);
    CHECK(r.code == 2);
    std::string why;
    CHECK(names_file_or_flag(r.err, &why));
    CHECK(r.err.find(c.where) != std::string::npos);
  }
}

TEST_CASE("a sweep point's error names the spec's file, the field and its line",
          "[bad-input][errors][sweep]") {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests" / "error-names";
  fs::create_directories(dir);
  const std::string spec = (dir / "ep7.yaml").string();
  // Line 4 gives EP 7, which does not divide DeepSeek-V3's 256 experts.
  std::ofstream(spec) << "name: ep7\n"
                         "base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 512,\n"
                         "       tokens_per_gpu: 8}\n"
                         "axes: [{field: ep, values: [7]}]\n"
                         "strategies: [tbo-decode]\n";
  const std::string out = (dir / "ep7.csv").string();
  const CliResult r = cli({"sweep", spec, "--out", out, "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream in(out);
  std::string row, last;
  while (std::getline(in, row))
    if (!row.empty() && row[0] != '#') last = row;
  CHECK(last.find(spec + ":4: field 'ep': EP 7 must divide") != std::string::npos);
}
