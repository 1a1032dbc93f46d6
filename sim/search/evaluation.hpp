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

class Oracle {
 public:
  // The best feasible configuration of `problem` over context.grid on the ground truth (ties:
  // smaller t_in, then grid order); found = false when none is feasible. Reads the truth only.
  static Choice solve(const Problem& problem, const SearchContext& context);
  // The candidate table of `problem` over context.grid (first stream), for scanning many budgets
  // and arrival rates of the same workloads.
  static CandidateTable table(const Problem& problem, const SearchContext& context);
};

}  // namespace fulcrum::sim::search
