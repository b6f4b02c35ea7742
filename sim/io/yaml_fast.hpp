#pragma once
// A fast reader for the plain YAML that programs are written in: block maps and lists, flow
// maps and lists (over several lines too), plain, single- and double-quoted scalars (JSON
// escapes), comments. It reads a large program some 50x faster than yaml-cpp.
//
// It is a shortcut, never a judge: whatever it does not read exactly as yaml-cpp would - anchors,
// tags, block scalars, multi-line plain scalars, document markers, tabs, quoted keys, unusual
// escapes, anything malformed - makes parse() return null, and the caller reads the text with
// yaml-cpp instead (which also gives the located error for bad input).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ovs::yaml {

struct FastNode {
  enum Kind : std::uint8_t { null, scalar, seq, map };
  Kind kind = null;
  std::uint32_t line = 0;   // 1-based
  std::uint32_t begin = 0;  // scalar: offset of its text in the arena; seq, map: first child
  std::uint32_t size = 0;   // scalar: text length; seq: items; map: entries
};

class FastDoc {
 public:
  // Null when the text uses YAML outside the subset (or is not valid YAML).
  static std::unique_ptr<FastDoc> parse(std::string_view text);

  const FastNode& root() const { return nodes_[0]; }
  // A scalar's text; NUL-terminated in the arena.
  std::string_view text(const FastNode& n) const {
    return std::string_view(arena_.data() + n.begin, n.size);
  }
  const char* c_str(const FastNode& n) const { return arena_.data() + n.begin; }
  // Item i of a list; key i and value i of a map.
  const FastNode& item(const FastNode& n, std::uint32_t i) const {
    return nodes_[kids_[n.begin + i]];
  }
  const FastNode& key(const FastNode& n, std::uint32_t i) const {
    return nodes_[kids_[n.begin + 2 * i]];
  }
  const FastNode& value(const FastNode& n, std::uint32_t i) const {
    return nodes_[kids_[n.begin + 2 * i + 1]];
  }

  // Values read from this document carry their path ("a.b[2].c") as yaml-cpp values do. Off for
  // large programs, whose errors are located by a second read with yaml-cpp anyway.
  bool track_paths = false;

 private:
  friend class FastParser;
  std::vector<FastNode> nodes_;
  std::vector<std::uint32_t> kids_;
  std::string arena_;
};

// Thrown when code asks a value read by FastDoc for something only yaml-cpp has (its raw node):
// the caller catches it and reads the text with yaml-cpp instead.
struct NotFastReadable : std::runtime_error {
  NotFastReadable() : std::runtime_error("not readable without yaml-cpp") {}
};

}  // namespace ovs::yaml
