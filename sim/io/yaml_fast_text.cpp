#include "sim/io/yaml_fast_text.hpp"

namespace ovs::yaml::fast_text {
namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

int hex_digit(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

}  // namespace

bool plain_text(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (kChars.is(s[i], kText) || c == '\n') {
      ++i;
      continue;
    }
    if (c < 0x80) return false;  // other control characters, DEL
    const int len = c >= 0xf0 && c < 0xf5   ? 4
                    : c >= 0xe0 && c < 0xf0 ? 3
                    : c >= 0xc2 && c < 0xe0 ? 2
                                            : 0;
    if (len == 0 || i + static_cast<size_t>(len) > s.size()) return false;
    std::uint32_t cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (int k = 1; k < len; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    if (cp == 0x85 || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff) return false;
    i += static_cast<size_t>(len);
  }
  return true;
}

bool read_double_quoted(std::string_view s, size_t& pos, std::string& out) {
  size_t p = pos + 1;
  while (true) {
    size_t run = p;  // characters that stand for themselves, appended at once
    while (run < s.size() && s[run] != '"' && s[run] != '\\' && s[run] != '\n') ++run;
    out.append(s.data() + p, run - p);
    p = run;
    if (p >= s.size() || s[p] == '\n') return false;
    if (s[p++] == '"') break;
    if (p >= s.size()) return false;
    const char e = s[p++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out.push_back(e);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        std::uint32_t cp = 0;
        for (int k = 0; k < 4; ++k) {
          const int h = p < s.size() ? hex_digit(s[p]) : -1;
          if (h < 0) return false;
          cp = (cp << 4) | static_cast<std::uint32_t>(h);
          ++p;
        }
        if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        append_utf8(out, cp);
        break;
      }
      default:
        return false;
    }
  }
  pos = p;
  return true;
}

bool read_single_quoted(std::string_view s, size_t& pos, std::string& out) {
  size_t p = pos + 1;
  while (true) {
    if (p >= s.size() || s[p] == '\n') return false;
    const char c = s[p++];
    if (c == '\'') {
      if (p >= s.size() || s[p] != '\'') break;
      ++p;
    }
    out.push_back(c);
  }
  pos = p;
  return true;
}

}  // namespace ovs::yaml::fast_text
