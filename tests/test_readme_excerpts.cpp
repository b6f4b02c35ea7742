// The README's excerpts are what the binary prints: every fenced block after a marker
// `<!-- output of: overlapsim ARGS -->` must equal the output of `overlapsim ARGS` run from the
// repository root (timings such as "(0.2 s)" aside); a `<!-- run: overlapsim ARGS -->` step runs
// where it stands (it writes a file later excerpts read) and must succeed.
// scripts/update-readme-excerpts.sh regenerates them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "helpers.hpp"

using namespace ovs::test;

namespace {

struct Excerpt {
  std::string args;
  std::string block;
  int line = 0;
  bool shown = true;  // false: a `<!-- run: overlapsim ARGS -->` step, its output not kept
};

std::vector<Excerpt> excerpts(const std::string& readme) {
  std::ifstream in(readme);
  std::vector<Excerpt> out;
  const std::string marker = "<!-- output of: overlapsim ";
  const std::string step = "<!-- run: overlapsim ";
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind(step, 0) == 0) {
      out.push_back({line.substr(step.size(), line.size() - step.size() - 4), "", n, false});
      continue;
    }
    if (line.rfind(marker, 0) != 0) continue;
    Excerpt e;
    e.line = n;
    e.args = line.substr(marker.size(), line.size() - marker.size() - 4);  // " -->"
    std::getline(in, line);                                                // opening fence
    ++n;
    while (std::getline(in, line) && line != "```") {
      ++n;
      e.block += line + "\n";
    }
    out.push_back(e);
  }
  return out;
}

std::string without_timings(const std::string& s) {
  static const std::regex t(R"(\(\d+(\.\d+)? s\))");
  return std::regex_replace(s, t, "(T s)");
}

}  // namespace

TEST_CASE("every README excerpt is what the binary prints today", "[readme]") {
  const std::string root = std::filesystem::path(source_path("README.md")).parent_path().string();
  const auto list = excerpts(root + "/README.md");
  REQUIRE(list.size() >= 3);  // the main job, plan, the layer breakdown
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(root);  // the commands name files from the repository root
  for (const auto& e : list) {
    std::vector<std::string> args;
    std::istringstream words(e.args);
    for (std::string w; words >> w;) args.push_back(w);
    const CliResult r = cli(args);
    INFO("README.md line " << e.line << ": overlapsim " << e.args
                           << " (regenerate with scripts/update-readme-excerpts.sh)");
    CHECK(r.code == 0);
    if (e.shown) CHECK(without_timings(r.out) == without_timings(e.block));
  }
  std::filesystem::current_path(before);
}
