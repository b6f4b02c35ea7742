#pragma once
// One CSV file: '#' metadata lines, a header row, then data rows. Rows go to PATH.partial as
// they are measured (flushed one by one, so a run that dies keeps them there); finish() renames
// it to PATH, so a PATH that exists is complete.

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

class CsvWriter {
 public:
  CsvWriter(const std::filesystem::path& path, const std::vector<std::string>& comment_lines,
            std::vector<std::string> columns);
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // One cell per column, already formatted (see cell()); a count mismatch is a bug: exits 1.
  void write_row(const std::vector<std::string>& cells);
  // Closes the file and renames PATH.partial to PATH.
  void finish();

  const std::filesystem::path& path() const { return path_; }
  int64_t rows_written() const { return rows_written_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path partial_path_;
  std::ofstream file_;
  std::vector<std::string> columns_;
  int64_t rows_written_ = 0;
};

// Cell formatting: fixed decimals for doubles (an empty cell for NaN: "not applicable"), plain
// integers, and strings
// quoted only when they hold a comma or a quote.
std::string cell(double value, int decimals = 3);
std::string cell(std::string_view text);
inline std::string cell(const char* text) {
  return cell(std::string_view(text));
}
template <std::integral T>
std::string cell(T value) {
  return std::to_string(value);
}
