#include "csv_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

CsvWriter::CsvWriter(const std::filesystem::path& path,
                     const std::vector<std::string>& comment_lines,
                     std::vector<std::string> columns)
    : path_(path),
      partial_path_(path.string() + ".partial"),
      file_(partial_path_, std::ios::out | std::ios::trunc),
      columns_(std::move(columns)) {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);  // a stale complete file from an earlier run
  if (!file_) {
    std::fprintf(stderr, "overlapsim_microbench: cannot write %s\n", partial_path_.c_str());
    std::exit(1);
  }
  for (const auto& line : comment_lines) file_ << "# " << line << '\n';
  for (size_t i = 0; i < columns_.size(); ++i) file_ << (i ? "," : "") << columns_[i];
  file_ << '\n' << std::flush;
}

void CsvWriter::write_row(const std::vector<std::string>& cells) {
  if (cells.size() != columns_.size()) {
    std::fprintf(stderr, "overlapsim_microbench: bug: %zu cells for %zu columns in %s\n",
                 cells.size(), columns_.size(), path_.c_str());
    std::exit(1);
  }
  for (size_t i = 0; i < cells.size(); ++i) file_ << (i ? "," : "") << cells[i];
  file_ << '\n' << std::flush;
  ++rows_written_;
}

void CsvWriter::finish() {
  file_.close();
  std::error_code error;
  std::filesystem::rename(partial_path_, path_, error);
  if (!file_ || error) {
    std::fprintf(stderr, "overlapsim_microbench: cannot complete %s: %s\n", path_.c_str(),
                 error ? error.message().c_str() : "write failed");
    std::exit(1);
  }
}

std::string cell(double value, int decimals) {
  if (std::isnan(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string cell(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}
