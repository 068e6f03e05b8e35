// Ipopt through its C interface: callbacks evaluate the objective, its
// gradient, the linear rows, their (constant) Jacobian and the diagonal
// Hessian of the entropy terms.
#include "regularized_solver.h"

#include <IpStdCInterface.h>

#include <algorithm>
#include <cmath>

namespace nfv {
namespace {

// Ipopt reads bounds beyond +-1e19 as none.
constexpr double kIpoptInfinity = 2e19;

struct Problem {
  const LinearProgram* lp;
  const std::vector<EntropyTerm>* terms;
  double epsilon;
  int iterations = 0;
};

Bool count_iteration(Index, Index iteration, Number, Number, Number, Number, Number, Number, Number, Number, Index,
                     UserDataPtr data) {
  static_cast<Problem*>(data)->iterations = iteration;
  return TRUE;
}

double finite(double bound) { return std::isfinite(bound) ? bound : (bound > 0 ? kIpoptInfinity : -kIpoptInfinity); }

Bool eval_f(Index n, Number* x, Bool, Number* value, UserDataPtr data) {
  const auto& p = *static_cast<Problem*>(data);
  double sum = 0;
  for (Index i = 0; i < n; ++i) sum += p.lp->cost[i] * x[i];
  for (const EntropyTerm& t : *p.terms) {
    const double v = std::max(x[t.column], 0.0) + p.epsilon;
    sum += t.weight * (v * std::log(v / (t.previous + p.epsilon)) - x[t.column]);
  }
  *value = sum;
  return TRUE;
}

Bool eval_grad_f(Index n, Number* x, Bool, Number* gradient, UserDataPtr data) {
  const auto& p = *static_cast<Problem*>(data);
  for (Index i = 0; i < n; ++i) gradient[i] = p.lp->cost[i];
  for (const EntropyTerm& t : *p.terms) {
    const double v = std::max(x[t.column], 0.0) + p.epsilon;
    gradient[t.column] += t.weight * std::log(v / (t.previous + p.epsilon));
  }
  return TRUE;
}

Bool eval_g(Index, Number* x, Bool, Index m, Number* g, UserDataPtr data) {
  const auto& lp = *static_cast<Problem*>(data)->lp;
  std::fill(g, g + m, 0.0);
  for (std::size_t k = 0; k < lp.entry_row.size(); ++k) g[lp.entry_row[k]] += lp.entry_value[k] * x[lp.entry_column[k]];
  return TRUE;
}

Bool eval_jac_g(Index, Number*, Bool, Index, Index count, Index* rows, Index* columns, Number* values, UserDataPtr data) {
  const auto& lp = *static_cast<Problem*>(data)->lp;
  if (values == nullptr) {
    for (Index k = 0; k < count; ++k) {
      rows[k] = lp.entry_row[k];
      columns[k] = lp.entry_column[k];
    }
  } else {
    std::copy(lp.entry_value.begin(), lp.entry_value.end(), values);
  }
  return TRUE;
}

Bool eval_h(Index, Number* x, Bool, Number objective_factor, Index, Number*, Bool, Index count, Index* rows,
            Index* columns, Number* values, UserDataPtr data) {
  const auto& p = *static_cast<Problem*>(data);
  if (values == nullptr) {
    for (Index k = 0; k < count; ++k) rows[k] = columns[k] = (*p.terms)[k].column;
  } else {
    for (Index k = 0; k < count; ++k) {
      const EntropyTerm& t = (*p.terms)[k];
      values[k] = objective_factor * t.weight / (std::max(x[t.column], 0.0) + p.epsilon);
    }
  }
  return TRUE;
}

std::string status_text(ApplicationReturnStatus status) {
  switch (status) {
    case Solve_Succeeded: return "solved";
    case Solved_To_Acceptable_Level: return "solved to acceptable level";
    case Infeasible_Problem_Detected: return "infeasible";
    case Maximum_Iterations_Exceeded: return "maximum iterations exceeded";
    case Restoration_Failed: return "restoration failed";
    case Error_In_Step_Computation: return "error in step computation";
    case Maximum_CpuTime_Exceeded: return "maximum CPU time exceeded";
    case Not_Enough_Degrees_Of_Freedom: return "not enough degrees of freedom";
    case Invalid_Problem_Definition: return "invalid problem definition";
    case Invalid_Number_Detected: return "invalid number detected";
    default: return "Ipopt status " + std::to_string(static_cast<int>(status));
  }
}

}  // namespace

namespace {
RegularizedSolution solve_once(const LinearProgram& lp, const std::vector<EntropyTerm>& terms, double epsilon,
                               WarmStart* warm, bool monotone);
}  // namespace

RegularizedSolution solve_regularized(const LinearProgram& lp, const std::vector<EntropyTerm>& terms, double epsilon,
                                      WarmStart* warm) {
  // An interior-point run can fail (e.g. "restoration failed") from an
  // unlucky start: try again from the bounds' midpoints, then with the
  // monotone barrier strategy, before giving up.
  RegularizedSolution out = solve_once(lp, terms, epsilon, warm, false);
  if (!out.solved && warm != nullptr && !warm->x.empty()) {
    warm->x.clear();
    out = solve_once(lp, terms, epsilon, warm, false);
  }
  if (!out.solved) out = solve_once(lp, terms, epsilon, warm, true);
  return out;
}

namespace {

RegularizedSolution solve_once(const LinearProgram& lp, const std::vector<EntropyTerm>& terms, double epsilon,
                               WarmStart* warm, bool monotone) {
  const Index n = lp.columns(), m = lp.rows();
  std::vector<double> x_lower(n), x_upper(n), g_lower(m), g_upper(m);
  for (Index i = 0; i < n; ++i) {
    x_lower[i] = finite(lp.column_lower[i]);
    x_upper[i] = finite(lp.column_upper[i]);
  }
  for (Index r = 0; r < m; ++r) {
    g_lower[r] = finite(lp.row_lower[r]);
    g_upper[r] = finite(lp.row_upper[r]);
  }
  IpoptProblem ipopt = CreateIpoptProblem(n, x_lower.data(), x_upper.data(), m, g_lower.data(), g_upper.data(),
                                          static_cast<Index>(lp.entry_row.size()), static_cast<Index>(terms.size()), 0,
                                          &eval_f, &eval_g, &eval_grad_f, &eval_jac_g, &eval_h);
  RegularizedSolution out;
  if (ipopt == nullptr) {
    out.status = "Ipopt refused the problem definition";
    return out;
  }
  const auto option = [&](const char* key, const char* value) {
    AddIpoptStrOption(ipopt, const_cast<char*>(key), const_cast<char*>(value));
  };
  const auto number = [&](const char* key, double value) { AddIpoptNumOption(ipopt, const_cast<char*>(key), value); };
  AddIpoptIntOption(ipopt, const_cast<char*>("print_level"), 0);
  AddIpoptIntOption(ipopt, const_cast<char*>("max_iter"), 500);
  option("sb", "yes");
  number("tol", 1e-6);
  // The rows are linear: Ipopt can skip re-evaluating their Jacobian.
  option("jac_c_constant", "yes");
  option("jac_d_constant", "yes");
  option("mu_strategy", monotone ? "monotone" : "adaptive");
  const bool warm_usable = warm != nullptr && static_cast<Index>(warm->x.size()) == n;
  out.x.resize(n);
  if (warm_usable) {
    // Only the primal point: Ipopt's warm_start_init_point (with the
    // multipliers) took more iterations on these programs, not fewer.
    out.x = warm->x;
  } else {
    for (Index i = 0; i < n; ++i) {
      if (std::isfinite(lp.column_upper[i])) out.x[i] = (lp.column_lower[i] + lp.column_upper[i]) / 2;
      else out.x[i] = std::isfinite(lp.column_lower[i]) ? lp.column_lower[i] : 0.0;
    }
  }
  Problem problem{&lp, &terms, epsilon};
  SetIntermediateCallback(ipopt, &count_iteration);
  std::vector<double> g(m);
  const ApplicationReturnStatus status =
      IpoptSolve(ipopt, out.x.data(), g.data(), &out.objective, nullptr, nullptr, nullptr, &problem);
  FreeIpoptProblem(ipopt);
  out.status = status_text(status);
  out.iterations = problem.iterations;
  out.solved = status == Solve_Succeeded || status == Solved_To_Acceptable_Level;
  if (warm != nullptr && out.solved) warm->x = out.x;
  // Interior points sit a hair inside their bounds; snap to them.
  for (Index i = 0; i < n; ++i) out.x[i] = std::clamp(out.x[i], lp.column_lower[i], lp.column_upper[i]);
  return out;
}

}  // namespace

}  // namespace nfv
