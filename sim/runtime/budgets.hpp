// Budgets judged from a run's result (a scenario run, and `optimize`'s event-driven re-run of its
// choice). The searches do not call it: they judge a candidate's closed-form steady state
// (sim/search/steady_state.hpp) on peak latency and their own power constraint.
//
//   RunResult r = runtime.run();
//   r.budgets = judge_budgets(r, scenario.budgets);
#pragma once

#include <optional>

#include "sim/runtime/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// latency_met (when a latency budget is set): every stream is stable, every stream that had
// arrivals completed some, and each stream's latency at the budget's percentile is <= the budget.
// power_met (when a power budget is set): the average module power, or the highest window
// average (budgets.power_kind), is <= the budget.
BudgetResult judge_budgets(const RunResult& result, const Budgets& budgets);

// The latency at `percentile` (50, 95, 99 or 100 = max) of `stats`; nullopt for another value.
std::optional<double> latency_at_percentile_ms(const LatencyStats& stats, double percentile);

}  // namespace fulcrum::sim
