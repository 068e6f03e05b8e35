// Horizon programs: T slots of SlotProblem plus deployment columns, handed
// to CLP (LP) or CBC (MILP) through their C interfaces.
#include "offline_optimum.h"

#include <Cbc_C_Interface.h>
#include <Clp_C_Interface.h>

#include <cfloat>
#include <chrono>
#include <cmath>

namespace nfv {
namespace {

// COIN-OR reads DBL_MAX as "no bound".
std::vector<double> coin_bounds(const std::vector<double>& bounds) {
  std::vector<double> out(bounds);
  for (double& b : out)
    if (std::isinf(b)) b = b > 0 ? DBL_MAX : -DBL_MAX;
  return out;
}

struct HorizonProgram {
  LinearProgram lp;
  std::vector<std::vector<int>> instances;  // per slot, per pool: the column or -1
};

HorizonProgram build(const SystemModel& model, const ArrivalSchedule& arrivals, const std::vector<double>& start,
                     const SlotProblem& problem, bool integer, bool site_rows) {
  HorizonProgram h;
  const Topology& topology = model.topology();
  const std::size_t sites = model.sites();
  for (std::size_t t = 0; t < arrivals.slots(); ++t) {
    SlotColumns columns = problem.add_slot(h.lp, arrivals.slot(t), site_rows);
    for (std::size_t pool = 0; pool < columns.instances.size(); ++pool) {
      const int x = columns.instances[pool];
      if (x < 0) continue;
      h.lp.integer[x] = integer ? 1 : 0;
      // started >= x(t) - x(t - 1)
      const int started = h.lp.add_column(0, kInfinity, topology.sites[pool % sites].deployment_price);
      const double before = t == 0 ? start[pool] : 0.0;
      const int row = h.lp.add_row(-before, kInfinity);
      h.lp.add(row, started, 1.0);
      h.lp.add(row, x, -1.0);
      if (t > 0 && h.instances[t - 1][pool] >= 0) h.lp.add(row, h.instances[t - 1][pool], 1.0);
    }
    h.instances.push_back(std::move(columns.instances));
  }
  return h;
}

struct Solved {
  bool solved = false, optimal = false;
  bool bounded = false;  // `bound` holds (a MIP stopped at its time limit may have one and no solution)
  std::string status;
  double cost = 0, bound = 0;
  std::vector<double> x;
};

Solved solve_lp(const LinearProgram& lp) {
  const LinearProgram::Csc csc = lp.by_column();
  const auto column_lower = coin_bounds(lp.column_lower), column_upper = coin_bounds(lp.column_upper);
  const auto row_lower = coin_bounds(lp.row_lower), row_upper = coin_bounds(lp.row_upper);
  Clp_Simplex* clp = Clp_newModel();
  Clp_setLogLevel(clp, 0);
  Clp_loadProblem(clp, lp.columns(), lp.rows(), csc.start.data(), csc.index.data(), csc.value.data(), column_lower.data(),
                  column_upper.data(), lp.cost.data(), row_lower.data(), row_upper.data());
  Clp_initialSolve(clp);
  Solved out;
  const int status = Clp_status(clp);  // 0 optimal, 1 infeasible, 2 unbounded, 3 stopped, 4 errors
  out.solved = out.optimal = out.bounded = status == 0;
  out.status = status == 0 ? "optimal" : status == 1 ? "infeasible" : status == 2 ? "unbounded" : "CLP status " + std::to_string(status);
  if (out.solved) {
    out.cost = out.bound = Clp_objectiveValue(clp);
    const double* x = Clp_primalColumnSolution(clp);
    out.x.assign(x, x + lp.columns());
  }
  Clp_deleteModel(clp);
  return out;
}

Solved solve_mip(const LinearProgram& lp, double time_limit_s) {
  const LinearProgram::Csc csc = lp.by_column();
  const auto column_lower = coin_bounds(lp.column_lower), column_upper = coin_bounds(lp.column_upper);
  const auto row_lower = coin_bounds(lp.row_lower), row_upper = coin_bounds(lp.row_upper);
  Cbc_Model* cbc = Cbc_newModel();
  Cbc_loadProblem(cbc, lp.columns(), lp.rows(), csc.start.data(), csc.index.data(), csc.value.data(), column_lower.data(),
                  column_upper.data(), lp.cost.data(), row_lower.data(), row_upper.data());
  for (int c = 0; c < lp.columns(); ++c)
    if (lp.integer[c]) Cbc_setInteger(cbc, c);
  Cbc_setLogLevel(cbc, 0);
  Cbc_setMaximumSeconds(cbc, time_limit_s);
  Cbc_setAllowableGap(cbc, 1e-9);
  Cbc_solve(cbc);
  Solved out;
  out.optimal = Cbc_isProvenOptimal(cbc);
  out.solved = !Cbc_isProvenInfeasible(cbc) && Cbc_getColSolution(cbc) != nullptr;
  out.status = out.optimal ? "optimal" : Cbc_isProvenInfeasible(cbc) ? "infeasible" : "stopped at the time limit";
  // Branch and bound's best bound holds at a time limit, with or without a
  // solution found by then.
  out.bounded = !Cbc_isProvenInfeasible(cbc);
  if (out.bounded) out.bound = Cbc_getBestPossibleObjValue(cbc);
  if (out.solved) {
    out.cost = Cbc_getObjValue(cbc);
    const double* x = Cbc_getColSolution(cbc);
    out.x.assign(x, x + lp.columns());
  }
  Cbc_deleteModel(cbc);
  return out;
}

}  // namespace

OfflineResult solve_offline(const SystemModel& model, const ArrivalSchedule& arrivals, const Plan& starting_plan,
                            const OfflineSettings& settings) {
  const auto begun = std::chrono::steady_clock::now();
  const PoolIndex& pools = model.pool_index();
  std::vector<double> start(pools.pools(), 0.0);
  for (const PoolPlan& p : starting_plan.pools) start[pools(p.chain, p.hop, p.site)] = p.instances;

  OfflineResult result;
  result.solved = result.optimal = true;
  result.instances.assign(arrivals.slots(), std::vector<double>(pools.pools(), 0.0));
  std::vector<std::vector<std::size_t>> groups;
  if (settings.by_chain)
    for (std::size_t c = 0; c < model.chains(); ++c) groups.push_back({c});
  else
    groups.push_back({});  // every chain at once
  for (const auto& chains : groups) {
    const SlotProblem problem(model, settings.slot, chains);
    const HorizonProgram program = build(model, arrivals, start, problem, settings.integer, !settings.by_chain);
    const Solved solved = settings.integer ? solve_mip(program.lp, settings.time_limit_s) : solve_lp(program.lp);
    result.status = solved.status;
    result.bounded = result.bounded && solved.bounded;
    result.bound += solved.bound;
    if (!solved.solved) {
      // The bound still adds up over the groups; the schedule does not.
      result.solved = result.optimal = false;
      if (!result.bounded) break;
      continue;
    }
    result.optimal = result.optimal && solved.optimal;
    result.cost += solved.cost;
    for (std::size_t t = 0; t < arrivals.slots(); ++t)
      for (std::size_t pool = 0; pool < pools.pools(); ++pool)
        if (program.instances[t][pool] >= 0) result.instances[t][pool] = solved.x[program.instances[t][pool]];
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
  return result;
}

}  // namespace nfv
