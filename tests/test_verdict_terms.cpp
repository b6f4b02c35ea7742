// Verdicts that add up: net = advantage - degradation with every term named, in the JSON and in
// the sentence; search's gain split into the DeepEP mode, the SM split and overlap, with the
// README's caveats when the pick depends on them.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "app/analysis/caveats.hpp"
#include "cli_json.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;
using Json = nlohmann::json;

namespace {

std::string collapse_spaces(const std::string& s) {
  return std::regex_replace(s, std::regex("\\s+"), " ");
}

}  // namespace

TEST_CASE("a verdict names every term of net = advantage - degradation", "[verdict]") {
  const std::vector<std::vector<std::string>> cases{
      {"--phase", "decode", "--tokens-per-gpu", "64", "--context", "4096", "--ep", "32",
       "--strategy", "tbo-decode"},
      {"--phase", "decode", "--tokens-per-gpu", "16", "--context", "4096", "--ep", "32",
       "--strategy", "sbo"},
      {"--phase", "prefill", "--tokens-per-gpu", "8192", "--context", "4096", "--ep", "32",
       "--strategy", "tbo-prefill"},
      {"--model", "deepseek-v4-flash", "--phase", "decode", "--tokens-per-gpu", "32", "--context",
       "4096", "--ep", "16", "--strategy", "multistream"},
  };
  for (const auto& c : cases) {
    const Json j = whatif_json(c);
    INFO(j["verdict"].get<std::string>());
    const double adv = j["advantage_us"], deg = j["degradation_us"], net = j["net_us"];
    // net is the forward's difference and advantage - degradation.
    CHECK(net == Approx(j["baseline_us"].get<double>() - j["overlapped_us"].get<double>()));
    CHECK(net == Approx(adv - deg).margin(1e-6 * j["baseline_us"].get<double>()));
    // The advantage's named terms add up to it; the degradation's causes to the degradation.
    double terms = 0, causes = 0;
    for (const auto& t : j["advantage_terms"]) terms += t["us"].get<double>();
    for (const auto& d : j["degradation"]) causes += d["us"].get<double>();
    CHECK(terms == Approx(adv).margin(1e-6 * j["baseline_us"].get<double>()));
    CHECK(causes == Approx(deg).margin(1e-6 * j["baseline_us"].get<double>()));
    CHECK(j["advantage_terms"][0]["us"].get<double>() == j["comm_hidden_us"].get<double>());
    // The sentence shows the same ledger in ms (a forward-level time), rounded to 10 us.
    const std::string v = j["verdict"];
    CHECK(v.find(fmt::format("advantage {:.2f} ms (communication hidden {:.2f} ms + kernel time "
                             "run side by side {:.2f} ms)",
                             adv / 1e3, j["comm_hidden_us"].get<double>() / 1e3,
                             j["side_by_side_us"].get<double>() / 1e3)) != std::string::npos);
    CHECK(v.find(fmt::format("- degradation {:.2f} ms", deg / 1e3)) != std::string::npos);
    CHECK(v.find(fmt::format("= net {:+.2f} ms", net / 1e3)) != std::string::npos);
  }
}

TEST_CASE("search separates the gain of the DeepEP mode and SM split from overlap", "[verdict]") {
  const CliResult r = cli({"search", "--model", "deepseek-v3", "--hw", "h800-sxm",
                           "--tokens-per-gpu", "64", "--context", "4096", "--ep", "32", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  const Json& g = j["gain_split"];
  // The three steps add up to no-overlap minus the pick.
  CHECK(g["from_deepep_mode_us"].get<double>() + g["from_sm_split_us"].get<double>() +
            g["from_overlap_us"].get<double>() ==
        Approx(g["baseline_us"].get<double>() - g["best_us"].get<double>()));
  CHECK(g["best_us"].get<double>() == j["best"]["forward_us"].get<double>());
  // The baseline is the what-if's no-overlap forward in the phase's default mode.
  const Json w = whatif_json(
      {"--tokens-per-gpu", "64", "--context", "4096", "--ep", "32", "--strategy", "tbo-decode"});
  CHECK(g["baseline_us"].get<double>() == w["baseline_us"].get<double>());
  CHECK(g["baseline_deepep_mode"] == "low_latency");
  // A pick in DeepEP normal mode at 64 decode requests rests on a README caveat.
  bool normal_caveat = false;
  for (const auto& c : j["caveats"])
    normal_caveat = normal_caveat || c["key"] == "normal-mode-small-batch";
  CHECK(normal_caveat == (j["best"]["deepep_mode"] == "normal"));

  // With the mode fixed, the mode step is nothing and the caveat goes.
  const CliResult ll =
      cli({"search", "--model", "deepseek-v3", "--hw", "h800-sxm", "--tokens-per-gpu", "64",
           "--context", "4096", "--ep", "32", "--deepep-mode", "low_latency", "--json"});
  REQUIRE(ll.code == 0);
  const Json k = Json::parse(ll.out);
  CHECK(k["gain_split"]["from_deepep_mode_us"].get<double>() == 0);
  CHECK(k["caveats"].empty());
  // The text report says where the gain comes from.
  const CliResult text = cli({"search", "--model", "deepseek-v3", "--hw", "h800-sxm",
                              "--tokens-per-gpu", "64", "--context", "4096", "--ep", "32"});
  CHECK(text.out.find("where its gain over no overlap") != std::string::npos);
  if (j["best"]["deepep_mode"] == "normal")
    CHECK(text.out.find("caveat (README, What is not modelled yet): DeepEP normal mode") !=
          std::string::npos);
}

TEST_CASE("the caveats a result carries are the README's words", "[verdict]") {
  std::ifstream in(source_path("README.md"));
  const std::string readme(std::istreambuf_iterator<char>(in), {});
  const size_t from = readme.find("## What is not modelled yet");
  REQUIRE(from != std::string::npos);
  const std::string section =
      collapse_spaces(readme.substr(from, readme.find("\n## ", from + 3) - from));
  for (const auto& c : all_caveats()) {
    INFO(c.key);
    CHECK(section.find(c.text) != std::string::npos);
  }
}
