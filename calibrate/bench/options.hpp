#pragma once
// Command-line options of overlapsim_microbench. Parsing touches no GPU, so --help works anywhere.

#include <filesystem>
#include <string>
#include <vector>

struct BenchOptions {
  std::vector<std::string> families;  // in run order, no duplicates
  std::filesystem::path out_dir;
  bool quick = false;
  int reps = 20;   // timed repetitions per measurement; the CSVs report their median
  int warmup = 3;  // untimed runs before them
  int device = 0;
  std::vector<std::string> plans;  // layer family: .plan files or folders of them
  std::string command_line;        // argv joined, for the CSV headers
};

enum class ParseOutcome { kRun, kHelp, kError };

struct ParseResult {
  ParseOutcome outcome = ParseOutcome::kError;
  BenchOptions options;
  std::string error;  // set when outcome is kError
};

ParseResult parse_options(int argc, char** argv);

std::string usage_text();

// The families in the order `--family all` runs them.
const std::vector<std::string>& all_families();
