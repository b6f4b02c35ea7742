// The Perfetto trace of a what-if: an arrow from every host launch to its kernel, no empty
// tracks, and per-micro-batch tracks only in the run that has micro-batches.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "helpers.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct Track {
  std::string name;
  int events = 0;  // slices and instants drawn on it
};

}  // namespace

TEST_CASE("trace: launch arrows, no empty tracks, micro-batch tracks only where split", "[trace]") {
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests";
  fs::create_directories(dir);
  const std::string trace = (dir / "polish-trace.json").string();
  const CliResult r = cli({"whatif", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase",
                           "decode", "--tokens-per-gpu", "16", "--context", "1024", "--ep", "32",
                           "--strategy", "tbo-decode", "--trace", trace});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream in(trace);
  const Json j = Json::parse(in);
  // pid 1: the baseline (one batch); pid 2: tbo-decode (two micro-batches).
  std::map<std::pair<int, int>, Track> tracks;
  std::map<long long, Json> starts, finishes;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  std::map<std::pair<int, int>, std::set<double>> kernel_starts;
  int host_launches = 0;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "C") continue;
    const std::pair<int, int> key{e["pid"].get<int>(), e["tid"].get<int>()};
    if (ph == "M") {
      if (e["name"] == "thread_name") tracks[key].name = e["args"]["name"];
      continue;
    }
    if (ph == "X" || ph == "i") ++tracks[key].events;
    if (ph == "X") {
      const double ts = e["ts"], dur = e["dur"];
      slices[key].push_back({ts, ts + dur});
      if (e["cat"] != "host") kernel_starts[key].insert(ts);
      if (e["cat"] == "host" && e["name"].get<std::string>().rfind("launch ", 0) == 0)
        ++host_launches;
    }
    if (ph == "s") starts[e["id"].get<long long>()] = e;
    if (ph == "f") finishes[e["id"].get<long long>()] = e;
  }
  // No empty tracks: every named track has something drawn on it.
  std::set<std::string> names[3];
  for (const auto& [key, t] : tracks) {
    INFO(t.name);
    CHECK(!t.name.empty());
    CHECK(t.events > 0);
    names[key.first].insert(t.name);
  }
  // Low-latency decode uses no DeepEP normal-mode stream: its track is not drawn.
  CHECK_FALSE(names[1].count("stream deepep"));
  CHECK_FALSE(names[2].count("stream deepep"));
  // Micro-batch tracks only in the split run.
  CHECK(names[1].count("data in flight"));
  for (const auto& n : names[1]) CHECK(n.find("micro-batch") == std::string::npos);
  CHECK(names[2].count("data in flight, micro-batch A"));
  CHECK(names[2].count("data in flight, micro-batch B"));
  // Arrows: one per host launch, each from inside its launch slice on the host track to the
  // start of a kernel slice on the kernel's stream.
  CHECK(host_launches > 0);
  CHECK(int(starts.size()) == host_launches);
  CHECK(finishes.size() == starts.size());
  for (const auto& [id, s] : starts) {
    REQUIRE(finishes.count(id));
    const Json& f = finishes[id];
    CHECK(f["bp"] == "e");
    CHECK(f["pid"] == s["pid"]);
    const double sts = s["ts"];
    bool inside = false;
    for (const auto& [a, b] : slices[{s["pid"].get<int>(), s["tid"].get<int>()}])
      inside = inside || (a <= sts && sts <= b);
    CHECK(inside);
    CHECK(kernel_starts[{f["pid"].get<int>(), f["tid"].get<int>()}].count(f["ts"].get<double>()));
    CHECK(f["ts"].get<double>() >= sts);  // a kernel starts after its launch
  }
}

TEST_CASE("trace: a strategy compared with itself is traced twice, not freed in between",
          "[trace]") {
  // Both runs go to the watcher, so neither comes from the session's cache; the second used to
  // replace the cache entry the first reference pointed to (std::bad_alloc, exit 1).
  const fs::path dir = fs::temp_directory_path() / "overlapsim-tests";
  fs::create_directories(dir);
  const std::string trace = (dir / "self-trace.json").string();
  const CliResult r = cli({"whatif", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase",
                           "decode", "--tokens-per-gpu", "32", "--context", "2000", "--ep", "16",
                           "--strategy", "no-overlap", "--json", "--trace", trace});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["speedup"].get<double>() == 1.0);  // the same program twice: identical runs
  std::ifstream in(trace);
  const Json t = Json::parse(in);
  int process_names = 0;
  for (const auto& e : t["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") ++process_names;
  CHECK(process_names == 2);  // one process per run
}
