// Solves a linear program plus separable relative-entropy terms with Ipopt
// (an interior-point NLP solver; Debian's coinor-libipopt):
//   minimise  cost . x  +  sum_k w_k [ (x_k + eps) ln((x_k + eps) / (p_k + eps)) - x_k ]
//   subject to the program's row and column bounds.
// The terms are convex (second derivative w / (x + eps) > 0), so Ipopt's
// local optimum is the global one. This is the online policy's per-slot
// problem (docs/scaler.md).
#pragma once

#include <string>
#include <vector>

#include "linear_program.h"

namespace nfv {

struct EntropyTerm {
  int column = 0;
  double weight = 0;    // w_k >= 0
  double previous = 0;  // p_k: the column's value in the previous slot
};

struct RegularizedSolution {
  bool solved = false;
  std::string status;      // Ipopt's return status, in words
  std::vector<double> x;   // per column
  double objective = 0;
  int iterations = 0;
};

// A previous solution of a program with the same columns: Ipopt starts from
// it (fewer iterations than from the bounds' midpoints). Filled in by each solve.
struct WarmStart {
  std::vector<double> x;
};

// `warm`: null for a cold start (bounds' midpoints, 0 for free columns);
// otherwise used when its sizes match the program, and replaced by this solution.
RegularizedSolution solve_regularized(const LinearProgram& lp, const std::vector<EntropyTerm>& terms, double epsilon,
                                      WarmStart* warm = nullptr);

}  // namespace nfv
