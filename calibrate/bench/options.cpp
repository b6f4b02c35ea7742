#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace {

bool parse_int(const std::string& text, int min_value, int& value) {
  int parsed = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, parsed);
  if (ec != std::errc() || ptr != end || parsed < min_value) return false;
  value = parsed;
  return true;
}

std::string join_command_line(int argc, char** argv) {
  std::string joined;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    const bool needs_quotes = arg.empty() || arg.find_first_of(" \t\"'") != std::string::npos;
    if (i > 0) joined += ' ';
    if (needs_quotes) {
      joined += '\'';
      for (char c : arg) joined += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      joined += '\'';
    } else {
      joined += arg;
    }
  }
  return joined;
}

// "gemm,hbm" or "all" -> families in order; false on an unknown name.
bool parse_families(const std::string& text, std::vector<std::string>& families,
                    std::string& error) {
  std::stringstream stream(text);
  std::string name;
  while (std::getline(stream, name, ',')) {
    if (name == "all") {
      for (const auto& family : all_families()) families.push_back(family);
      continue;
    }
    const auto& known = all_families();
    if (name != "layer" && std::find(known.begin(), known.end(), name) == known.end()) {
      error = "unknown family '" + name + "'";
      return false;
    }
    families.push_back(name);
  }
  std::vector<std::string> unique;
  for (const auto& family : families) {
    if (std::find(unique.begin(), unique.end(), family) == unique.end()) unique.push_back(family);
  }
  families = unique;
  return true;
}

}  // namespace

const std::vector<std::string>& all_families() {
  static const std::vector<std::string> families = {"launch", "hbm", "l2", "gemm", "concurrency"};
  return families;
}

std::string usage_text() {
  return "usage: overlapsim_microbench --family F --out DIR [--quick] [--reps N] [--warmup N]\n"
         "                             [--device N] [--plans PATHS]\n"
         "\n"
         "CUDA microbenchmarks that calibrate overlapsim's hardware profiles. Writes one CSV per\n"
         "family, DIR/<family>.csv, described in calibrate/README.md.\n"
         "\n"
         "  --family F   gemm | hbm | l2 | launch | concurrency | all, or a comma-separated list;\n"
         "               layer (not in all) runs the bench plans named by --plans\n"
         "  --out DIR    output directory (created if missing)\n"
         "  --quick      5 timed repetitions instead of 20, 2 warm-up runs instead of 3\n"
         "  --reps N     timed repetitions per measurement (the median is reported)\n"
         "  --warmup N   untimed runs before the repetitions\n"
         "  --device N   CUDA device index (default 0)\n"
         "  --plans P    layer: .plan files or folders of them, comma-separated (written by\n"
         "               overlapsim whatif --export-layers)\n"
         "  -h, --help   print this text and exit\n";
}

ParseResult parse_options(int argc, char** argv) {
  ParseResult result;
  BenchOptions& options = result.options;
  options.command_line = join_command_line(argc, argv);
  int reps_override = -1;
  int warmup_override = -1;

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      result.outcome = ParseOutcome::kHelp;
      return result;
    }
    if (arg == "--quick") {
      options.quick = true;
      continue;
    }
    const bool takes_value = arg == "--family" || arg == "--out" || arg == "--reps" ||
                             arg == "--warmup" || arg == "--device" || arg == "--plans";
    if (!takes_value) {
      result.error = "unknown argument '" + arg + "'";
      return result;
    }
    if (i + 1 >= argc) {
      result.error = arg + " needs a value";
      return result;
    }
    const std::string value = argv[++i];
    if (arg == "--family") {
      if (!parse_families(value, options.families, result.error)) return result;
    } else if (arg == "--out") {
      options.out_dir = value;
    } else if (arg == "--plans") {
      std::stringstream list(value);
      for (std::string path; std::getline(list, path, ',');)
        if (!path.empty()) options.plans.push_back(path);
    } else if (arg == "--reps") {
      if (!parse_int(value, 1, reps_override)) {
        result.error = "--reps needs an integer >= 1, got '" + value + "'";
        return result;
      }
    } else if (arg == "--warmup") {
      if (!parse_int(value, 0, warmup_override)) {
        result.error = "--warmup needs an integer >= 0, got '" + value + "'";
        return result;
      }
    } else if (!parse_int(value, 0, options.device)) {
      result.error = "--device needs an integer >= 0, got '" + value + "'";
      return result;
    }
  }

  if (options.families.empty()) {
    result.error = "--family is required";
    return result;
  }
  if (std::find(options.families.begin(), options.families.end(), "layer") !=
          options.families.end() &&
      options.plans.empty()) {
    result.error = "--family layer needs --plans";
    return result;
  }
  if (options.out_dir.empty()) {
    result.error = "--out is required";
    return result;
  }
  if (options.quick) {
    options.reps = 5;
    options.warmup = 2;
  }
  if (reps_override > 0) options.reps = reps_override;
  if (warmup_override >= 0) options.warmup = warmup_override;
  result.outcome = ParseOutcome::kRun;
  return result;
}
