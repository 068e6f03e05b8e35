// A sparse linear program as the optimisation code builds it: columns with
// bounds, cost and integrality, rows with bounds, and coefficients as
// (row, column, value) triplets. The online policy hands it to Ipopt with
// its regularizer; the offline optimum hands it to CBC or CLP.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace nfv {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct LinearProgram {
  std::vector<double> column_lower, column_upper, cost;
  std::vector<char> integer;  // per column
  std::vector<double> row_lower, row_upper;
  std::vector<int> entry_row, entry_column;
  std::vector<double> entry_value;

  int columns() const { return static_cast<int>(cost.size()); }
  int rows() const { return static_cast<int>(row_lower.size()); }
  int add_column(double lower, double upper, double column_cost, bool is_integer = false);
  int add_row(double lower, double upper);
  void add(int row, int column, double value);

  // Compressed sparse columns (start, index, value), as CBC and CLP load them.
  struct Csc {
    std::vector<int> start, index;
    std::vector<double> value;
  };
  Csc by_column() const;
  // Row activity A x, per row.
  std::vector<double> activity(const std::vector<double>& x) const;
};

}  // namespace nfv
