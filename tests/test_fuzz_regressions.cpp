// Inputs with which the fuzzers (fuzz/) found bugs, kept in fuzz/regressions/<target>/ and fed
// through the same harness (fuzz/harness.hpp): each must load or be answered with an InputError
// (or the engine's SimulationError; the CLI answers both with exit code 2), never crash, throw
// anything else, or give a wrong answer the harness checks for.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <typeinfo>
#include <utility>
#include <vector>

#include "fuzz/harness.hpp"
#include "helpers.hpp"

using namespace ovs;
using ovs::test::file_bytes;
namespace fs = std::filesystem;

namespace {

// "ok", "InputError: ...", or what went wrong.
std::string replay(const std::string& target, const std::string& bytes) {
  try {
    fuzz::run_target(target, bytes);
    return "ok";
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) return "InputError on several lines: " + what;
    return "InputError: " + what;
  } catch (const SimulationError& e) {
    return std::string("SimulationError: ") + e.what();
  } catch (const fuzz::Finding& e) {
    return std::string("wrong answer: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("uncaught ") + typeid(e).name() + ": " + e.what();
  }
}

bool answered(const std::string& r) {
  return r == "ok" || r.rfind("InputError: ", 0) == 0 || r.rfind("SimulationError: ", 0) == 0;
}

}  // namespace

TEST_CASE("fuzz regressions: every saved input is loaded or answered with an InputError",
          "[fuzz-regressions][bad-input]") {
  const fs::path root = test::source_path("fuzz/regressions");
  int inputs = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    const std::string target = dir.path().filename().string();
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (!f.is_regular_file() || f.path().extension() == ".md") continue;
      const std::string r = replay(target, file_bytes(f.path()));
      INFO(target << "/" << f.path().filename().string() << ": " << r);
      CHECK(answered(r));
      ++inputs;
    }
  }
  CHECK(inputs > 0);
}

TEST_CASE("the fuzz seeds load (the harness accepts valid input)", "[fuzz-regressions]") {
  // Every seed is a valid input of its target: a harness that rejected them would fuzz nothing.
  // The seeds: fuzz/corpus/<target>/, and the shipped folders fuzz/seeds.txt names.
  std::vector<std::pair<std::string, fs::path>> dirs;
  for (const auto& dir : fs::directory_iterator(test::source_path("fuzz/corpus")))
    dirs.push_back({dir.path().filename().string(), dir.path()});
  std::ifstream list(test::source_path("fuzz/seeds.txt"));
  std::string target, folder;
  while (list >> target) {
    if (target[0] == '#') {
      std::getline(list, folder);
      continue;
    }
    list >> folder;
    dirs.push_back({target, test::source_path(folder)});
  }
  CHECK(dirs.size() >= 9);  // 4 corpus folders (csv, hw_profile, program, trace), 5 shipped
  int seeds = 0;
  for (const auto& [t, dir] : dirs) {
    REQUIRE(fs::is_directory(dir));
    for (const auto& f : fs::directory_iterator(dir)) {
      if (f.path().extension() != ".yaml" && f.path().extension() != ".csv" &&
          f.path().extension() != ".json")
        continue;
      const std::string r = replay(t, file_bytes(f.path()));
      INFO(t << ": " << f.path().string() << ": " << r);
      CHECK(r == "ok");
      ++seeds;
    }
  }
  CHECK(seeds > 40);
}
