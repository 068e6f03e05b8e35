#include "csv_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace nfv {
namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(std::string_view(line).substr(start, comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace

std::size_t CsvTable::column(std::string_view name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw std::runtime_error(file + ": expected a column '" + std::string(name) + "'");
  return static_cast<std::size_t>(it - header.begin());
}

bool CsvTable::has_column(std::string_view name) const {
  return std::find(header.begin(), header.end(), name) != header.end();
}

void CsvTable::fail(std::size_t row, std::size_t col, const std::string& expected) const {
  throw std::runtime_error(file + ":" + std::to_string(row_lines[row]) + ": column '" + header[col] +
                           "': expected " + expected + ", got '" + rows[row][col] + "'");
}

double CsvTable::number(std::size_t row, std::size_t col) const {
  const std::string& text = rows[row][col];
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value)) fail(row, col, "a number");
  return value;
}

CsvTable read_csv_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  CsvTable table;
  table.file = path;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string text = trim(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      table.comments.push_back(trim(std::string_view(text).substr(1)));
      continue;
    }
    auto fields = split_fields(text);
    if (table.header.empty()) {
      table.header = std::move(fields);
      continue;
    }
    if (fields.size() != table.header.size())
      throw std::runtime_error(path + ":" + std::to_string(line_number) + ": expected " +
                               std::to_string(table.header.size()) + " fields as in the header, got " +
                               std::to_string(fields.size()));
    table.rows.push_back(std::move(fields));
    table.row_lines.push_back(line_number);
  }
  if (table.header.empty()) throw std::runtime_error(path + ": expected a header row, the file is empty");
  return table;
}

}  // namespace nfv
