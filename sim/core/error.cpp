#include "sim/core/error.hpp"

namespace ovs {
namespace {
std::string compose(const std::string& file, int line, const std::string& field,
                    const std::string& message) {
  std::string out;
  out.reserve(file.size() + field.size() + message.size() + 32);
  out += file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  if (!field.empty()) out += "field '" + field + "': ";
  out += message;
  // Errors are one line: fold any newline a library put in its message.
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}
}  // namespace

InputError flag_error(const std::string& flag, const std::string& message) {
  return InputError("command line", 0, flag, message);
}

InputError::InputError(std::string file, int line, std::string field, const std::string& message)
    : std::runtime_error(compose(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      message_(message) {}

}  // namespace ovs
