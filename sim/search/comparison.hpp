// Comparing a strategy with the oracle over many configurations, judged on the ground truth:
// the share of configurations with a feasible optimum where the strategy met both budgets, the
// mean and 5th percentile of its training throughput over the oracle's, and what profiling cost.
// The predecessor study's configurations are built in (reference_*_problems); `fulcrum sweep`
// builds its own grids and uses the same scoring.
//
//   std::vector<Problem> ps = concurrent_reference_problems();
//   StrategyScore s = compare_strategy("gmd", ps, truth, {});
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/search/ground_truth.hpp"
#include "sim/search/problem.hpp"
#include "sim/search/profiler.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// gmd-training-reference.csv's configurations: resnet18, mobilenet_v3 and lstm at 10..50 W,
// bert_base at 10..60 W, 1 W steps (174), training only.
std::vector<Problem> training_reference_problems(Objective objective = Objective::per_window);

// gmd-concurrent-reference.csv's: the pairs resnet18+mobilenet_v3, mobilenet_v3+lstm and
// mobilenet_v3+mobilenet_v3 x arrival 30..120/s step 10 x latency 0.5..2.0 s step 0.1 x power
// 10..50 W step 1 (3 x 6,560).
std::vector<Problem> concurrent_reference_problems(Objective objective = Objective::per_window);

struct StrategyScore {
  std::string strategy;
  int configurations = 0;
  int with_optimum = 0;        // the oracle found a feasible configuration
  int met = 0;                 // of those: the strategy's choice met every budget on the truth
  double mean_ratio = 0;       // of those: mean of objective / the oracle's (0 when not met)
  double p5_ratio = 0;         // 5th percentile (nearest rank) of the same ratios
  double mean_modes = 0;       // distinct modes profiled per configuration
  double mean_tries = 0;       // the strategy's own count (GMD's tries)
  double profiling_hours = 0;  // simulated profiling time, all configurations together
  double met_pct() const { return with_optimum == 0 ? 100.0 : 100.0 * met / with_optimum; }
};

struct CompareOptions {
  StrategyOptions strategy = {};
  ProfilerOptions profiler = {};
  // The grid the optimum is searched on; absent = each problem's own grid. (A wider grid than the
  // strategy's shows what a fixed grid costs.)
  std::optional<std::string> oracle_grid = std::nullopt;
};

// Runs `strategy` (a name of strategy_registry()) on every problem with a fresh Profiler and
// scores it against the oracle on `truth`. The ratio compares the problem's objective on the true
// steady state (training minibatches per window, or per second; training only: per second);
// where the optimum trains nothing, a choice that meets the budgets scores 1. The oracle's table
// is built once per (training, stream, grid, power kind).
StrategyScore compare_strategy(const std::string& strategy, const std::vector<Problem>& problems,
                               const GroundTruth& truth, const CompareOptions& options = {});

}  // namespace fulcrum::sim::search
