// The degradation ledger's "micro-batch imbalance" (issue 37.3): halves of unequal work are
// charged what they lose against the same halves evened out (app/analysis/even_halves.hpp), and
// the ledger's other terms are the evened-out run's, so advantage - degradation = net gain.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/analysis/even_halves.hpp"
#include "helpers.hpp"

using namespace ovs::test;
using Json = nlohmann::json;

namespace {

// 64 requests, 32 at `a` tokens of KV and 32 at `b`: grouped (all `a` first) or interleaved.
std::string lengths(bool grouped, int a, int b) {
  std::string out;
  for (int i = 0; i < 64; ++i) {
    const bool first = grouped ? i < 32 : i % 2 == 0;
    out += (out.empty() ? "" : ",") + std::to_string(first ? a : b);
  }
  return out;
}

Json whatif(const std::vector<std::string>& extra, const std::string& strategy = "tbo-decode") {
  std::vector<std::string> args = {
      "whatif",     "--model", "deepseek-v3",       "--hw",  "h800-sxm", "--ep", "32",
      "--strategy", strategy,  "--no-alternatives", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return Json::parse(r.out);
}

double cause_us(const Json& j, const std::string& cause) {
  for (const auto& d : j["degradation"])
    if (d["cause"] == cause) return d["us"];
  return 0;
}

bool has_cause(const Json& j, const std::string& cause) {
  for (const auto& d : j["degradation"])
    if (d["cause"] == cause) return true;
  return false;
}

}  // namespace

TEST_CASE("halves of equal work carry no imbalance", "[imbalance]") {
  // Interleaved 8000, 100, 8000, ...: SGLang gives A the first 32 requests, 16 of each length, and
  // B the same - equal halves, nothing to even out.
  const Json j = whatif({"--phase", "decode", "--context-lens", lengths(false, 8000, 100)});
  CHECK(j["even_halves_us"].get<double>() == 0);
  CHECK_FALSE(has_cause(j, "micro-batch imbalance"));
}

TEST_CASE("lopsided decode halves: the imbalance is the forward minus the halves evened out",
          "[imbalance]") {
  // Grouped: A = 32 requests at 8000 tokens of KV, B = 32 at 100.
  const Json j = whatif({"--phase", "decode", "--context-lens", lengths(true, 8000, 100)});
  const double even = j["even_halves_us"], over = j["overlapped_us"];
  REQUIRE(even > 0);
  CHECK(cause_us(j, "micro-batch imbalance") == Approx(over - even).epsilon(1e-9));
  // A's attention outlasts what B's communication hides, and the reverse: evened out is faster.
  CHECK(over - even > 0);
  // The ledger still adds up: advantage - degradation = net, the advantage its two terms.
  const double adv = j["advantage_us"], deg = j["degradation_us"], net = j["net_us"];
  CHECK(adv - deg == Approx(net).margin(1e-6 * std::abs(j["baseline_us"].get<double>())));
  CHECK(
      adv ==
      Approx(j["comm_hidden_us"].get<double>() + j["side_by_side_us"].get<double>()).margin(1e-6));
  double causes = 0;
  for (const auto& d : j["degradation"]) causes += d["us"].get<double>();
  CHECK(causes == Approx(deg).margin(1e-6));
}

TEST_CASE("prefill: the uncut split's imbalance dwarfs the two-chunk cut's", "[imbalance]") {
  // One 8000-token prompt beside two short ones. Uncut (threshold 0), A = the 8000-token prompt
  // and B = 192 tokens; the two-chunk cut gives each 4096 tokens (B the long prompt's second
  // half over its first half's KV, and both short prompts).
  const std::vector<std::string> point = {"--phase", "prefill", "--prompt-lens", "8000,100,92"};
  std::vector<std::string> uncut = point;
  uncut.insert(uncut.end(), {"--tbo-token-distribution-threshold", "0"});
  const Json cut = whatif(point, "tbo-prefill"), whole = whatif(uncut, "tbo-prefill");
  CHECK(cut["tbo_split_cuts_sequence"] == true);
  CHECK(whole["tbo_split_cuts_sequence"] == false);
  const double cut_imbalance = cause_us(cut, "micro-batch imbalance");
  const double whole_imbalance = cause_us(whole, "micro-batch imbalance");
  // 8000 against 192 tokens: B's stages are ~2 % of A's, so nearly all of A's communication is
  // exposed - more than a quarter of the overlapped forward.
  CHECK(whole_imbalance > 0.25 * whole["overlapped_us"].get<double>());
  // The cut leaves B the larger attention (its chunk attends over 8000 tokens): some imbalance,
  // but over ten times less than the uncut split's.
  CHECK(std::abs(cut_imbalance) < 0.1 * whole_imbalance);
}

TEST_CASE("same_halves compares tokens, sequences and attention segments in any order",
          "[imbalance]") {
  ovs::MicroBatch a, b;
  a.tokens = b.tokens = 2;
  a.sequences = b.sequences = 2;
  a.segments = {{1, 100, 1}, {1, 8000, 1}};
  b.segments = {{1, 8000, 1}, {1, 100, 1}};
  CHECK(ovs::same_halves(a, b));
  b.segments[0].kv_len = 7999;
  CHECK_FALSE(ovs::same_halves(a, b));
}

TEST_CASE("evening out says when per-request kernels have no counterpart", "[imbalance]") {
  // V4 on ROCm's per-request code path launches the compressor and indexer kernels once per
  // request: an 8000-token prompt alone in A against four short ones in B gives B more of them.
  const CliResult r = cli({"whatif", "--model", "deepseek-v4-pro", "--hw", "mi355x", "--ep", "8",
                           "--phase", "prefill", "--prompt-lens", "8000,100,92,50,50",
                           "--tbo-token-distribution-threshold", "0", "--v4-kernels", "rocm-2605",
                           "--strategy", "tbo-prefill", "--no-alternatives", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["even_halves_us"].get<double>() > 0);
  bool said = false;
  for (const auto& n : j["notes"])
    said = said || n.get<std::string>().find("no counterpart in the other") != std::string::npos;
  CHECK(said);
}
