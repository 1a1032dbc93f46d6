// GMD, the published multi-dimensional descent (reference/measurements/README.md, "GMD, as the
// reference results were produced"), reproduced row for row (tests/sim/search/gmd_golden_test.cpp),
// and `gmd+`, a variant without the published version's weaknesses (docs/SEARCH.md).
//
// The published rules, with the two details the reference files pin and the README leaves open:
// - the pair update tests the power of the NEW mode in training-only searches, and of the mode
//   before the move in concurrent searches;
// - a backtracking probe that succeeds is not counted as a try (only the failed probes are).
// Slopes s_d = |(dt/dx)/(dp/dx)| reduce to |dt/dp|: x cancels (it only has to differ, which the
// pair's modes always do).
#pragma once

#include <memory>
#include <optional>

#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

struct GmdOptions {
  // false: the published GMD exactly. true: gmd+ (Problem::objective and power_kind, every batch
  // size at every profiled mode, hill-climbing on the best found while budget remains).
  bool improved = false;
  std::optional<int> max_modes = std::nullopt;  // profiling budget (distinct modes)
};

// The GMD tries the MAXN batch-size check is charged for the chosen batch size (README: 5, 4, 4,
// 3, 2, 1 for b = 1, 4, 8, 16, 32, 64); for a size not in that table, the sizes checked.
int gmd_maxn_checks(int batch_size, int sizes_checked);

std::unique_ptr<Strategy> make_gmd(const StrategyOptions& options);
std::unique_ptr<Strategy> make_gmd_plus(const StrategyOptions& options);

}  // namespace fulcrum::sim::search
