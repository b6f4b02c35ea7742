#pragma once
// Bad input is reported as an InputError: one line naming the file, the line and the field.
// The CLI turns it into "error: <what>" on stderr and exit code 2.
#include <stdexcept>
#include <string>

namespace ovs {

class InputError : public std::runtime_error {
 public:
  // line is 1-based; 0 means "no line" (a missing file, a command-line flag).
  InputError(std::string file, int line, std::string field, const std::string& message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
};

// Bad input on the command line: "command line: field '--flag': message".
InputError flag_error(const std::string& flag, const std::string& message);

// Exit code for bad input, as the design's interface promises.
inline constexpr int kExitBadInput = 2;

}  // namespace ovs
