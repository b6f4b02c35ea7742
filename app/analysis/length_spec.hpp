#pragma once
// Per-request lengths the way users describe workloads (SGLang's bench_serving, other planners):
// a list, a fixed value, a distribution or a file of lengths, drawn with a seed.
//
//   4095,4096,1          a list (--prompt-lens / --context-lens: these requests, in order)
//   2000                 --isl / --osl: every request 2000 long
//   fixed:2000           the same, spelled out
//   uniform:A,B          whole lengths in [A, B], each equally likely
//   normal:MEAN,SD       rounded to whole lengths, at least 1
//   lognormal:MEAN,SD    the lengths' own mean and SD (not the log's): sigma^2 = ln(1 + SD^2 /
//                        MEAN^2), mu = ln(MEAN) - sigma^2 / 2; rounded, at least 1
//   file:PATH            lengths from a file: CSV (one length per line, or comma-separated; a
//                        header line of text is skipped) or JSON (an array of lengths, or an
//                        object whose "lengths" is one). A list flag takes them in order; --isl
//                        and --osl draw from them (the file is an empirical distribution).
//
// Draws are deterministic for a seed: a Mersenne twister (std::mt19937_64, whose output the C++
// standard fixes) and the project's own uniform and Box-Muller transforms, so the same seed gives
// the same batch on every platform.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ovs {

// A finite number from the whole of `s` ("12", "0.5", "1e3"), or nothing ("12x", "", "nan").
std::optional<double> number_of(const std::string& s);

struct LengthSpec {
  enum class Kind { list, fixed, uniform, normal, lognormal, file } kind = Kind::list;
  std::vector<std::int64_t> values;  // list, file (and fixed: one value)
  double a = 0, b = 0;               // uniform: bounds; normal, lognormal: mean, SD
};

// Parses `text` for the field `field` (an error names it): a list when `list_allowed` (else a
// plain number is fixed), or one of the forms above. Throws InputError (flag_error for flags)
// through `fail(message)`.
template <class Fail>
LengthSpec parse_length_spec(const std::string& text, bool list_allowed, Fail fail);

// Non-template core: returns an error message instead of throwing ("" when it parsed).
std::string parse_length_spec_into(const std::string& text, bool list_allowed, LengthSpec& out);

// `count` lengths drawn from the spec (a list or file repeats in order for the list flags;
// --isl/--osl draw from it). Same seed, same lengths.
std::vector<std::int64_t> draw_lengths(const LengthSpec& spec, std::int64_t count,
                                       std::uint64_t seed);

// Prompts drawn until they hold `total_tokens`, the last one cut to fit (SGLang's chunked
// prefill cuts the prompt that crosses the budget). `longest_drawn` (optional): the longest
// prompt as drawn, before the cut.
std::vector<std::int64_t> fill_tokens(const LengthSpec& spec, std::int64_t total_tokens,
                                      std::uint64_t seed, std::int64_t* longest_drawn = nullptr);

// Decode contexts of `count` requests caught at a random moment of their lives: each request's
// prompt (isl) plus the tokens it has generated so far, uniform in [0, its output length) (osl;
// none: the prompt alone). Separate streams of the seed for the three draws.
std::vector<std::int64_t> contexts_over_life(const LengthSpec& isl, const LengthSpec* osl,
                                             std::int64_t count, std::uint64_t seed);

template <class Fail>
LengthSpec parse_length_spec(const std::string& text, bool list_allowed, Fail fail) {
  LengthSpec s;
  const std::string error = parse_length_spec_into(text, list_allowed, s);
  if (!error.empty()) fail(error);
  return s;
}

}  // namespace ovs
