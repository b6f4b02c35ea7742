#include "sim/io/csv_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace ovs {

std::vector<std::string> split_csv_record(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

CsvTable CsvTable::parse(const std::string& text, const std::string& name) {
  CsvTable t;
  t.file_ = name;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (t.header_.empty() && line[0] == '#') {
      t.comments_.push_back(line);
      continue;
    }
    if (std::count(line.begin(), line.end(), '"') % 2 != 0)
      throw InputError(name, lineno, "", "unterminated quoted field");
    auto fields = split_csv_record(line);
    if (t.header_.empty()) {
      t.header_ = fields;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (t.index_.count(fields[i]))
          throw InputError(name, lineno, fields[i], "duplicate column");
        t.index_[fields[i]] = i;
      }
      continue;
    }
    if (fields.size() != t.header_.size())
      throw InputError(name, lineno, "",
                       "expected " + std::to_string(t.header_.size()) + " fields, got " +
                           std::to_string(fields.size()));
    t.rows_.push_back(std::move(fields));
    t.lines_.push_back(lineno);
  }
  if (t.header_.empty()) throw InputError(name, 1, "", "no header row (empty CSV)");
  return t;
}

CsvTable CsvTable::load(const std::string& path) {
  return parse(read_text(path), path);
}

std::string CsvTable::read_text(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, 0, "", "no such file");
  if (fs::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, expected a CSV file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file for reading");
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

const std::string& CsvTable::at(size_t row, const std::string& column) const {
  auto it = index_.find(column);
  if (it == index_.end())
    throw InputError(file_, lines_.empty() ? 1 : lines_[row], column, "missing column");
  return rows_[row][it->second];
}

std::optional<double> CsvTable::maybe_number(size_t row, const std::string& column) const {
  const std::string& s = at(row, column);
  if (s.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

double CsvTable::number(size_t row, const std::string& column) const {
  auto v = maybe_number(row, column);
  if (!v)
    throw InputError(file_, lines_[row], column,
                     "expected a number, got '" + at(row, column) + "'");
  return *v;
}

}  // namespace ovs
