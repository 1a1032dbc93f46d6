// The built-in strategies (docs/SEARCH.md describes each one's steps) and what they share.
//   maxn     MAXN, the largest batch size that meets the budgets there; 1 mode
//   presets  the NVIDIA preset with the highest nominal budget within the power budget; 1 mode
//   random   k random modes, the best feasible observed (k: 10 training-only; 10 per batch size)
//   binary   multi-dimensional binary search, round-robin CPU, GPU, cores, EMC, no backtracking
//   gmd      the published GMD, exactly (reference/measurements/README.md)
//   gmd+     GMD without its demonstrated weaknesses (see gmd.hpp)
//   oracle   the full grid on the ground truth (the only strategy that reads it)
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "models/device/power_mode.hpp"
#include "sim/search/profiler.hpp"
#include "sim/search/steady_state.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// Profiles what `problem` needs at `mode` (its training, each stream at its batch size) and
// returns the measured steady state; nullopt when a measurement was refused or has no data.
std::optional<SteadyState> profile_state(const Problem& problem, Profiler& profiler,
                                         const models::PowerMode& mode,
                                         const std::vector<int>& batches);

// A candidate a strategy has measured, and the best of several.
struct Measured {
  models::PowerMode mode;
  std::vector<int> batches;
  SteadyState state;
};
// The best feasible of `seen` for the problem's objective; nullopt when none is feasible.
std::optional<Measured> best_feasible(const Problem& problem, const std::vector<Measured>& seen);
// A Choice from a measured candidate (or "not found" with `note`); its predicted power is the one
// `kind` judges.
Choice choice_from(const std::optional<Measured>& best, int tries, std::string note = {},
                   PowerConstraint kind = PowerConstraint::max_of_phases);

// The grid's MAXN: the top value of every axis.
models::PowerMode grid_max(const models::ModeSpace& grid);

std::unique_ptr<Strategy> make_maxn(const StrategyOptions& options);
std::unique_ptr<Strategy> make_presets(const StrategyOptions& options);
std::unique_ptr<Strategy> make_random(const StrategyOptions& options);
std::unique_ptr<Strategy> make_binary(const StrategyOptions& options);
std::unique_ptr<Strategy> make_oracle(const StrategyOptions& options);

}  // namespace fulcrum::sim::search
