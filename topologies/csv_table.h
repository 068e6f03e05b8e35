// A small reader for the comma-separated files of ../shared/data and of our
// rate traces: '#' comment lines, one header row, then rows of plain fields
// (no quoting: none of these files needs it). Shared with traces/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nfv {

struct CsvTable {
  std::string file;
  std::vector<std::string> comments;  // text after '#', trimmed, in order
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> row_lines;  // 1-based line of each row, for errors

  // Column index by header name; throws "file: expected a column 'name'".
  std::size_t column(std::string_view name) const;
  bool has_column(std::string_view name) const;
  // "file:line: column 'name': expected <what>, got 'text'"
  [[noreturn]] void fail(std::size_t row, std::size_t column, const std::string& expected) const;
  // Parses a finite number; fails as above otherwise.
  double number(std::size_t row, std::size_t column) const;
};

// Reads the file; throws naming it when it cannot be opened, has no header,
// or a row has a different number of fields than the header.
CsvTable read_csv_table(const std::string& path);

}  // namespace nfv
