#include "sim/io/yaml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace ovs::yaml {
namespace {

int node_line(const YAML::Node& n, int fallback) {
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : fallback;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // A word that is the start of exactly one candidate ("tokens" for "tokens_per_gpu").
  if (best.empty() && word.size() >= 3) {
    for (const auto& c : candidates) {
      if (c.compare(0, word.size(), word) != 0) continue;
      if (!best.empty()) return {};
      best = c;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

Value::Value(std::shared_ptr<const std::string> file, YAML::Node node, std::string path, int line)
    : file_(std::move(file)), node_(std::move(node)), path_(std::move(path)), line_(line) {}

void Value::fail(const std::string& message) const {
  throw InputError(*file_, line_, path_, message);
}

std::string Value::str() const {
  if (!node_.IsScalar()) fail("expected a text value");
  const std::string s = node_.Scalar();
  if (s.empty()) fail("must not be empty");
  return s;
}

double Value::number(NumberRange r) const {
  if (!node_.IsScalar()) fail("expected a number");
  const std::string& s = node_.Scalar();
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* special : {".nan", ".inf", "-.inf", "+.inf", "nan", "inf", "-inf", "+inf"})
    if (lower == special) fail("must be a finite number, got '" + s + "'");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0' || errno == ERANGE)
    fail("expected a number, got '" + s + "'");
  if (!std::isfinite(v)) fail("must be a finite number, got '" + s + "'");
  std::ostringstream lim;
  if (r.min_exclusive ? !(v > r.min) : !(v >= r.min)) {
    lim << (r.min_exclusive ? "must be > " : "must be >= ") << r.min << ", got " << s;
    fail(lim.str());
  }
  if (v > r.max) {
    lim << "must be <= " << r.max << ", got " << s;
    fail(lim.str());
  }
  return v;
}

long long Value::integer(long long min, long long max) const {
  if (!node_.IsScalar()) fail("expected an integer");
  const std::string& s = node_.Scalar();
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end == s.c_str() || *end != '\0' || errno == ERANGE)
    fail("expected an integer, got '" + s + "'");
  if (v < min || v > max)
    fail("must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + s);
  return v;
}

bool Value::boolean() const {
  if (!node_.IsScalar()) fail("expected true or false");
  const std::string& s = node_.Scalar();
  if (s == "true" || s == "True" || s == "yes") return true;
  if (s == "false" || s == "False" || s == "no") return false;
  fail("expected true or false, got '" + s + "'");
}

std::string Value::choice(std::initializer_list<const char*> choices) const {
  const std::string s = str();
  std::vector<std::string> all(choices.begin(), choices.end());
  if (std::find(all.begin(), all.end(), s) != all.end()) return s;
  const std::string near = did_you_mean(s, all);
  fail("unknown value '" + s + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
       "; expected one of: " + join(all));
}

std::vector<Value> Value::items() const {
  if (node_.IsNull()) return {};
  if (!node_.IsSequence()) fail("expected a list");
  std::vector<Value> out;
  out.reserve(node_.size());
  size_t i = 0;
  for (const auto& item : node_) {
    out.emplace_back(file_, item, path_ + "[" + std::to_string(i) + "]", node_line(item, line_));
    ++i;
  }
  return out;
}

Map::Map(const Value& v, std::initializer_list<const char*> allowed) : self_(v) {
  check(std::vector<std::string>(allowed.begin(), allowed.end()));
}
Map::Map(const Value& v, const std::vector<std::string>& allowed) : self_(v) {
  check(allowed);
}

void Map::check(const std::vector<std::string>& allowed) {
  if (!self_.raw().IsMap()) self_.fail("expected a map of keys");
  std::vector<std::string> seen;
  for (const auto& kv : self_.raw()) {
    const std::string key = kv.first.Scalar();
    const int line = node_line(kv.first, self_.line());
    const std::string path = self_.path().empty() ? key : self_.path() + "." + key;
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw InputError(self_.file(), line, path, "duplicate key");
    seen.push_back(key);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string near = did_you_mean(key, allowed);
      throw InputError(self_.file(), line, path,
                       "unknown key" +
                           (near.empty() ? std::string() : " (did you mean '" + near + "'?)") +
                           "; allowed: " + join(allowed));
    }
  }
}

bool Map::has(const std::string& key) const {
  return static_cast<bool>(self_.raw()[key]);
}

std::optional<Value> Map::optional(const std::string& key) const {
  for (const auto& kv : self_.raw()) {
    if (kv.first.Scalar() != key) continue;
    const std::string path = self_.path().empty() ? key : self_.path() + "." + key;
    return Value(std::make_shared<const std::string>(self_.file()), kv.second, path,
                 node_line(kv.second, node_line(kv.first, self_.line())));
  }
  return std::nullopt;
}

Value Map::required(const std::string& key) const {
  auto v = optional(key);
  if (!v) {
    const std::string path = self_.path().empty() ? key : self_.path() + "." + key;
    throw InputError(self_.file(), self_.line(), path, "missing required field");
  }
  if (v->is_null()) v->fail("must have a value");
  return *v;
}

std::vector<std::string> Map::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : self_.raw()) out.push_back(kv.first.Scalar());
  return out;
}

Value load_string(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(name, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
  if (!root || root.IsNull()) throw InputError(name, 1, "", "empty document");
  return Value(std::make_shared<const std::string>(name), root, "", 1);
}

Value load_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, 0, "", "no such file");
  if (fs::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, expected a YAML file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  return load_string(buf.str(), path);
}

}  // namespace ovs::yaml
