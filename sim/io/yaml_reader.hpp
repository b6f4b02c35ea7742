#pragma once
// Strict YAML reading for every loader: each value knows its file, line and field path, so a
// bad input becomes one InputError line ("file:12: field 'program[3].launch.stream': ...").
// Unknown keys are errors (with "did you mean"), duplicate keys are errors, numbers are checked
// for NaN, infinity, sign and range; nothing falls back to a silent default.
//
// A value is a yaml-cpp node, or a node of a FastDoc (yaml_fast.hpp) for loaders that read large
// files: those carry no path or line, so a loader that reads one must catch any error and read
// the text again with yaml-cpp to report it (see load_program).
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/io/yaml_fast.hpp"

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
  // A node of `doc`, which must outlive the value (path empty, line of the node).
  Value(std::shared_ptr<const std::string> file, const FastDoc* doc, const FastNode* node);

  const std::string& file() const { return *file_; }
  const std::string& path() const { return path_; }
  int line() const { return line_; }
  // The yaml-cpp node; throws NotFastReadable for a FastDoc value.
  const YAML::Node& raw() const;

  [[noreturn]] void fail(const std::string& message) const;

  bool is_map() const { return fast_ ? fast_->kind == FastNode::map : node_.IsMap(); }
  bool is_seq() const { return fast_ ? fast_->kind == FastNode::seq : node_.IsSequence(); }
  bool is_scalar() const { return fast_ ? fast_->kind == FastNode::scalar : node_.IsScalar(); }
  bool is_null() const { return fast_ ? fast_->kind == FastNode::null : node_.IsNull(); }

  std::string str() const;  // a non-empty scalar
  double number(NumberRange r = kNonNegative) const;
  long long integer(long long min = 0, long long max = std::numeric_limits<long long>::max()) const;
  bool boolean() const;
  // One of `choices`; the error lists them.
  std::string choice(std::initializer_list<const char*> choices) const;
  std::vector<Value> items() const;  // a sequence (an empty list is allowed)
  // The text of a scalar (may be empty); empty for anything else.
  std::string scalar() const;
  // Without any check: the value of the first entry `key` when this is a map.
  std::optional<Value> find(std::string_view key) const;
  bool from_fast_doc() const { return fast_ != nullptr; }

 private:
  friend class Map;
  // The scalar's text, NUL-terminated (is_scalar() must hold).
  std::string_view text() const {
    return fast_ ? doc_->text(*fast_) : std::string_view(node_.Scalar());
  }
  Value child(const FastNode& n, std::string_view key) const;

  std::shared_ptr<const std::string> file_;
  YAML::Node node_;
  std::string path_;
  int line_;
  const FastDoc* doc_ = nullptr;
  const FastNode* fast_ = nullptr;
};

// A map whose keys must all be among `allowed`.
class Map {
 public:
  Map(const Value& v, std::initializer_list<const char*> allowed);
  Map(const Value& v, const std::vector<std::string>& allowed);

  bool has(std::string_view key) const;
  Value required(std::string_view key) const;
  std::optional<Value> optional(std::string_view key) const;
  const Value& self() const { return self_; }
  // Keys in document order.
  std::vector<std::string> keys() const;
  size_t size() const;
  std::string key(size_t i) const;  // the i-th key in document order

 private:
  void check(const char* const* allowed, size_t count);
  std::string path_of(std::string_view key) const;
  Value self_;
};

// Parses YAML text; `name` is the file named in errors (malformed YAML, empty: InputError).
Value load_string(const std::string& text, const std::string& name);
// Reads a file (missing file, directory, unreadable, malformed YAML: InputError).
Value load_file(const std::string& path);
// The text of a file (missing file, directory, unreadable: InputError).
std::string read_file(const std::string& path);

// Reads the file at `path` and gives `parse` its root: through FastDoc (paths and lines as
// yaml-cpp gives them) when the text is in its subset, and otherwise - or after any error at all -
// through yaml-cpp, so the result and every error are exactly yaml-cpp's. `parse` must not depend
// on anything but the value (it may run twice).
template <class Parse>
auto parse_file(const std::string& path, Parse&& parse)
    -> decltype(parse(std::declval<const Value&>())) {
  const std::string text = read_file(path);
  if (auto doc = FastDoc::parse(text)) {
    doc->track_paths = true;
    try {
      return parse(Value(std::make_shared<const std::string>(path), doc.get(), &doc->root()));
    } catch (...) {  // not readable without yaml-cpp, or bad input: read again below
    }
  }
  return parse(load_string(text, path));
}

// Closest candidate within a small edit distance, or empty.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& words, const char* sep = ", ");

}  // namespace ovs::yaml
