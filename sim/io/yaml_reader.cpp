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

Value::Value(std::shared_ptr<const std::string> file, const FastDoc* doc, const FastNode* node)
    : file_(std::move(file)), line_(static_cast<int>(node->line)), doc_(doc), fast_(node) {}

Value Value::child(const FastNode& n, std::string_view key) const {
  Value v(file_, doc_, &n);
  if (doc_->track_paths)
    v.path_ = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  return v;
}

const YAML::Node& Value::raw() const {
  if (fast_) throw NotFastReadable();
  return node_;
}

void Value::fail(const std::string& message) const {
  throw InputError(*file_, line_, path_, message);
}

std::string Value::str() const {
  if (!is_scalar()) fail("expected a text value");
  std::string s(text());
  if (s.empty()) fail("must not be empty");
  return s;
}

std::string Value::scalar() const {
  return is_scalar() ? std::string(text()) : std::string();
}

double Value::number(NumberRange r) const {
  if (!is_scalar()) fail("expected a number");
  const std::string_view s = text();  // NUL-terminated
  const auto got = [&] { return "got '" + std::string(s) + "'"; };
  // Spelled-out NaN and infinity (strtod would take "nan" and "inf"): any letter n or i.
  if (s.find_first_of("nNiI") != std::string_view::npos) {
    std::string lower;
    for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* special : {".nan", ".inf", "-.inf", "+.inf", "nan", "inf", "-inf", "+inf"})
      if (lower == special) fail("must be a finite number, " + got());
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.data(), &end);
  if (s.empty() || end == s.data() || *end != '\0' || errno == ERANGE)
    fail("expected a number, " + got());
  if (!std::isfinite(v)) fail("must be a finite number, " + got());
  if (r.min_exclusive ? !(v > r.min) : !(v >= r.min)) {
    std::ostringstream lim;
    lim << (r.min_exclusive ? "must be > " : "must be >= ") << r.min << ", got " << s;
    fail(lim.str());
  }
  if (v > r.max) {
    std::ostringstream lim;
    lim << "must be <= " << r.max << ", got " << s;
    fail(lim.str());
  }
  return v;
}

long long Value::integer(long long min, long long max) const {
  if (!is_scalar()) fail("expected an integer");
  const std::string_view s = text();  // NUL-terminated
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.data(), &end, 10);
  if (s.empty() || end == s.data() || *end != '\0' || errno == ERANGE)
    fail("expected an integer, got '" + std::string(s) + "'");
  if (v < min || v > max)
    fail("must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
         std::string(s));
  return v;
}

bool Value::boolean() const {
  if (!is_scalar()) fail("expected true or false");
  const std::string_view s = text();
  if (s == "true" || s == "True" || s == "yes") return true;
  if (s == "false" || s == "False" || s == "no") return false;
  fail("expected true or false, got '" + std::string(s) + "'");
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
  if (is_null()) return {};
  if (!is_seq()) fail("expected a list");
  std::vector<Value> out;
  if (fast_) {
    out.reserve(fast_->size);
    for (std::uint32_t i = 0; i < fast_->size; ++i) {
      out.push_back(Value(file_, doc_, &doc_->item(*fast_, i)));
      if (doc_->track_paths) out.back().path_ = path_ + "[" + std::to_string(i) + "]";
    }
    return out;
  }
  out.reserve(node_.size());
  size_t i = 0;
  for (const auto& item : node_) {
    out.emplace_back(file_, item, path_ + "[" + std::to_string(i) + "]", node_line(item, line_));
    ++i;
  }
  return out;
}

std::optional<Value> Value::find(std::string_view key) const {
  if (fast_) {
    if (fast_->kind != FastNode::map) return std::nullopt;
    for (std::uint32_t i = 0; i < fast_->size; ++i)
      if (doc_->text(doc_->key(*fast_, i)) == key) return child(doc_->value(*fast_, i), key);
    return std::nullopt;
  }
  if (!node_.IsMap()) return std::nullopt;
  const std::string k(key);
  const YAML::Node n = node_[k];
  if (!n) return std::nullopt;
  return Value(file_, n, path_.empty() ? k : path_ + "." + k, node_line(n, line_));
}

Map::Map(const Value& v, std::initializer_list<const char*> allowed) : self_(v) {
  check(allowed.begin(), allowed.size());
}
Map::Map(const Value& v, const std::vector<std::string>& allowed) : self_(v) {
  std::vector<const char*> names;
  names.reserve(allowed.size());
  for (const auto& a : allowed) names.push_back(a.c_str());
  check(names.data(), names.size());
}

std::string Map::path_of(std::string_view key) const {
  return self_.path().empty() ? std::string(key) : self_.path() + "." + std::string(key);
}

void Map::check(const char* const* allowed, size_t count) {
  if (!self_.is_map()) self_.fail("expected a map of keys");
  const auto is_allowed = [&](std::string_view key) {
    for (size_t i = 0; i < count; ++i)
      if ((key.empty() || key[0] == allowed[i][0]) && key == allowed[i]) return true;
    return false;
  };
  const auto unknown = [&](std::string_view key, int line) {
    const std::vector<std::string> all(allowed, allowed + count);
    const std::string near = did_you_mean(std::string(key), all);
    throw InputError(self_.file(), line, path_of(key),
                     "unknown key" +
                         (near.empty() ? std::string() : " (did you mean '" + near + "'?)") +
                         "; allowed: " + join(all));
  };
  if (self_.fast_) {
    const FastDoc& d = *self_.doc_;
    const FastNode& n = *self_.fast_;
    for (std::uint32_t i = 0; i < n.size; ++i) {
      const FastNode& k = d.key(n, i);
      const std::string_view key = d.text(k);
      for (std::uint32_t j = 0; j < i; ++j)
        if (d.text(d.key(n, j)) == key)
          throw InputError(self_.file(), static_cast<int>(k.line), path_of(key), "duplicate key");
      if (!is_allowed(key)) unknown(key, static_cast<int>(k.line));
    }
    return;
  }
  std::vector<std::string> seen;
  for (const auto& kv : self_.raw()) {
    const std::string key = kv.first.Scalar();
    const int line = node_line(kv.first, self_.line());
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw InputError(self_.file(), line, path_of(key), "duplicate key");
    seen.push_back(key);
    if (!is_allowed(key)) unknown(key, line);
  }
}

bool Map::has(std::string_view key) const {
  if (self_.fast_) return self_.find(key).has_value();
  return static_cast<bool>(self_.raw()[std::string(key)]);
}

std::optional<Value> Map::optional(std::string_view key) const {
  if (self_.fast_) return self_.find(key);
  for (const auto& kv : self_.raw()) {
    if (kv.first.Scalar() != key) continue;
    return Value(self_.file_, kv.second, path_of(key),
                 node_line(kv.second, node_line(kv.first, self_.line())));
  }
  return std::nullopt;
}

Value Map::required(std::string_view key) const {
  auto v = optional(key);
  if (!v) throw InputError(self_.file(), self_.line(), path_of(key), "missing required field");
  if (v->is_null()) v->fail("must have a value");
  return *v;
}

std::vector<std::string> Map::keys() const {
  std::vector<std::string> out;
  if (self_.fast_) {
    for (std::uint32_t i = 0; i < self_.fast_->size; ++i)
      out.emplace_back(self_.doc_->text(self_.doc_->key(*self_.fast_, i)));
    return out;
  }
  for (const auto& kv : self_.raw()) out.push_back(kv.first.Scalar());
  return out;
}

size_t Map::size() const {
  if (self_.fast_) return self_.fast_->size;
  return self_.raw().size();
}

std::string Map::key(size_t i) const {
  if (self_.fast_)
    return std::string(
        self_.doc_->text(self_.doc_->key(*self_.fast_, static_cast<std::uint32_t>(i))));
  size_t j = 0;
  for (const auto& kv : self_.raw())
    if (j++ == i) return kv.first.Scalar();
  return {};
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

std::string read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, 0, "", "no such file");
  if (fs::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, expected a YAML file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  return std::move(buf).str();
}

Value load_file(const std::string& path) {
  return load_string(read_file(path), path);
}

}  // namespace ovs::yaml
