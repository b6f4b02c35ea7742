#include "sim/io/yaml_fast.hpp"

#include "sim/io/yaml_fast_text.hpp"

namespace ovs::yaml {

namespace {
using namespace fast_text;

struct Unsupported {};  // outside the subset: the caller falls back to yaml-cpp

constexpr int kMaxDepth = 64;

}  // namespace

class FastParser {
 public:
  FastParser(std::string_view s, FastDoc& d) : s_(s), d_(d) {}

  void run() {
    if (!plain_text(s_)) throw Unsupported{};
    d_.nodes_.emplace_back();  // the root goes to index 0
    d_.arena_.reserve(s_.size() / 2);
    if (content_indent() != 0) throw Unsupported{};  // a map of keys at column 0, nothing else
    const std::uint32_t root = block_map(0, false);
    if (content_indent() >= 0) throw Unsupported{};
    d_.nodes_[0] = d_.nodes_[root];
  }

 private:
  char at(size_t p) const { return p < s_.size() ? s_[p] : '\0'; }
  char cur() const { return at(pos_); }

  void newline_at(size_t p) {  // s_[p] is '\n'
    pos_ = p + 1;
    ++line_;
    line_start_ = pos_;
  }

  // From the start of a line: skips blank and comment lines; returns the indent of the next line
  // with content (pos_ stays at its start), or -1 at the end of the text.
  int content_indent() {
    while (true) {
      size_t p = pos_;
      while (at(p) == ' ') ++p;
      const char c = at(p);
      if (c == '\0') {
        pos_ = s_.size();
        return -1;
      }
      if (c == '#') {
        while (at(p) != '\n' && at(p) != '\0') ++p;
        if (at(p) == '\0') {
          pos_ = s_.size();
          return -1;
        }
        newline_at(p);
        continue;
      }
      if (c == '\n') {
        newline_at(p);
        continue;
      }
      return static_cast<int>(p - pos_);
    }
  }

  // After a node on a line: spaces, an optional comment, then the end of the line.
  void end_line() {
    const size_t start = pos_;
    while (cur() == ' ') ++pos_;
    if (cur() == '#') {
      if (pos_ == start && pos_ > 0 && s_[pos_ - 1] != ' ') throw Unsupported{};
      while (cur() != '\n' && cur() != '\0') ++pos_;
    }
    if (cur() == '\0') return;
    if (cur() != '\n') throw Unsupported{};
    newline_at(pos_);
  }

  std::uint32_t add_node(FastNode::Kind kind, std::uint32_t begin, std::uint32_t size) {
    d_.nodes_.push_back(FastNode{kind, line_, begin, size});
    return static_cast<std::uint32_t>(d_.nodes_.size() - 1);
  }

  std::uint32_t add_scalar(std::string_view text) {
    const auto begin = static_cast<std::uint32_t>(d_.arena_.size());
    d_.arena_.append(text);
    d_.arena_.push_back('\0');
    return add_node(FastNode::scalar, begin, static_cast<std::uint32_t>(text.size()));
  }

  std::uint32_t add_plain(std::string_view text, bool key) {
    if (null_word(text)) {
      if (key) throw Unsupported{};
      return add_node(FastNode::null, 0, 0);
    }
    return add_scalar(text);
  }

  // A container being read: where its children start on stack_, and the line it starts on.
  struct OpenContainer {
    size_t mark;
    std::uint32_t line;
  };

  // A container starts here, one level deeper (at most kMaxDepth).
  OpenContainer open_container() {
    if (++depth_ > kMaxDepth) throw Unsupported{};
    return {stack_.size(), line_};
  }

  // The container `o` ends: its children, taken from the stack, become a node of `kind`.
  std::uint32_t close_container(FastNode::Kind kind, const OpenContainer& o) {
    --depth_;
    const auto begin = static_cast<std::uint32_t>(d_.kids_.size());
    d_.kids_.insert(d_.kids_.end(), stack_.begin() + static_cast<std::ptrdiff_t>(o.mark),
                    stack_.end());
    auto count = static_cast<std::uint32_t>(stack_.size() - o.mark);
    if (kind == FastNode::map) count /= 2;
    stack_.resize(o.mark);
    d_.nodes_.push_back(FastNode{kind, o.line, begin, count});
    return static_cast<std::uint32_t>(d_.nodes_.size() - 1);
  }

  // ---- block context -----------------------------------------------------------------------
  // A map whose keys start at column `indent`; `positioned`: pos_ is at its first key already.
  std::uint32_t block_map(int indent, bool positioned) {
    const OpenContainer container = open_container();
    while (true) {
      if (!positioned) {
        const int ind = content_indent();
        if (ind < indent) break;
        if (ind > indent) throw Unsupported{};
        pos_ += static_cast<size_t>(ind);
      }
      positioned = false;
      stack_.push_back(block_key());
      stack_.push_back(block_value(indent));
    }
    return close_container(FastNode::map, container);
  }

  // A list whose dashes are at column `indent`.
  std::uint32_t block_seq(int indent, bool positioned) {
    const OpenContainer container = open_container();
    while (true) {
      if (!positioned) {
        const int ind = content_indent();
        if (ind > indent) throw Unsupported{};
        if (ind < indent) break;
        const size_t p = pos_ + static_cast<size_t>(ind);
        if (!(at(p) == '-' && space_or_end(at(p + 1)))) break;  // the parent map's next key
        pos_ = p;
      }
      positioned = false;
      ++pos_;  // the dash
      while (cur() == ' ') ++pos_;
      const char c = cur();
      if (c == '\n' || c == '\0' || c == '#') {
        end_line();
        stack_.push_back(nested_block(indent, false));
      } else if (c == '-' && space_or_end(at(pos_ + 1))) {
        throw Unsupported{};  // "- - x"
      } else if (line_has_key()) {
        stack_.push_back(block_map(static_cast<int>(pos_ - line_start_), true));
      } else {
        stack_.push_back(node_here(indent, false));
        end_line();
      }
    }
    return close_container(FastNode::seq, container);
  }

  // The node on the lines after "key:" or "-" alone: deeper than `indent` (a list may also sit
  // at the indent of its key when `same_indent_list`), or null.
  std::uint32_t nested_block(int indent, bool same_indent_list) {
    const std::uint32_t line = line_;
    const int ind = content_indent();
    if (ind >= 0) {
      const size_t p = pos_ + static_cast<size_t>(ind);
      const bool dash = at(p) == '-' && space_or_end(at(p + 1));
      if (ind > indent || (same_indent_list && ind == indent && dash)) {
        pos_ = p;
        return dash ? block_seq(ind, true) : block_map(ind, true);
      }
    }
    FastNode n{FastNode::null, line, 0, 0};
    d_.nodes_.push_back(n);
    return static_cast<std::uint32_t>(d_.nodes_.size() - 1);
  }

  // Whether the rest of the line is "key: ..." (a plain key, then a colon and a space or the end).
  bool line_has_key() const {
    const char c = cur();
    if (c == '{' || c == '[' || c == '"' || c == '\'') return false;
    for (size_t p = pos_; at(p) != '\n' && at(p) != '\0'; ++p) {
      if (at(p) == '#' && p > pos_ && at(p - 1) == ' ') return false;
      if (at(p) == ':' && space_or_end(at(p + 1))) return true;
    }
    return false;
  }

  // "key:" at pos_; leaves pos_ after the colon.
  std::uint32_t block_key() {
    if (bad_plain_start(cur(), at(pos_ + 1))) throw Unsupported{};
    size_t p = pos_;
    while (true) {
      const char c = at(p);
      if (c == '\n' || c == '\0') throw Unsupported{};
      if (c == ':') {
        if (space_or_end(at(p + 1))) break;
        throw Unsupported{};
      }
      if (kChars.is(c, kKeyBad)) throw Unsupported{};
      ++p;
    }
    const std::string_view key = s_.substr(pos_, p - pos_);
    if (key.empty() || key.back() == ' ') throw Unsupported{};
    const std::uint32_t n = add_plain(key, true);
    pos_ = p + 1;
    return n;
  }

  // What follows "key:" in a map whose keys are at column `indent`.
  std::uint32_t block_value(int indent) {
    while (cur() == ' ') ++pos_;
    const char c = cur();
    if (c == '\n' || c == '\0' || c == '#') {
      end_line();
      return nested_block(indent, true);
    }
    const std::uint32_t n = node_here(indent, false);
    end_line();
    return n;
  }

  // A node that starts here: a flow map or list (perhaps over several lines), a quoted scalar,
  // or a plain scalar (inside a flow collection, `in_flow`, up to the next flow indicator; else
  // to the end of the line).
  std::uint32_t node_here(int indent, bool in_flow) {
    switch (cur()) {
      case '{':
        return flow_map(indent);
      case '[':
        return flow_seq(indent);
      case '"':
        return double_quoted();
      case '\'':
        return single_quoted();
      default:
        return in_flow ? flow_plain(false) : block_plain();
    }
  }

  std::uint32_t block_plain() {
    if (bad_plain_start(cur(), at(pos_ + 1))) throw Unsupported{};
    size_t p = pos_;
    while (true) {
      while (!kChars.is(at(p), kBlockStop)) ++p;
      const char c = at(p);
      if (c == '\n' || c == '\0') break;
      if (c == '#' && at(p - 1) == ' ') break;
      if (c == ':' && space_or_end(at(p + 1))) throw Unsupported{};
      ++p;
    }
    size_t end = p;
    while (end > pos_ && s_[end - 1] == ' ') --end;
    const std::uint32_t n = add_plain(s_.substr(pos_, end - pos_), false);
    pos_ = end;
    return n;
  }

  // ---- quoted scalars ----------------------------------------------------------------------
  std::uint32_t double_quoted() {
    const auto begin = static_cast<std::uint32_t>(d_.arena_.size());
    if (!read_double_quoted(s_, pos_, d_.arena_)) throw Unsupported{};
    return add_quoted(begin);
  }

  std::uint32_t single_quoted() {
    const auto begin = static_cast<std::uint32_t>(d_.arena_.size());
    if (!read_single_quoted(s_, pos_, d_.arena_)) throw Unsupported{};
    return add_quoted(begin);
  }

  std::uint32_t add_quoted(std::uint32_t begin) {
    const auto size = static_cast<std::uint32_t>(d_.arena_.size() - begin);
    d_.arena_.push_back('\0');
    return add_node(FastNode::scalar, begin, size);
  }

  // ---- flow context ------------------------------------------------------------------------
  // Spaces, comments and line breaks inside a flow collection; continued lines must be indented
  // deeper than the block the collection sits in.
  void flow_space(int indent) {
    while (true) {
      const char c = cur();
      if (c == ' ') {
        ++pos_;
      } else if (c == '\n') {
        newline_at(pos_);
        size_t p = pos_;
        while (at(p) == ' ') ++p;
        const char d = at(p);
        if (d != '\n' && d != '#' && d != '\0' && static_cast<int>(p - pos_) <= indent)
          throw Unsupported{};
        pos_ = p;
      } else if (c == '#') {
        if (pos_ > 0 && s_[pos_ - 1] != ' ' && s_[pos_ - 1] != '\n') throw Unsupported{};
        while (cur() != '\n' && cur() != '\0') ++pos_;
      } else {
        return;
      }
    }
  }

  std::uint32_t flow_plain(bool key) {
    if (bad_plain_start(cur(), at(pos_ + 1))) throw Unsupported{};
    size_t p = pos_;
    while (true) {
      while (!kChars.is(at(p), kFlowStop)) ++p;
      const char c = at(p);
      if (c == '\0' || c == '?') throw Unsupported{};  // yaml-cpp ends a flow scalar at '?'
      if (c == '\n' || flow_indicator(c)) break;
      if (c == '#' && at(p - 1) == ' ') break;
      if (c == ':') {
        if (!key || !space_or_end(at(p + 1))) throw Unsupported{};
        break;
      }
      ++p;
    }
    size_t end = p;
    while (end > pos_ && s_[end - 1] == ' ') --end;
    if (key && (end != p || at(p) != ':')) throw Unsupported{};  // "a :" or a key without ':'
    const std::uint32_t n = add_plain(s_.substr(pos_, end - pos_), key);
    pos_ = end;
    return n;
  }

  // The items of a flow collection up to `close` ('}' or ']'), comma-separated; `item` reads one.
  template <class Item>
  void flow_items(int indent, char close, Item item) {
    ++pos_;  // '{' or '['
    flow_space(indent);
    if (cur() == close) {
      ++pos_;
      return;
    }
    while (true) {
      item();
      flow_space(indent);
      if (cur() == close) {
        ++pos_;
        return;
      }
      if (cur() != ',') throw Unsupported{};
      ++pos_;
      flow_space(indent);
      if (cur() == close || cur() == ',') throw Unsupported{};
    }
  }

  std::uint32_t flow_map(int indent) {
    const OpenContainer container = open_container();
    flow_items(indent, '}', [&] {
      if (cur() == '"' || cur() == '\'' || cur() == '{' || cur() == '[') throw Unsupported{};
      stack_.push_back(flow_plain(true));
      ++pos_;  // ':'
      if (cur() != ' ' && cur() != '\n') throw Unsupported{};
      flow_space(indent);
      stack_.push_back(node_here(indent, true));
    });
    return close_container(FastNode::map, container);
  }

  std::uint32_t flow_seq(int indent) {
    const OpenContainer container = open_container();
    flow_items(indent, ']', [&] { stack_.push_back(node_here(indent, true)); });
    return close_container(FastNode::seq, container);
  }

  std::string_view s_;
  FastDoc& d_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  std::uint32_t line_ = 1;
  int depth_ = 0;
  std::vector<std::uint32_t> stack_;  // children of the containers being read
};

std::unique_ptr<FastDoc> FastDoc::parse(std::string_view text) {
  if (text.size() >= 0xffffffffu / 2) return nullptr;
  auto doc = std::make_unique<FastDoc>();
  try {
    FastParser(text, *doc).run();
  } catch (const Unsupported&) {
    return nullptr;
  }
  return doc;
}

}  // namespace ovs::yaml
