#pragma once
// Bad input is reported as an InputError: one line naming the file, the line and the field.
// The CLI turns it into "error: <what>" on stderr and exit code 2.
#include <stdexcept>
#include <string>

namespace ovs {

class InputError : public std::runtime_error {
 public:
  // line is 1-based; 0 means "no line" (a missing file, a command-line flag). An empty file
  // means the thrower does not know where the value came from: whoever catches it and does
  // (the CLI: a flag; a sweep: its spec's field) re-throws it located.
  InputError(std::string file, int line, std::string field, const std::string& message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }  // without file, line and field

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string message_;
};

// Bad input on the command line: "command line: field '--flag': message".
InputError flag_error(const std::string& flag, const std::string& message);

// Exit code for bad input, as the design's interface promises.
inline constexpr int kExitBadInput = 2;

}  // namespace ovs
