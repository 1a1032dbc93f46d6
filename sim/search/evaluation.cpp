#include "sim/search/evaluation.hpp"

#include <limits>

namespace fulcrum::sim::search {

namespace {

// The true steady state of (mode, batches) for `problem`; nullopt where the truth lacks a value.
std::optional<SteadyState> true_state(TruthKey key, const Problem& problem,
                                      const GroundTruth& truth, const models::PowerMode& mode,
                                      const std::vector<int>& batches) {
  std::optional<MeasuredPoint> train;
  if (!problem.training.empty()) {
    train = truth.at(key, problem.training, models::Phase::training, problem.training_batch, mode);
    if (!train) return std::nullopt;
  }
  if (problem.streams.empty()) return steady_state(problem, train, std::nullopt, 0);
  std::vector<MeasuredPoint> infer;
  for (std::size_t i = 0; i < problem.streams.size() && i < 2; ++i) {
    const std::optional<MeasuredPoint> p =
        truth.at(key, problem.streams[i].workload, models::Phase::inference, batches.at(i), mode);
    if (!p) return std::nullopt;
    infer.push_back(*p);
  }
  if (infer.size() == 1) return steady_state(problem, train, infer[0], batches[0]);
  return steady_state_two(problem, train, infer[0], batches[0], infer[1], batches[1]);
}

}  // namespace

Outcome Scorer::evaluate(const Problem& problem, const Choice& choice, const GroundTruth& truth) {
  Outcome o;
  o.found = choice.found;
  if (!choice.found) return o;
  const std::optional<SteadyState> s =
      true_state(TruthKey{}, problem, truth, choice.mode, choice.batch_sizes);
  if (!s) return o;
  o.measured = true;
  o.actual = *s;
  o.budgets_met = s->feasible();
  return o;
}

CandidateTable Oracle::table(const Problem& problem, const SearchContext& context) {
  const TruthKey key;
  const std::vector<models::PowerMode> modes = context.grid.to_vector();
  std::vector<std::optional<MeasuredPoint>> train;
  if (!problem.training.empty()) {
    train = context.truth.series(key, problem.training, models::Phase::training,
                                 problem.training_batch, modes);
  }
  std::vector<int> batches;
  std::vector<std::vector<std::optional<MeasuredPoint>>> infer;
  if (!problem.streams.empty()) {
    batches = context.stream_batches.at(0);
    for (int b : batches) {
      infer.push_back(context.truth.series(key, problem.streams[0].workload,
                                           models::Phase::inference, b, modes));
    }
  }
  return CandidateTable(problem, batches, train, infer);
}

TrainingBudgets Oracle::training_budgets(const Problem& problem, const SearchContext& context) {
  const TruthKey key;
  TrainingBudgets out;
  std::vector<std::vector<int>> combos = {{}};
  for (std::size_t i = 0; i < problem.streams.size(); ++i) {
    std::vector<std::vector<int>> next;
    for (const std::vector<int>& c : combos) {
      for (int b : context.stream_batches.at(i)) {
        next.push_back(c);
        next.back().push_back(b);
      }
    }
    combos = std::move(next);
  }
  for (std::size_t m = 0; m < context.grid.size(); ++m) {
    const models::PowerMode mode = context.grid.at(m);
    for (const std::vector<int>& batches : combos) {
      const std::optional<SteadyState> s = true_state(key, problem, context.truth, mode, batches);
      if (!s || !s->stable) continue;
      const bool trains = problem.objective == Objective::per_window && !problem.streams.empty()
                              ? s->per_window > 0
                              : s->per_s > 0;
      if (!trains) continue;
      if (s->latency_met && s->power_met) out.trains_now = true;
      if (s->power_met && !problem.streams.empty() &&
          (!out.latency_budget_s || s->peak_latency_s < *out.latency_budget_s)) {
        out.latency_budget_s = s->peak_latency_s;
      }
      const double p = s->power_w(problem.power_kind);
      if (s->latency_met && (!out.power_budget_w || p < *out.power_budget_w)) {
        out.power_budget_w = p;
      }
    }
  }
  return out;
}

std::size_t Oracle::measured_modes(const Problem& problem, const SearchContext& context) {
  const TruthKey key;
  std::size_t count = 0;
  for (std::size_t m = 0; m < context.grid.size(); ++m) {
    const models::PowerMode mode = context.grid.at(m);
    bool all = problem.training.empty() ||
               context.truth
                   .at(key, problem.training, models::Phase::training, problem.training_batch, mode)
                   .has_value();
    for (std::size_t i = 0; all && i < problem.streams.size(); ++i) {
      for (int b : context.stream_batches.at(i)) {
        if (!context.truth.at(key, problem.streams[i].workload, models::Phase::inference, b,
                              mode)) {
          all = false;
          break;
        }
      }
    }
    if (all) ++count;
  }
  return count;
}

MeasuredSet Oracle::grid_set(const Problem& problem, const SearchContext& context) {
  MeasuredSet set = MeasuredSet::for_problem(problem, context);
  Profiler exact(context.truth);  // no noise, no budget: the truth's own values
  for (std::size_t g = 0; g < context.grid.size(); ++g) set.measure(exact, context.grid, g);
  return set;
}

Choice Oracle::solve(const Problem& problem, const SearchContext& context) {
  Choice c;
  c.strategy = "oracle";
  if (problem.streams.size() <= 1) {
    const CandidateTable t = table(problem, context);
    const CandidateTable::Best best = t.best(problem);
    if (!best.found) {
      c.note = "no mode of the grid meets the budgets";
      return c;
    }
    c.found = true;
    c.mode = context.grid.at(best.mode);
    if (!problem.streams.empty()) c.batch_sizes = {best.batch_size};
    c.predicted_per_window = best.state.per_window;
    c.predicted_per_s = best.state.per_s;
    c.predicted_power_w = best.state.power_w(problem.power_kind);
    return c;
  }
  // Two streams: brute force over modes x batch sizes of both.
  const TruthKey key;
  std::optional<SteadyState> best_state;
  for (std::size_t m = 0; m < context.grid.size(); ++m) {
    const models::PowerMode mode = context.grid.at(m);
    for (int b1 : context.stream_batches.at(0)) {
      for (int b2 : context.stream_batches.at(1)) {
        const std::optional<SteadyState> s =
            true_state(key, problem, context.truth, mode, {b1, b2});
        if (!s || !s->feasible()) continue;
        if (!best_state || better(problem.objective, *s, *best_state)) {
          best_state = s;
          c.found = true;
          c.mode = mode;
          c.batch_sizes = {b1, b2};
        }
      }
    }
  }
  if (best_state) {
    c.predicted_per_window = best_state->per_window;
    c.predicted_per_s = best_state->per_s;
    c.predicted_power_w = best_state->power_w(problem.power_kind);
  } else {
    c.note = "no mode of the grid meets the budgets";
  }
  return c;
}

}  // namespace fulcrum::sim::search
