#pragma once
// Every flag is checked when the command line is parsed, with a message a person reads once:
// "--ep: must be a whole number >= 1 (got 0)", "--phase: unknown value 'prefil' (did you mean
// 'prefill'?)". CLI11 runs these before converting the text, so a word where a number belongs
// gets the same message.
#include <CLI/CLI.hpp>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ovs::flags {

// A whole number in [lo, hi]: "must be a whole number >= 1 (got 0)", "must be at most 64 (got
// 100)". Counts that feed int fields stop at 2^31 - 1; token and context counts at 2^40 (far
// beyond any GPU's memory, which the memory model then reports).
CLI::Validator whole(long long lo, long long hi);
inline CLI::Validator whole_int(long long lo) {
  return whole(lo, 2147483647LL);
}
inline CLI::Validator whole_count(long long lo) {
  return whole(lo, 1LL << 40);
}
// A finite real number in [lo, hi].
CLI::Validator real(double lo, double hi);
// A number > 0 (and <= hi when hi is finite): "NUMBER>0", "NUMBER in (0, 1]".
CLI::Validator positive(double hi = std::numeric_limits<double>::infinity());
// "auto", or a number as real(lo, hi) checks it.
CLI::Validator auto_or_real(double lo, double hi);
// One of `choices`, with the nearest suggested when it is none of them.
CLI::Validator one_of(std::vector<std::string> choices);

// A shard "i/N" with 0 <= i < N (--shard).
CLI::Validator shard();
// The shard's (i, N); call only on text shard() accepted.
std::pair<int, int> parse_shard(const std::string& text);

// Largest -j: more threads than 4 per core only add switching (and -j 10000 would start 10,000).
// Without -j, all cores (resolve_jobs, app/sweep/threads.hpp).
int max_jobs();

// An option taking an optional count, as `--uncertainty [N]`: 0 when it was not given,
// `when_bare` when it was given alone, else N (in [1, 100000]; flag_error otherwise).
int optional_count(const CLI::Option& opt, int when_bare);

}  // namespace ovs::flags
