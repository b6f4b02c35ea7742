// Results a user can trust: every sweep results file carries its provenance (version, spec
// fingerprint, hashes of the files it used, its shard), and --resume and merge refuse what does
// not belong - another sweep's rows, a changed input file, a shard twice or missing, a cut last
// row, a row count that does not match - with one located line, exit code 2 and nothing
// written. SIGINT / SIGTERM stop a sweep on a whole point and say how to resume.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "helpers.hpp"
#include "sim/core/sha256.hpp"
#include "sim/core/version.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

// One directory per test process: ctest runs this file's cases in parallel processes, and each
// makes the shared sweep files of runs() (a case reading a part while another rewrote it failed).
fs::path tmp(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / "overlapsim-tests" / ("provenance-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// 1-based number of the first line starting with `start`.
int line_starting(const std::string& text, const std::string& start) {
  const auto ls = lines_of(text);
  for (size_t i = 0; i < ls.size(); ++i)
    if (ls[i].rfind(start, 0) == 0) return static_cast<int>(i) + 1;
  FAIL("no line starts with " << start);
  return 0;
}

const char* kSpec = R"(name: provenance
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, ep: 16}
axes:
  - {field: tokens_per_gpu, values: [8, 32, 128]}
  - {field: hw, values: [h800-sxm, h200-sxm]}
strategies: [tbo-decode, sbo]
)";

std::string spec_file(const std::string& name, const std::string& text = kSpec) {
  const fs::path p = tmp(name);
  spit(p, text);
  return p.string();
}

// The full sweep, and its three shards, computed once.
struct Runs {
  std::string spec = spec_file("spec.yaml");
  fs::path full = tmp("full.csv");
  std::vector<fs::path> parts{tmp("part0.csv"), tmp("part1.csv"), tmp("part2.csv")};
  Runs() {
    REQUIRE(cli({"sweep", spec, "--out", full.string(), "-q"}).code == 0);
    for (int i = 0; i < 3; ++i)
      REQUIRE(cli({"sweep", spec, "--out", parts[i].string(), "--shard", std::to_string(i) + "/3",
                   "-q"})
                  .code == 0);
  }
};
const Runs& runs() {
  static const Runs r;
  return r;
}

// One refusal: exit 2, one line starting "error: FILE:LINE: field 'FIELD': ", naming `needle`.
void expect_located(const CliResult& r, const std::string& file, int line, const std::string& field,
                    const std::string& needle) {
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  std::string where = "error: " + file + ":" + std::to_string(line) + ": ";
  if (!field.empty()) where += "field '" + field + "': ";
  CHECK(r.err.rfind(where, 0) == 0);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("SHA-256 gives the FIPS 180-2 test vectors", "[provenance]") {
  // FIPS 180-2 appendix B.1, B.2, B.3 and the empty message.
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("a results file starts with its provenance", "[provenance][sweep]") {
  const std::string text = file_bytes(runs().full);
  const auto ls = lines_of(text);
  REQUIRE(ls.size() > 12);
  CHECK(ls[0].rfind("# overlapsim sweep results", 0) == 0);
  CHECK(ls[1] == "# version: " + overlapsim_version());
  // The fingerprint is the SHA-256 of the spec line that follows it.
  const std::string json = ls[3].substr(std::string("# spec_json: ").size());
  CHECK(ls[2] == "# spec: provenance sha256:" + sha256_hex(json));
  CHECK(json.find("\"strategies\":[\"tbo-decode\",\"sbo\"]") != std::string::npos);
  // Every file the points used, with the hash of its bytes: two GPUs, one model, the baseline
  // and two strategies.
  for (const char* f :
       {"hw_profiles/h200-sxm.yaml", "hw_profiles/h800-sxm.yaml", "models/configs/deepseek-v3.yaml",
        "strategies/deepseek-v3/no-overlap.yaml", "strategies/deepseek-v3/sbo.yaml",
        "strategies/deepseek-v3/tbo-decode.yaml"})
    CHECK(text.find(std::string("# file: ") + f + " sha256:" + sha256_file(source_path(f)) +
                    "\n") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '#') == 12);  // 12 provenance lines, no more
  CHECK(text.find("# shard: 0/1\n# points: 6 of 6\npoint,") != std::string::npos);
  CHECK(file_bytes(runs().parts[1]).find("# shard: 1/3\n# points: 2 of 6\npoint,") !=
        std::string::npos);
}

TEST_CASE("sweep --resume refuses rows that are not this sweep's and writes nothing",
          "[provenance][sweep][bad-input][faults]") {
  const std::string full = file_bytes(runs().full);
  auto resume = [&](const std::string& name, const std::string& content,
                    const std::string& spec_path, const std::vector<std::string>& extra = {}) {
    const fs::path out = tmp(name);
    spit(out, content);
    std::vector<std::string> args{"sweep", spec_path, "--out", out.string(), "--resume", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = cli(args);
    CHECK(file_bytes(out) == content);  // untouched
    return std::make_pair(out.string(), r);
  };
  {
    // Another sweep's results (the issue's case: same header, other points).
    std::string other = kSpec;
    other.replace(other.find("[8, 32, 128]"), 12, "[8, 32, 512]");
    const auto [out, r] = resume("other-sweep.csv", full, spec_file("other.yaml", other));
    expect_located(r, out, 3, "spec", "rows of another sweep ('provenance'");
  }
  {
    // The same spec as another shard.
    const auto [out, r] =
        resume("other-shard.csv", file_bytes(runs().parts[1]), runs().spec, {"--shard", "2/3"});
    expect_located(r, out, line_starting(file_bytes(runs().parts[1]), "# shard:"), "shard",
                   "rows of shard 1/3, this spec is shard 2/3");
  }
  {
    // A row replaced by another sweep's row for the same point number.
    auto ls = lines_of(full);
    const int row = line_starting(full, "point,") + 3;  // point 1, its first strategy
    const std::string h = ls[row - 1];
    ls[row - 1] =
        h.substr(0, 2) + "deepseek-v4-pro" + h.substr(2 + std::string("deepseek-v3").size());
    const auto [out, r] = resume("foreign-row.csv", join_lines(ls), runs().spec);
    expect_located(r, out, row, "model", "'deepseek-v4-pro', but point 1 of this sweep has");
  }
  {
    // A point repeated (a file appended to twice).
    auto ls = lines_of(full);
    const int row = line_starting(full, "point,") + 3;
    ls.insert(ls.begin() + row + 1, ls[row - 1]);
    ls.insert(ls.begin() + row + 2, ls[row]);
    const auto [out, r] = resume("repeated-point.csv", join_lines(ls), runs().spec);
    expect_located(r, out, row + 2, "point", "expected point 2, found '1'");
  }
  {
    // More rows than the sweep has.
    auto ls = lines_of(full);
    ls.push_back(ls.back());
    const auto [out, r] = resume("extra-rows.csv", join_lines(ls), runs().spec);
    expect_located(r, out, static_cast<int>(ls.size()), "point", "a row beyond the last point");
  }
  {
    // A file from before provenance (its header first).
    const std::string old = full.substr(full.find("point,"));
    const auto [out, r] = resume("no-provenance.csv", old, runs().spec);
    expect_located(r, out, 1, "provenance", "no provenance lines");
  }
  {
    // Another overlapsim version.
    std::string v = full;
    v.replace(v.find("# version: "),
              std::string("# version: ").size() + overlapsim_version().size(), "# version: 0.0.1");
    const auto [out, r] = resume("old-version.csv", v, runs().spec);
    expect_located(r, out, 2, "version", "rows computed by overlapsim 0.0.1");
  }
  {
    // An edited spec line no longer matches its fingerprint.
    std::string e = full;
    e.replace(e.find("\"context\":\"2048\""), 16, "\"context\":\"4096\"");
    const auto [out, r] = resume("edited-spec.csv", e, runs().spec);
    expect_located(r, out, 4, "spec_json", "does not match the spec's fingerprint");
  }
}

TEST_CASE("sweep --resume refuses rows computed with a hardware file that has changed since",
          "[provenance][sweep][bad-input][faults]") {
  const fs::path profile = tmp("my-gpu.yaml");
  std::string text = file_bytes(source_path("hw_profiles/h800-sxm.yaml"));
  spit(profile, text);
  const std::string spec = spec_file(
      "my-gpu-spec.yaml",
      "name: my-gpu\nbase: {model: deepseek-v3, hw: " + profile.string() +
          ", context: 2048, ep: 16}\naxes:\n  - {field: tokens_per_gpu, values: [8, 32]}\n"
          "strategies: [tbo-decode]\n");
  const fs::path out = tmp("my-gpu.csv");
  REQUIRE(cli({"sweep", spec, "--out", out.string(), "-q"}).code == 0);
  const std::string before = file_bytes(out);
  CHECK(before.find("# file: " + profile.string() + " sha256:" + sha256_file(profile.string())) !=
        std::string::npos);
  text.replace(text.find("value: 160,"), 11, "value: 120,");  // NVLink GB/s
  spit(profile, text);
  const CliResult r = cli({"sweep", spec, "--out", out.string(), "--resume", "-q"});
  expect_located(r, out.string(), line_starting(before, "# file:"), "file",
                 profile.string() + " has changed");
  CHECK(file_bytes(out) == before);
}

TEST_CASE("merge refuses each broken set of shards with one located line and writes nothing",
          "[provenance][sweep][bad-input][faults]") {
  const auto& p = runs().parts;
  const fs::path out = tmp("merged.csv");
  auto merge = [&](std::vector<std::string> parts, std::vector<std::string> flags = {}) {
    fs::remove(out);
    std::vector<std::string> args{"merge", out.string()};
    args.insert(args.end(), parts.begin(), parts.end());
    args.insert(args.end(), flags.begin(), flags.end());
    return cli(args);
  };
  const std::string p0 = p[0].string(), p1 = p[1].string(), p2 = p[2].string();
  const std::string part2 = file_bytes(p[2]);
  const int shard_line = line_starting(part2, "# shard:");
  {
    // A shard given twice.
    expect_located(merge({p0, p1, p1}), p1, shard_line, "shard",
                   "shard 1/3 is also in " + p1 + ": a shard given twice");
    CHECK_FALSE(fs::exists(out));
  }
  {
    // A shard missing: refused, or with --allow-partial merged and named.
    expect_located(merge({p0, p2}), p0, shard_line, "shard",
                   "shard(s) 1/3 missing (given: 0/3, 2/3)");
    CHECK_FALSE(fs::exists(out));
    const CliResult partial = merge({p0, p2}, {"--allow-partial"});
    CHECK(partial.code == 0);
    CHECK(partial.out.find("merged 2 of 3 shards") != std::string::npos);
    CHECK(partial.out.find("missing: shard(s) 1/3 (2 points)") != std::string::npos);
    CHECK(file_bytes(out).find("# shard: 0,2/3\n# points: 4 of 6\n") != std::string::npos);
    // The partial file and the missing shard merge into the unsharded file.
    const fs::path partial_file = tmp("partial.csv");
    fs::rename(out, partial_file);
    REQUIRE(merge({partial_file.string(), p1}).code == 0);
    CHECK(file_bytes(out) == file_bytes(runs().full));
  }
  {
    // A shard cut off mid-row (the machine running it died).
    const fs::path cut = tmp("cut.csv");
    spit(cut, part2.substr(0, part2.size() - 40));
    expect_located(merge({p0, p1, cut.string()}), cut.string(),
                   static_cast<int>(lines_of(part2).size()), "", "the last row is cut off");
    CHECK_FALSE(fs::exists(out));
  }
  {
    // A row count that does not match the shard's points: the last point's last row lost
    // (whole lines, so only counting finds it).
    auto ls = lines_of(part2);
    ls.pop_back();
    const fs::path short_part = tmp("short.csv");
    spit(short_part, join_lines(ls));
    expect_located(merge({p0, p1, short_part.string()}), short_part.string(),
                   static_cast<int>(ls.size()), "points",
                   "1 complete point(s), but shard 2/3 has 2: rows are missing");
    CHECK_FALSE(fs::exists(out));
  }
  {
    // A shard of another sweep.
    std::string other = kSpec;
    other.replace(other.find("context: 2048"), 13, "context: 4096");
    const fs::path foreign = tmp("foreign-part.csv");
    REQUIRE(cli({"sweep", spec_file("foreign.yaml", other), "--out", foreign.string(), "--shard",
                 "1/3", "-q"})
                .code == 0);
    expect_located(merge({p0, foreign.string(), p2}), foreign.string(), 3, "spec",
                   "rows of another sweep");
    CHECK_FALSE(fs::exists(out));
  }
  {
    // Shards of another split of the same sweep.
    const fs::path half = tmp("half.csv");
    REQUIRE(cli({"sweep", runs().spec, "--out", half.string(), "--shard", "1/2", "-q"}).code == 0);
    expect_located(merge({p0, half.string()}), half.string(),
                   line_starting(file_bytes(half), "# shard:"), "shard", "not the same split");
  }
  {
    // A row of another shard inside a part.
    auto ls = lines_of(part2);
    const auto l1 = lines_of(file_bytes(p[1]));
    ls[ls.size() - 2] = l1[l1.size() - 2];
    const fs::path mixed = tmp("mixed.csv");
    spit(mixed, join_lines(ls));
    expect_located(merge({p0, p1, mixed.string()}), mixed.string(), static_cast<int>(ls.size()) - 1,
                   "point", "expected point 5, found '4'");
    CHECK_FALSE(fs::exists(out));
  }
}

namespace {

// Runs the binary on `args` in a child whose stderr goes to `err_file`; returns its pid.
pid_t spawn(const std::vector<std::string>& args, const fs::path& err_file) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(OVS_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

TEST_CASE(
    "SIGINT or SIGTERM stops a sweep on a whole point, says how to resume, and the resumed "
    "file equals an uninterrupted run",
    "[provenance][sweep][faults]") {
  // About 0.05 s a point: long enough to interrupt part-way.
  const std::string spec = spec_file("interrupt.yaml", R"(name: interrupt
base: {model: deepseek-v3, hw: h800-sxm, phase: decode, context: 2048, ep: 16}
axes:
  - {field: tokens_per_gpu, range: {from: 2, to: 120, steps: 60}}
strategies: [tbo-decode, sbo]
)");
  const fs::path full = tmp("interrupt-full.csv");
  REQUIRE(cli({"sweep", spec, "--out", full.string(), "-q"}).code == 0);
  for (int sig : {SIGINT, SIGTERM}) {
    const fs::path cut = tmp("interrupt-cut.csv"), err = tmp("interrupt-err.txt");
    fs::remove(cut);
    const pid_t pid =
        spawn({"overlapsim", "sweep", spec, "--out", cut.string(), "-q", "-j", "2"}, err);
    for (int i = 0; i < 1000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (fs::exists(cut) && fs::file_size(cut) > 6000) break;  // provenance, header, some rows
    }
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + sig);
    // Complete points only: every line ends, two rows per point, and the message counts them.
    const std::string text = file_bytes(cut);
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');
    const auto ls = lines_of(text);
    const int first_row = line_starting(text, "point,") + 1;
    const long long rows = static_cast<long long>(ls.size()) - (first_row - 1);
    CHECK(rows % 2 == 0);
    CHECK(rows < 120);
    const std::string message = file_bytes(err);
    INFO(message);
    CHECK(message.find(std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ": " +
                       std::to_string(rows / 2) + " of 60 point(s) are complete in " +
                       cut.string()) != std::string::npos);
    CHECK(message.find("overlapsim sweep " + spec + " --out " + cut.string() + " --resume") !=
          std::string::npos);
    REQUIRE(cli({"sweep", spec, "--out", cut.string(), "--resume", "-q"}).code == 0);
    CHECK(file_bytes(cut) == file_bytes(full));
  }
}
