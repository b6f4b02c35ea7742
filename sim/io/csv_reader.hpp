#pragma once
// A small RFC 4180 CSV reader: quoted fields, embedded commas and quotes, '#' comment lines
// before the header (microbenchmark metadata). Errors name the file and the line.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ovs {

class CsvTable {
 public:
  static CsvTable load(const std::string& path);
  // The whole file as text; a missing file, a folder or an unreadable file is a located error.
  static std::string read_text(const std::string& path);
  static CsvTable parse(const std::string& text, const std::string& name);

  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::string>& comments() const { return comments_; }
  size_t rows() const { return rows_.size(); }
  bool has(const std::string& column) const { return index_.count(column) > 0; }
  // Field of a row by column name; throws InputError naming file, line and column if absent.
  const std::string& at(size_t row, const std::string& column) const;
  // Numeric field; InputError if not a finite number.
  double number(size_t row, const std::string& column) const;
  std::optional<double> maybe_number(size_t row, const std::string& column) const;
  int line_of(size_t row) const { return lines_[row]; }

 private:
  std::string file_;
  std::vector<std::string> comments_;
  std::vector<std::string> header_;
  std::map<std::string, size_t> index_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

// Splits one CSV record (no newline inside quotes). Exposed for tests and writers.
std::vector<std::string> split_csv_record(const std::string& line);
// Quotes a field if it needs it.
std::string csv_field(const std::string& s);

}  // namespace ovs
