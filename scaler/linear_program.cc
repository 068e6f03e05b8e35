#include "linear_program.h"

namespace nfv {

int LinearProgram::add_column(double lower, double upper, double column_cost, bool is_integer) {
  column_lower.push_back(lower);
  column_upper.push_back(upper);
  cost.push_back(column_cost);
  integer.push_back(is_integer ? 1 : 0);
  return columns() - 1;
}

int LinearProgram::add_row(double lower, double upper) {
  row_lower.push_back(lower);
  row_upper.push_back(upper);
  return rows() - 1;
}

void LinearProgram::add(int row, int column, double value) {
  entry_row.push_back(row);
  entry_column.push_back(column);
  entry_value.push_back(value);
}

LinearProgram::Csc LinearProgram::by_column() const {
  Csc csc;
  csc.start.assign(columns() + 1, 0);
  for (int column : entry_column) ++csc.start[column + 1];
  for (int c = 0; c < columns(); ++c) csc.start[c + 1] += csc.start[c];
  csc.index.resize(entry_row.size());
  csc.value.resize(entry_row.size());
  std::vector<int> next(csc.start.begin(), csc.start.end() - 1);
  for (std::size_t k = 0; k < entry_row.size(); ++k) {
    const int at = next[entry_column[k]]++;
    csc.index[at] = entry_row[k];
    csc.value[at] = entry_value[k];
  }
  return csc;
}

std::vector<double> LinearProgram::activity(const std::vector<double>& x) const {
  std::vector<double> a(rows(), 0.0);
  for (std::size_t k = 0; k < entry_row.size(); ++k) a[entry_row[k]] += entry_value[k] * x[entry_column[k]];
  return a;
}

}  // namespace nfv
