// Per-request lengths as users describe workloads (app/analysis/length_spec.hpp): lists, fixed
// lengths, distributions and files, drawn deterministically, and the what-if flags that take them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "app/analysis/length_spec.hpp"
#include "app/analysis/request.hpp"
#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {

LengthSpec spec(const std::string& text, bool list_allowed = false) {
  LengthSpec s;
  const std::string e = parse_length_spec_into(text, list_allowed, s);
  INFO(e);
  REQUIRE(e.empty());
  return s;
}

std::string error_of(const std::string& text, bool list_allowed = false) {
  LengthSpec s;
  return parse_length_spec_into(text, list_allowed, s);
}

double mean(const std::vector<std::int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

double sd(const std::vector<std::int64_t>& v) {
  const double m = mean(v);
  double ss = 0;
  for (auto x : v) ss += (double(x) - m) * (double(x) - m);
  return std::sqrt(ss / double(v.size() - 1));
}

}  // namespace

TEST_CASE("length specs: lists, fixed values and the errors that name them", "[lengths]") {
  CHECK(spec("4095,4096,1", true).values == std::vector<std::int64_t>{4095, 4096, 1});
  CHECK(spec("2000").kind == LengthSpec::Kind::fixed);
  CHECK(spec("fixed:2000").values == std::vector<std::int64_t>{2000});
  CHECK(draw_lengths(spec("fixed:7"), 3, 0) == std::vector<std::int64_t>{7, 7, 7});
  CHECK(error_of("1,2").find("list") != std::string::npos);  // --isl takes one length
  CHECK(error_of("uniform:5,2").find("A <= B") != std::string::npos);
  CHECK(error_of("normal:x,3").find("normal:MEAN,SD") != std::string::npos);
  CHECK(error_of("gamma:1,2").find("unknown length distribution 'gamma'") != std::string::npos);
  CHECK(error_of("0", true).find("'0'") != std::string::npos);
  CHECK(error_of("file:/no/such/file.csv").find("cannot read") != std::string::npos);
}

TEST_CASE("length draws: deterministic for a seed, and the distributions' moments", "[lengths]") {
  const LengthSpec u = spec("uniform:100,200");
  const auto a = draw_lengths(u, 20000, 7);
  CHECK(a == draw_lengths(u, 20000, 7));  // the same seed, the same batch
  CHECK(a != draw_lengths(u, 20000, 8));
  CHECK(*std::min_element(a.begin(), a.end()) >= 100);
  CHECK(*std::max_element(a.begin(), a.end()) <= 200);
  // Uniform whole numbers in [100, 200]: mean 150, SD sqrt((101^2 - 1) / 12) = 29.15. With 20000
  // draws the mean's standard error is 29.15 / sqrt(20000) = 0.21: within 1 (about 5 SE).
  CHECK(mean(a) == Approx(150).margin(1.0));
  CHECK(sd(a) == Approx(std::sqrt((101.0 * 101 - 1) / 12)).epsilon(0.02));
  // Normal(1000, 100): mean within 5 SE (100 / sqrt(20000) x 5 = 3.5), SD within 2 %.
  const auto n = draw_lengths(spec("normal:1000,100"), 20000, 1);
  CHECK(mean(n) == Approx(1000).margin(3.5));
  CHECK(sd(n) == Approx(100).epsilon(0.02));
  // Lognormal given by the lengths' own mean 2000 and SD 1500: the draws' mean within 5 SE
  // (1500 / sqrt(20000) x 5 = 53) and SD within 10 % (a heavy tail).
  const auto l = draw_lengths(spec("lognormal:2000,1500"), 20000, 3);
  CHECK(mean(l) == Approx(2000).margin(53));
  CHECK(sd(l) == Approx(1500).epsilon(0.10));
}

TEST_CASE("prefill fills the token budget, the last prompt cut to fit", "[lengths]") {
  // Fixed 3000-token prompts into 8192 tokens: 3000 + 3000 + 2192.
  CHECK(fill_tokens(spec("3000"), 8192, 0) == std::vector<std::int64_t>{3000, 3000, 2192});
  const auto p = fill_tokens(spec("uniform:1,4000"), 16384, 5);
  CHECK(std::accumulate(p.begin(), p.end(), std::int64_t{0}) == 16384);
}

TEST_CASE("decode contexts: input plus a uniform share of the output", "[lengths]") {
  // Inputs fixed at 1000, outputs fixed at 500: each context in [1000, 1500), mean 1000 + 249.5
  // (the whole numbers 0..499 equally likely); 20000 requests: SE 144 / sqrt(20000) = 1.0.
  const LengthSpec isl = spec("1000"), osl = spec("500");
  const auto c = contexts_over_life(isl, &osl, 20000, 11);
  CHECK(*std::min_element(c.begin(), c.end()) >= 1000);
  CHECK(*std::max_element(c.begin(), c.end()) < 1500);
  CHECK(mean(c) == Approx(1249.5).margin(5));
  // Without outputs: the inputs alone.
  CHECK(contexts_over_life(isl, nullptr, 3, 11) == std::vector<std::int64_t>{1000, 1000, 1000});
}

TEST_CASE("length files: CSV with a header, JSON arrays, errors with file and line", "[lengths]") {
  const std::string dir = scratch_path("length_spec", "x").parent_path().string();
  {
    std::ofstream(dir + "/l.csv") << "length\n100\n200,300\n";
    std::ofstream(dir + "/l.json") << "{\"lengths\": [5, 6]}";
    std::ofstream(dir + "/bad.csv") << "100\n2x\n";
  }
  CHECK(spec("file:" + dir + "/l.csv", true).values == std::vector<std::int64_t>{100, 200, 300});
  CHECK(spec("file:" + dir + "/l.json", true).values == std::vector<std::int64_t>{5, 6});
  CHECK(error_of("file:" + dir + "/bad.csv").find("bad.csv:2:") != std::string::npos);
  // --isl draws from a file's lengths: only its values come out.
  for (auto x : draw_lengths(spec("file:" + dir + "/l.csv"), 100, 2))
    CHECK((x == 100 || x == 200 || x == 300));
}

TEST_CASE("whatif --isl / --osl / --seed: the batch they draw, and bad words exit 2",
          "[lengths][cli]") {
  auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"whatif", "--model", "deepseek-v3", "--hw",      "h100-sxm",
                                  "--ep",   "32",      "--json",      "--strategy"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  };
  // Decode: 64 requests of inputs uniform in [1000, 3000] and outputs of 1000.
  const auto a = run({"tbo-decode", "--phase", "decode", "--tokens-per-gpu", "64", "--isl",
                      "uniform:1000,3000", "--osl", "1000", "--seed", "4"});
  REQUIRE(a.code == 0);
  const auto ja = nlohmann::json::parse(a.out);
  CHECK(ja["tokens_per_gpu"] == 64);
  CHECK(ja["context"].get<std::int64_t>() < 4000);   // longest: input <= 3000 + output share < 1000
  CHECK(ja["context"].get<std::int64_t>() >= 1000);  // at least the shortest input
  // The same seed, the same bytes.
  CHECK(run({"tbo-decode", "--phase", "decode", "--tokens-per-gpu", "64", "--isl",
             "uniform:1000,3000", "--osl", "1000", "--seed", "4"})
            .out == a.out);
  // Prefill: prompts drawn until they hold 8192 tokens.
  const auto p = run({"tbo-prefill", "--phase", "prefill", "--tokens-per-gpu", "8192", "--isl",
                      "normal:3000,500"});
  REQUIRE(p.code == 0);
  CHECK(nlohmann::json::parse(p.out)["tokens_per_gpu"] == 8192);
  // Errors: one line naming the flag, exit 2.
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"no-overlap", "--phase", "prefill", "--tokens-per-gpu", "8", "--isl", "8", "--osl",
            "4"},
           {"no-overlap", "--phase", "decode", "--isl", "normal:1000,10"},
           {"no-overlap", "--phase", "decode", "--tokens-per-gpu", "8", "--osl", "10"},
           {"no-overlap", "--phase", "decode", "--tokens-per-gpu", "8", "--isl", "lognormal:1"}}) {
    const auto r = run(bad);
    CHECK(r.code == 2);
    CHECK((r.err.find("--isl") != std::string::npos || r.err.find("--osl") != std::string::npos));
  }
}
