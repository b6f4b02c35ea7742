// Charts a user puts in a design doc: titles that say model, GPU, phase, EP and baseline; axis
// labels in the user's words; legends sized to their text; file names that say what they show;
// numbers in numeric order; EP crossovers at EP sizes that exist.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/sweep/chart_words.hpp"
#include "app/sweep/crossover.hpp"
#include "app/sweep/svg_chart.hpp"
#include "helpers.hpp"
#include "sim/io/csv_reader.hpp"
#include "sim/io/svg_parts.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

double max_text_right(const std::string& svg) {
  // The right edge of every start-anchored text: x plus its measured width.
  double right = 0;
  size_t i = 0;
  while ((i = svg.find("<text x=\"", i)) != std::string::npos) {
    const size_t open_end = svg.find('>', i);
    const std::string tag = svg.substr(i, open_end - i);
    const double x = std::stod(tag.substr(9));
    const size_t close = svg.find("</text>", open_end);
    const std::string text = svg.substr(open_end + 1, close - open_end - 1);
    if (tag.find("text-anchor") == std::string::npos && tag.find("font-size") == std::string::npos)
      right = std::max(right, x + svg::text_width_px(text));
    i = close;
  }
  return right;
}

double svg_width(const std::string& svg) {
  const size_t w = svg.find("width=\"", svg.find("<svg"));
  return std::stod(svg.substr(w + 7));
}

}  // namespace

TEST_CASE("chart words: the user's terms for axes, numbers in numeric order", "[charts]") {
  CHECK(axis_label("tokens_per_gpu", "decode") == "requests per GPU");
  CHECK(axis_label("tokens_per_gpu", "prefill") == "tokens per GPU");
  CHECK(axis_label("ep", "decode") == "EP size (GPUs)");
  CHECK(value_less("16", "128"));  // as text "128" < "16"
  CHECK_FALSE(value_less("128", "16"));
  CHECK(value_less("8", "h800-sxm"));  // numbers before text
  CHECK(InputsLess{}({{"ep", "16"}}, {{"ep", "128"}}));
  CHECK(slug("requests per GPU") == "requests-per-gpu");
  CHECK(setting_words({{"model", "deepseek-v3"},
                       {"phase", "decode"},
                       {"hw", "h800-sxm"},
                       {"ep", "32"},
                       {"context", "2048"},
                       {"tokens_per_gpu", "64"}},
                      "tokens_per_gpu") == "deepseek-v3 decode on h800-sxm, EP 32, context 2048");
}

TEST_CASE("an EP crossover is an EP size that exists, not an interpolation", "[charts]") {
  // Speedup 0.9 at EP 8, 1.1 at EP 16: interpolated, 1.0 would fall near EP 11 - no such size.
  const Crossover c = crossover_of({{8, 0.9}, {16, 1.1}, {32, 1.2}}, true);
  CHECK(c.status == "crosses");
  CHECK(c.x == 16);
  CHECK(crossover_of({{8, 0.9}, {16, 1.1}}, false).x < 16);  // tokens: interpolated
}

TEST_CASE("a legend is as wide as its longest entry", "[charts]") {
  LineChart c;
  c.title = "t";
  c.series.push_back({"multistream+tbo-decode", {{8, 0.9}, {64, 1.1}}, {}});
  c.series.push_back({"a-much-longer-strategy-name-than-any-shipped-one", {{8, 1.0}}, {}});
  const std::string svg = render_line_chart(c);
  // Every left-anchored text ends inside the picture (measured with the same widths the chart
  // uses; those are upper bounds of DejaVu Sans, checked by eye on the rendered PNG).
  CHECK(max_text_right(svg) <= svg_width(svg));
  CHECK(svg::text_width_px("multistream+tbo-decode") > 130);  // 22 characters at 12 px
}

TEST_CASE("sweep report charts: titles, axis words, file names and numeric order", "[charts]") {
  const fs::path spec = scratch_path("charts", "words.yaml"),
                 out = scratch_path("charts", "words.csv"),
                 dir = scratch_path("charts", "words-report");
  std::ofstream(spec)
      << "name: words\nbase: {model: deepseek-v3, hw: h800-sxm, phase: decode, "
         "context: 2048}\naxes:\n  - {field: tokens_per_gpu, values: [8, 64, 256]}\n"
         "  - {field: ep, values: [16, 32, 128]}\nstrategies: [tbo-decode, sbo]\n";
  fs::remove_all(dir);
  const CliResult r =
      cli({"sweep", spec.string(), "--out", out.string(), "-q", "--report", dir.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // One chart per EP size, named by what it shows.
  for (const char* ep : {"16", "32", "128"}) {
    const fs::path f = dir / (std::string("speedup-vs-requests-per-gpu--deepseek-v3--decode--"
                                          "h800-sxm--ep-") +
                              ep + ".svg");
    INFO(f);
    REQUIRE(fs::exists(f));
    const std::string svg = file_bytes(f);
    std::string why;
    CHECK(well_formed_xml(svg, &why));
    const auto texts = svg_texts(svg);
    CHECK(contains(texts, std::string("Speedup over no-overlap - deepseek-v3 decode on h800-sxm, "
                                      "EP ") +
                              ep + ", context 2048"));
    CHECK(contains(texts, "requests per GPU (log scale)"));
    CHECK(contains(texts, "speedup over no-overlap (x)"));
    CHECK(contains(texts, "tbo-decode"));
    CHECK(contains(texts, "sbo"));
  }
  // The crossover table lists EP 16, 32, 128 in that order (not "128" first as text sorts).
  const CsvTable t = CsvTable::load((dir / "crossover.csv").string());
  std::vector<std::string> eps;
  for (size_t i = 0; i < t.rows(); ++i)
    if (t.at(i, "strategy") == "sbo") eps.push_back(t.at(i, "ep"));
  CHECK(eps == std::vector<std::string>{"16", "32", "128"});
  // report --x ep: ticks only at the EP sizes measured.
  const fs::path dir2 = scratch_path("charts", "words-ep");
  fs::remove_all(dir2);
  const CliResult j =
      cli({"report", out.string(), "--out-dir", dir2.string(), "--x", "ep", "--json"});
  INFO(j.err);
  REQUIRE(j.code == 0);
  const auto rep = nlohmann::json::parse(j.out);
  for (const auto& c : rep["crossovers"])
    if (c["status"] == "crosses") {
      const double x = c["crossover"];
      CHECK((x == 16 || x == 32 || x == 128));
    }
  const std::string ep_chart = file_bytes(
      dir2 / "speedup-vs-ep-size-gpus--deepseek-v3--decode--h800-sxm--tokens-per-gpu-8.svg");
  const auto texts = svg_texts(ep_chart);
  CHECK(contains(texts, "EP size (GPUs) (log scale)"));  // EP sizes double: log spacing
  for (const char* tick : {"16", "32", "128"}) CHECK(contains(texts, tick));
  CHECK_FALSE(contains(texts, "20"));  // a log axis would tick 20, 50, 100
  CHECK_FALSE(contains(texts, "50"));
  CHECK(rep["files"][0] == "crossover.csv");
}
