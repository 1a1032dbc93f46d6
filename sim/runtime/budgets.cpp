#include "sim/runtime/budgets.hpp"

namespace fulcrum::sim {

std::optional<double> latency_at_percentile_ms(const LatencyStats& stats, double percentile) {
  if (percentile == 50) return stats.p50_ms;
  if (percentile == 95) return stats.p95_ms;
  if (percentile == 99) return stats.p99_ms;
  if (percentile == 100) return stats.max_ms;
  return std::nullopt;
}

BudgetResult judge_budgets(const RunResult& result, const Budgets& budgets) {
  BudgetResult verdict;
  if (budgets.latency_ms) {
    bool met = true;
    for (const StreamResult& s : result.inference) {
      if (!s.stable || (s.completed == 0 && s.arrived > 0)) {
        met = false;
        continue;
      }
      if (!s.latency) continue;
      const std::optional<double> at =
          latency_at_percentile_ms(*s.latency, budgets.latency_percentile);
      if (!at || *at > *budgets.latency_ms) met = false;
    }
    verdict.latency_met = met;
  }
  if (budgets.power_w) {
    const double measured = budgets.power_kind == PowerBudgetKind::average
                                ? result.power.avg_w
                                : result.power.max_window_w;
    verdict.power_met = measured <= *budgets.power_w;
  }
  return verdict;
}

}  // namespace fulcrum::sim
