// The offline optimum: the whole horizon's scaling problem with the traffic
// known in advance, as one mixed-integer program solved with CBC (COIN-OR
// branch and cut), or its LP relaxation solved with CLP, the lower bound
// against which policies' competitive ratios are reported (docs/scaler.md).
// Per slot it is SlotProblem (instances, routes, drops, capacities); across
// slots, deployment: started(t, pool) >= instances(t) - instances(t - 1),
// priced at the site's deployment price, with the starting plan at t = -1.
#pragma once

#include <string>
#include <vector>

#include "plan.h"
#include "arrival_schedule.h"
#include "system_model.h"
#include "slot_problem.h"

namespace nfv {

struct OfflineSettings {
  bool integer = true;  // false: the LP relaxation
  // Solve each chain on its own, without the site capacity rows. Dropping
  // constraints can only lower the optimum, so this is still a lower bound,
  // and it separates a large horizon into small programs.
  bool by_chain = false;
  SlotProblemSettings slot;   // capacity share, minimum per hop, candidate sites
  double time_limit_s = 300;  // CBC only; the result then says it is not proven optimal
};

struct OfflineResult {
  bool solved = false;
  bool optimal = false;   // proven (LP: always when solved)
  bool bounded = true;    // `bound` holds, even where no schedule was found in time (CBC's best bound)
  std::string status;
  double cost = 0;        // of the best solution found, over the horizon
  double bound = 0;       // no schedule can cost less (= cost when optimal), when `bounded`
  // Instances per slot and pool (PoolIndex); fractional for the LP.
  std::vector<std::vector<double>> instances;
  double seconds = 0;
};

OfflineResult solve_offline(const SystemModel& model, const ArrivalSchedule& arrivals, const Plan& starting_plan,
                            const OfflineSettings& settings);

}  // namespace nfv
