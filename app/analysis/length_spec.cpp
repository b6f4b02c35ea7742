#include "app/analysis/length_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

namespace ovs {

namespace {

constexpr double kMaxLength = 1e9;            // tokens in one request: far beyond any context
constexpr std::int64_t kMaxDraws = 10000000;  // requests in one batch

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t end = std::min(s.find(sep, at), s.size());
    out.push_back(trim(s.substr(at, end - at)));
    at = end + 1;
  }
  return out;
}

// A whole length >= 1, or an error naming the item.
std::string length_of(const std::string& item, std::int64_t& out) {
  const auto v = number_of(item);
  if (!v || *v < 1 || *v != std::floor(*v) || *v > kMaxLength)
    return fmt::format("'{}' is not a whole length >= 1", item);
  out = static_cast<std::int64_t>(*v);
  return {};
}

std::string read_csv(const std::string& path, std::istream& in, std::vector<std::int64_t>& out) {
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    for (const auto& item : split(t, ',')) {
      if (item.empty()) continue;
      std::int64_t v = 0;
      const std::string e = length_of(item, v);
      if (!e.empty()) {
        // A header line of text before any length is skipped.
        if (out.empty() && !number_of(item)) break;
        return fmt::format("{}:{}: {}", path, n, e);
      }
      out.push_back(v);
    }
  }
  return {};
}

std::string read_json(const std::string& path, std::istream& in, std::vector<std::int64_t>& out) {
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    return fmt::format("{}: not valid JSON ({})", path, e.what());
  }
  if (j.is_object() && j.contains("lengths")) j = j["lengths"];
  if (!j.is_array())
    return fmt::format("{}: expected an array of lengths or {{\"lengths\": [...]}}", path);
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number()) return fmt::format("{}: element {} is not a number", path, i);
    std::int64_t v = 0;
    const std::string e = length_of(fmt::format("{}", j[i].get<double>()), v);
    if (!e.empty()) return fmt::format("{}: element {}: {}", path, i, e);
    out.push_back(v);
  }
  return {};
}

std::string read_file(const std::string& path, std::vector<std::int64_t>& out) {
  std::ifstream in(path);
  if (!in) return fmt::format("cannot read '{}'", path);
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  const std::string e = json ? read_json(path, in, out) : read_csv(path, in, out);
  if (!e.empty()) return e;
  if (out.empty()) return fmt::format("'{}' holds no lengths", path);
  return {};
}

// Two numbers after "name:", or an error.
std::string two(const std::string& name, const std::string& args, double& a, double& b) {
  const auto parts = split(args, ',');
  const auto x = parts.size() == 2 ? number_of(parts[0]) : std::nullopt;
  const auto y = parts.size() == 2 ? number_of(parts[1]) : std::nullopt;
  const char* usage = name == "uniform" ? "A,B" : "MEAN,SD";
  if (!x || !y)
    return fmt::format("{} takes two numbers: {}:{}, got '{}'", name, name, usage, args);
  a = *x;
  b = *y;
  return {};
}

// Uniform in [0, 1) from the top 53 bits: the same on every platform.
double unit(std::mt19937_64& g) {
  return double(g() >> 11) * (1.0 / 9007199254740992.0);
}

// A standard normal by Box-Muller (one of the pair).
double std_normal(std::mt19937_64& g) {
  const double u1 = 1.0 - unit(g);  // (0, 1]
  const double u2 = unit(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

std::int64_t clamp_length(double x) {
  return static_cast<std::int64_t>(std::clamp(std::round(x), 1.0, kMaxLength));
}

std::int64_t draw_one(const LengthSpec& s, std::mt19937_64& g, std::int64_t index) {
  switch (s.kind) {
    case LengthSpec::Kind::list:
      return s.values[static_cast<size_t>(index) % s.values.size()];
    case LengthSpec::Kind::fixed:
      return s.values.front();
    case LengthSpec::Kind::file:
      return s.values[static_cast<size_t>(unit(g) * double(s.values.size()))];
    case LengthSpec::Kind::uniform: {
      const auto lo = static_cast<std::int64_t>(s.a), hi = static_cast<std::int64_t>(s.b);
      return lo + static_cast<std::int64_t>(unit(g) * double(hi - lo + 1));
    }
    case LengthSpec::Kind::normal:
      return clamp_length(s.a + s.b * std_normal(g));
    case LengthSpec::Kind::lognormal: {
      const double sigma2 = std::log(1.0 + (s.b * s.b) / (s.a * s.a));
      const double mu = std::log(s.a) - sigma2 / 2;
      return clamp_length(std::exp(mu + std::sqrt(sigma2) * std_normal(g)));
    }
  }
  return 1;
}

}  // namespace

std::optional<double> number_of(const std::string& s) {
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string parse_length_spec_into(const std::string& text, bool list_allowed, LengthSpec& out) {
  out = LengthSpec{};
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    for (const auto& item : split(text, ',')) {
      std::int64_t v = 0;
      const std::string e = length_of(item, v);
      if (!e.empty())
        return fmt::format(
            "{} in '{}' (expected lengths separated by commas, fixed:N, uniform:A,B, "
            "normal:MEAN,SD, lognormal:MEAN,SD or file:PATH)",
            e, text);
      out.values.push_back(v);
    }
    if (!list_allowed) {
      if (out.values.size() != 1)
        return fmt::format("expected one length or a distribution, got the list '{}'", text);
      out.kind = LengthSpec::Kind::fixed;
    }
    return {};
  }
  const std::string name = text.substr(0, colon), args = text.substr(colon + 1);
  if (name == "fixed") {
    out.kind = LengthSpec::Kind::fixed;
    std::int64_t v = 0;
    const std::string e = length_of(trim(args), v);
    if (!e.empty()) return "fixed:N: " + e;
    out.values = {v};
    return {};
  }
  if (name == "file") {
    out.kind = LengthSpec::Kind::file;
    return read_file(args, out.values);
  }
  if (name == "uniform") {
    out.kind = LengthSpec::Kind::uniform;
    if (auto e = two(name, args, out.a, out.b); !e.empty()) return e;
    if (out.a < 1 || out.a != std::floor(out.a) || out.b != std::floor(out.b) || out.b < out.a ||
        out.b > kMaxLength)
      return fmt::format("uniform:A,B takes whole lengths 1 <= A <= B, got '{}'", args);
    return {};
  }
  if (name == "normal" || name == "lognormal") {
    out.kind = name == "normal" ? LengthSpec::Kind::normal : LengthSpec::Kind::lognormal;
    if (auto e = two(name, args, out.a, out.b); !e.empty()) return e;
    if (!(out.a >= 1 && out.a <= kMaxLength) || !(out.b >= 0 && out.b <= kMaxLength))
      return fmt::format("{}:MEAN,SD takes a mean >= 1 and an SD >= 0, got '{}'", name, args);
    return {};
  }
  return fmt::format("unknown length distribution '{}' (fixed, uniform, normal, lognormal or file)",
                     name);
}

std::vector<std::int64_t> draw_lengths(const LengthSpec& spec, std::int64_t count,
                                       std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::int64_t> out;
  out.reserve(static_cast<size_t>(std::clamp<std::int64_t>(count, 0, kMaxDraws)));
  for (std::int64_t i = 0; i < count && i < kMaxDraws; ++i) out.push_back(draw_one(spec, g, i));
  return out;
}

std::vector<std::int64_t> fill_tokens(const LengthSpec& spec, std::int64_t total_tokens,
                                      std::uint64_t seed, std::int64_t* longest_drawn) {
  std::mt19937_64 g(seed);
  std::vector<std::int64_t> out;
  std::int64_t sum = 0;
  if (longest_drawn) *longest_drawn = 0;
  for (std::int64_t i = 0; sum < total_tokens && i < kMaxDraws; ++i) {
    const std::int64_t drawn = draw_one(spec, g, i);
    if (longest_drawn) *longest_drawn = std::max(*longest_drawn, drawn);
    const std::int64_t len = std::min(drawn, total_tokens - sum);
    out.push_back(len);
    sum += len;
  }
  return out;
}

std::vector<std::int64_t> contexts_over_life(const LengthSpec& isl, const LengthSpec* osl,
                                             std::int64_t count, std::uint64_t seed) {
  std::vector<std::int64_t> out = draw_lengths(isl, count, seed);
  if (!osl) return out;
  const std::vector<std::int64_t> outputs = draw_lengths(*osl, count, seed + 1);
  std::mt19937_64 g(seed + 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] += static_cast<std::int64_t>(unit(g) * double(outputs[i]));
  return out;
}

}  // namespace ovs
