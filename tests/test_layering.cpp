// The folders are layers: a file may include its own folder and the folders of layers below it,
// never one above (README "Architecture"). This test reads every source file of the project and
// fails on an include that climbs.
//
//   0 sim/core      1 sim/engine    2 sim/io        3 models/*
//   4 app/strategy, app/program     5 app/analysis  6 app/sweep, app/search, app/plan
//   7 calibrate/import, calibrate/fit               8 app/cli
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "helpers.hpp"

namespace fs = std::filesystem;

namespace {

// The layer of a folder ("sim/engine", "models/cost", ...), or -1 when it is not a layered folder.
int layer_of(const std::string& folder) {
  static const std::map<std::string, int> layers = {
      {"sim/core", 0},     {"sim/engine", 1},  {"sim/io", 2},           {"models", 3},
      {"app/strategy", 4}, {"app/program", 4}, {"app/analysis", 5},     {"app/sweep", 6},
      {"app/search", 6},   {"app/plan", 6},    {"calibrate/import", 7}, {"calibrate/fit", 7},
      {"app/cli", 8}};
  if (folder.rfind("models/", 0) == 0) return layers.at("models");
  auto it = layers.find(folder);
  return it == layers.end() ? -1 : it->second;
}

std::string folder_of(const std::string& include) {
  const auto second = include.find('/', include.find('/') + 1);
  return second == std::string::npos ? "" : include.substr(0, second);
}

}  // namespace

TEST_CASE("no layer includes a layer above it", "[layering]") {
  const fs::path root = OVS_SOURCE_DIR;
  const std::regex include_re("^\\s*#\\s*include\\s+\"([^\"]+)\"");
  int files = 0;
  for (const char* top : {"sim", "models", "app", "calibrate"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      const int mine = layer_of(folder_of(rel));
      if (mine < 0) continue;  // calibrate/bench: the CUDA microbenchmarks, built apart
      ++files;
      std::ifstream in(e.path());
      std::string line;
      int n = 0;
      while (std::getline(in, line)) {
        ++n;
        std::smatch m;
        if (!std::regex_search(line, m, include_re)) continue;
        const int theirs = layer_of(folder_of(m[1]));
        if (theirs < 0) continue;  // a file of the same folder, or a generated header
        INFO(rel << ":" << n << " includes " << m[1]);
        CHECK(theirs <= mine);
      }
    }
  }
  CHECK(files > 150);  // the walk found the tree
}
