// Hardware profiles, model configs and strategies are read through FastDoc when their text is in
// its subset (yaml::parse_file), and through yaml-cpp otherwise. Every shipped file must give
// exactly what yaml-cpp gives: the same values, and for profiles the same field paths, lines and
// sources (calibrate rewrites a fitted number on the line its field came from).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "app/strategy/strategy.hpp"
#include "helpers.hpp"
#include "models/config/model_config.hpp"
#include "models/hw/hw_profile.hpp"
#include "sim/core/error.hpp"
#include "sim/io/yaml_fast.hpp"
#include "sim/io/yaml_reader.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {
std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(source_path(dir)))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}
// The file is in FastDoc's subset (else parse_file reads it with yaml-cpp and there is nothing
// to compare).
bool fast_readable(const std::string& path) {
  return yaml::FastDoc::parse(yaml::read_file(path)) != nullptr;
}
}  // namespace

TEST_CASE("fast-read hardware profiles equal yaml-cpp's, field by field", "[yaml][fast]") {
  int fast = 0;
  for (const auto& path : yaml_files("hw_profiles")) {
    INFO(path);
    fast += fast_readable(path);
    const HwProfile a = yaml::parse_file(path, parse_hw_profile);
    const HwProfile b = parse_hw_profile(yaml::load_file(path));
    CHECK(a.name == b.name);
    CHECK(a.description == b.description);
    CHECK(a.aliases == b.aliases);
    CHECK(a.vendor == b.vendor);
    CHECK(a.arch == b.arch);
    REQUIRE(a.fields.size() == b.fields.size());
    for (size_t i = 0; i < a.fields.size(); ++i) {
      INFO(b.fields[i].path);
      CHECK(a.fields[i].path == b.fields[i].path);
      CHECK(a.fields[i].line == b.fields[i].line);
      CHECK(a.fields[i].value == b.fields[i].value);
      CHECK(a.fields[i].source == b.fields[i].source);
      CHECK(a.fields[i].list == b.fields[i].list);
    }
  }
  CHECK(fast == 7);  // every shipped profile takes the fast path
}

TEST_CASE("fast-read model configs and strategies equal yaml-cpp's", "[yaml][fast]") {
  int fast = 0, files = 0;
  for (const auto& path : yaml_files("models/configs")) {
    INFO(path);
    ++files;
    fast += fast_readable(path);
    CHECK(yaml::parse_file(path, parse_model_config) == parse_model_config(yaml::load_file(path)));
  }
  std::vector<std::string> strategies = yaml_files("strategies/deepseek-v3");
  for (const auto& p : yaml_files("strategies/deepseek-v4")) strategies.push_back(p);
  for (const auto& path : strategies) {
    INFO(path);
    ++files;
    fast += fast_readable(path);
    CHECK(yaml::parse_file(path, parse_strategy) == parse_strategy(yaml::load_file(path)));
  }
  // All but strategies with constructs outside the subset (a flow item such as prev:kv_done,
  // which yaml-cpp then reads) take the fast path.
  CHECK(fast >= files - 1);
}

TEST_CASE("a bad file read through the fast path gets yaml-cpp's located error", "[yaml][fast]") {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests";
  fs::create_directories(dir);
  const std::string path = (dir / "fast-bad-profile.yaml").string();
  std::string text = yaml::read_file(source_path("hw_profiles/h800-sxm.yaml"));
  text.replace(text.find("sm_count:"), 9, "sm_cont:");
  std::ofstream(path, std::ios::binary) << text;
  try {
    yaml::parse_file(path, parse_hw_profile);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.line() == 8);
    CHECK(e.field() == "sm_cont");
  }
}
