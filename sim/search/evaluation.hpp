// Judging on the ground truth: the Oracle (brute force over a grid) and the Scorer (a choice's
// true steady state and whether it met the budgets). Both read the truth with their TruthKey;
// no strategy but `oracle` can.
//
//   Outcome o = Scorer::evaluate(problem, choice, truth);
//   Choice best = Oracle::solve(problem, context);
#pragma once

#include <optional>
#include <vector>

#include "sim/search/ground_truth.hpp"
#include "sim/search/measured_set.hpp"
#include "sim/search/problem.hpp"
#include "sim/search/steady_state.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// A choice judged on the ground truth.
struct Outcome {
  bool found = false;        // the strategy answered something
  bool measured = false;     // the truth has values for it
  SteadyState actual;        // its true steady state
  bool budgets_met = false;  // stable, latency and power budgets met on the truth
};

class Scorer {
 public:
  static Outcome evaluate(const Problem& problem, const Choice& choice, const GroundTruth& truth);
};

// The budgets under which some configuration of the grid would let training run (at least one
// minibatch per window, or a positive rate per second under Objective::per_second), each with
// the other budget kept: the smallest latency budget (absent where none would do, or where the
// problem has no stream) and the smallest power budget (absent where none would do).
struct TrainingBudgets {
  bool trains_now = false;  // some configuration trains within the problem's own budgets
  std::optional<double> latency_budget_s;
  std::optional<double> power_budget_w;
};

class Oracle {
 public:
  // Brute force over context.grid and every batch combination (one or two streams), for
  // explaining an answer that trains nothing.
  static TrainingBudgets training_budgets(const Problem& problem, const SearchContext& context);
  // How many modes of context.grid the truth has every value of `problem` at (its training, and
  // each stream at each candidate batch size): fewer than the grid's size means a strategy can
  // profile modes that teach it nothing.
  static std::size_t measured_modes(const Problem& problem, const SearchContext& context);
  // The best feasible configuration of `problem` over context.grid on the ground truth (ties:
  // smaller t_in, then grid order); found = false when none is feasible. Reads the truth only.
  static Choice solve(const Problem& problem, const SearchContext& context);
  // The candidate table of `problem` over context.grid (first stream), for scanning many budgets
  // and arrival rates of the same workloads.
  static CandidateTable table(const Problem& problem, const SearchContext& context);
  // Every mode of context.grid measured for `problem`'s series, exactly as the truth has them
  // (never through a noisy Profiler, and charged to no one): answer() then gives the oracle's
  // choice for any budgets and arrival rate of the same workloads, as solve() would.
  static MeasuredSet grid_set(const Problem& problem, const SearchContext& context);
};

}  // namespace fulcrum::sim::search
