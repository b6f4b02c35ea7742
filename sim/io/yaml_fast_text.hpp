#pragma once
// The characters and scalars of the fast YAML reader (yaml_fast.cpp): which bytes it accepts at
// all, what ends a plain scalar, what yaml-cpp would read as null, and quoted scalars with the
// escapes JSON has. Anything else is left to yaml-cpp.
#include <cstdint>
#include <string>
#include <string_view>

namespace ovs::yaml::fast_text {

inline bool space_or_end(char c) {
  return c == ' ' || c == '\n' || c == '\0';
}
inline bool flow_indicator(char c) {
  return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

// Character classes: one table lookup per character on the hot paths.
enum : std::uint8_t {
  kIndicator = 1,  // starts something other than a plain scalar: &*!|>%@`#,[]{}"'
  kFlowStop = 2,   // may end a plain scalar in a flow collection: ,[]{}:#? newline end
  kBlockStop = 4,  // may end a plain scalar on a block line: :# newline end
  kKeyBad = 8,     // not in a plain key we read: ,[]{}#&*!|>'"%@`?
  kText = 16,      // printable ASCII
};
struct CharTable {
  std::uint8_t c[256] = {};
  constexpr CharTable() {
    for (int i = 0x20; i < 0x7f; ++i) c[i] |= kText;
    mark("&*!|>%@`#,[]{}\"'", kIndicator);
    mark(",[]{}:#?\n", kFlowStop);
    mark(":#\n", kBlockStop);
    mark(",[]{}#&*!|>'\"%@`?", kKeyBad);
    c[0] |= kFlowStop | kBlockStop;
  }
  constexpr void mark(const char* p, std::uint8_t cls) {
    for (; *p; ++p) c[static_cast<unsigned char>(*p)] |= cls;
  }
  bool is(char ch, std::uint8_t cls) const {
    return (c[static_cast<unsigned char>(ch)] & cls) != 0;
  }
};
inline constexpr CharTable kChars;

// Plain scalars that yaml-cpp reads as null.
inline bool null_word(std::string_view t) {
  return t == "~" || t == "null" || t == "Null" || t == "NULL";
}

// Whether a plain scalar cannot start with c (followed by next): anchors, aliases, tags, block
// scalars, directives, reserved characters, flow indicators, quotes, "- ", "? ", ":".
inline bool bad_plain_start(char c, char next) {
  if (kChars.is(c, kIndicator)) return true;
  if (c == '-' && space_or_end(next)) return true;
  return c == '?' || c == ':';
}

// Every byte printable ASCII, a newline or well-formed UTF-8 (yaml-cpp replaces bad UTF-8); no
// tabs, carriage returns or NULs, no byte-order mark, no Unicode line breaks.
bool plain_text(std::string_view s);

// A quoted scalar starting at s[pos] (the opening quote), appended to `out` unquoted; pos ends
// after the closing quote. False when it is outside the subset: over several lines, or (double
// quotes) an escape other than \" \\ \/ \b \f \n \r \t \uXXXX (not NUL, not a surrogate).
bool read_double_quoted(std::string_view s, size_t& pos, std::string& out);
bool read_single_quoted(std::string_view s, size_t& pos, std::string& out);

}  // namespace ovs::yaml::fast_text
