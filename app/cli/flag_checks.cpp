#include "app/cli/flag_checks.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "app/sweep/threads.hpp"
#include "sim/core/error.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs::flags {
namespace {

// Empty when `text` is a whole number in [lo, hi]; else why not.
std::string check_whole(const std::string& text, long long lo, long long hi) {
  const std::string want = fmt::format("must be a whole number >= {}", lo);
  if (text.empty()) return want + " (got nothing)";
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') return want + " (got '" + text + "')";
  if (v < lo) return want + " (got " + text + ")";
  if (errno == ERANGE || v > hi) return fmt::format("must be at most {} (got {})", hi, text);
  return {};
}

}  // namespace

CLI::Validator whole(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) { return check_whole(text, lo, hi); },
      hi >= (1LL << 20) ? fmt::format("INT>={}", lo) : fmt::format("INT in [{}, {}]", lo, hi));
}

CLI::Validator real(double lo, double hi) {
  const bool open = std::isinf(hi);
  const std::string want = open ? fmt::format("must be a number >= {}", lo)
                                : fmt::format("must be a number between {} and {}", lo, hi);
  return CLI::Validator(
      [lo, hi, want](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0')
          return want + " (got '" + text + "')";
        if (!std::isfinite(v) || v < lo || v > hi) return want + " (got " + text + ")";
        return {};
      },
      open ? fmt::format("NUMBER>={}", lo) : fmt::format("NUMBER in [{}, {}]", lo, hi));
}

CLI::Validator positive(double hi) {
  const bool open = std::isinf(hi);
  const std::string want =
      open ? "must be a number > 0" : fmt::format("must be a number > 0 and at most {}", hi);
  return CLI::Validator(
      [hi, want](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0')
          return want + " (got '" + text + "')";
        if (!std::isfinite(v) || v <= 0 || v > hi) return want + " (got " + text + ")";
        return {};
      },
      open ? "NUMBER>0" : fmt::format("NUMBER in (0, {}]", hi));
}

CLI::Validator auto_or_real(double lo, double hi) {
  const CLI::Validator number = real(lo, hi);
  return CLI::Validator(
      [number](std::string& text) -> std::string {
        if (text == "auto") return {};
        std::string copy = text;
        return number(copy);
      },
      fmt::format("auto|NUMBER>={}", lo));
}

CLI::Validator one_of(std::vector<std::string> choices) {
  const std::string desc = "{" + yaml::join(choices, ",") + "}";
  return CLI::Validator(
      [choices](std::string& text) -> std::string {
        for (const auto& c : choices)
          if (c == text) return {};
        const std::string near = yaml::did_you_mean(text, choices);
        return "unknown value '" + text + "'" +
               (near.empty() ? "" : " (did you mean '" + near + "'?)") +
               "; expected one of: " + yaml::join(choices);
      },
      desc);
}

CLI::Validator shard() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto slash = text.find('/');
        const std::string want = "expected i/N with 0 <= i < N (got '" + text + "')";
        if (slash == std::string::npos) return want;
        if (!check_whole(text.substr(0, slash), 0, 1 << 30).empty() ||
            !check_whole(text.substr(slash + 1), 1, 1 << 30).empty())
          return want;
        const auto [i, n] = parse_shard(text);
        return i < n ? std::string() : want;
      },
      "i/N");
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  return {std::atoi(text.substr(0, slash).c_str()), std::atoi(text.substr(slash + 1).c_str())};
}

int max_jobs() {
  return std::max(4, 4 * all_cores());
}

int optional_count(const CLI::Option& opt, int when_bare) {
  if (opt.count() == 0) return 0;
  if (opt.results().empty() || opt.results().front().empty()) return when_bare;
  const std::string& n = opt.results().front();
  const std::string flag = opt.get_lnames().empty() ? "" : "--" + opt.get_lnames().front();
  int value = 0;
  try {
    size_t used = 0;
    value = std::stoi(n, &used);
    if (used != n.size()) throw std::invalid_argument(n);
  } catch (const std::exception&) {
    throw flag_error(flag, "expected a count, got '" + n + "'");
  }
  if (value < 1 || value > 100000) throw flag_error(flag, "must be in 1..100000, got " + n);
  return value;
}

}  // namespace ovs::flags
