#pragma once
// Strict YAML reading for every loader: each value knows its file, line and field path, so a
// bad input becomes one InputError line ("file:12: field 'program[3].launch.stream': ...").
// Unknown keys are errors (with "did you mean"), duplicate keys are errors, numbers are checked
// for NaN, infinity, sign and range; nothing falls back to a silent default.
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ovs::yaml {

struct NumberRange {
  double min = 0;  // inclusive
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  // "must be > min"
};
inline constexpr NumberRange kNonNegative{0, std::numeric_limits<double>::infinity(), false};
inline constexpr NumberRange kPositive{0, std::numeric_limits<double>::infinity(), true};
inline constexpr NumberRange kFraction{0, 1, true};  // (0, 1]

class Value {
 public:
  Value(std::shared_ptr<const std::string> file, YAML::Node node, std::string path, int line);

  const std::string& file() const { return *file_; }
  const std::string& path() const { return path_; }
  int line() const { return line_; }
  const YAML::Node& raw() const { return node_; }

  [[noreturn]] void fail(const std::string& message) const;

  bool is_map() const { return node_.IsMap(); }
  bool is_seq() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return node_.IsNull(); }

  std::string str() const;  // a non-empty scalar
  double number(NumberRange r = kNonNegative) const;
  long long integer(long long min = 0, long long max = std::numeric_limits<long long>::max()) const;
  bool boolean() const;
  // One of `choices`; the error lists them.
  std::string choice(std::initializer_list<const char*> choices) const;
  std::vector<Value> items() const;  // a sequence (an empty list is allowed)

 private:
  std::shared_ptr<const std::string> file_;
  YAML::Node node_;
  std::string path_;
  int line_;
};

// A map whose keys must all be among `allowed`.
class Map {
 public:
  Map(const Value& v, std::initializer_list<const char*> allowed);
  Map(const Value& v, const std::vector<std::string>& allowed);

  bool has(const std::string& key) const;
  Value required(const std::string& key) const;
  std::optional<Value> optional(const std::string& key) const;
  const Value& self() const { return self_; }
  // Keys in document order.
  std::vector<std::string> keys() const;

 private:
  void check(const std::vector<std::string>& allowed);
  Value self_;
};

// Reads a file (missing file, directory, unreadable, malformed YAML: InputError).
Value load_file(const std::string& path);
Value load_string(const std::string& text, const std::string& name);

// Closest candidate within a small edit distance, or empty.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& words, const char* sep = ", ");

}  // namespace ovs::yaml
