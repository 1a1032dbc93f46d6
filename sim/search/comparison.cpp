#include "sim/search/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "sim/search/evaluation.hpp"

namespace fulcrum::sim::search {

std::vector<Problem> training_reference_problems(Objective objective) {
  std::vector<Problem> out;
  for (const char* w : {"resnet18", "mobilenet_v3", "bert_base", "lstm"}) {
    const int top = std::string(w) == "bert_base" ? 60 : 50;
    for (int watts = 10; watts <= top; ++watts) {
      Problem p;
      p.training = w;
      p.power_budget_w = watts;
      p.objective = objective;
      out.push_back(p);
    }
  }
  return out;
}

std::vector<Problem> concurrent_reference_problems(Objective objective) {
  std::vector<Problem> out;
  const std::pair<const char*, const char*> pairs[] = {
      {"resnet18", "mobilenet_v3"}, {"mobilenet_v3", "lstm"}, {"mobilenet_v3", "mobilenet_v3"}};
  for (const auto& [train, infer] : pairs) {
    for (int a = 30; a <= 120; a += 10) {
      for (int l = 5; l <= 20; ++l) {
        for (int watts = 10; watts <= 50; ++watts) {
          Problem p;
          p.training = train;
          // Latency in tenths, as the reference writes them (0.5, 0.6, ... without float drift).
          p.streams.push_back({infer, static_cast<double>(a), l / 10.0, {}});
          p.power_budget_w = watts;
          p.objective = objective;
          out.push_back(p);
        }
      }
    }
  }
  return out;
}

StrategyScore compare_strategy(const std::string& name, const std::vector<Problem>& problems,
                               const GroundTruth& truth, const CompareOptions& options) {
  StrategyScore score;
  score.strategy = name;
  const std::unique_ptr<Strategy> strategy = strategy_registry().make(name, options.strategy);
  using TableKey = std::tuple<std::string, std::string, std::string, int>;
  std::map<TableKey, CandidateTable> tables;
  std::vector<double> ratios;
  double modes = 0;
  double tries = 0;
  double seconds = 0;
  for (const Problem& p : problems) {
    const SearchContext ctx = make_context(truth, p, options.strategy.seed);
    const Choice c = run_strategy(*strategy, p, ctx, options.profiler);
    ++score.configurations;
    modes += c.cost.modes;
    tries += c.tries;
    seconds += c.cost.seconds;
    // The optimum: one candidate table per workload pair and grid; two streams brute force.
    // The objective's value: training minibatches per window (per-window problems with a stream)
    // or per second.
    const bool per_window = p.objective == Objective::per_window && !p.streams.empty();
    auto value = [&p](const SteadyState& s) { return objective_value(p, s); };
    double best_value = 0;
    bool optimum = false;
    Problem judged = p;
    if (options.oracle_grid) judged.grid = *options.oracle_grid;
    if (p.streams.size() <= 1) {
      const TableKey key{p.training, p.streams.empty() ? "" : p.streams[0].workload, judged.grid,
                         static_cast<int>(p.power_kind)};
      auto it = tables.find(key);
      if (it == tables.end()) {
        it = tables.emplace(key, Oracle::table(judged, make_context(truth, judged))).first;
      }
      const CandidateTable::Best b = it->second.best(p);
      optimum = b.found;
      best_value = value(b.state);
    } else {
      const Choice o = Oracle::solve(judged, make_context(truth, judged));
      optimum = o.found;
      best_value = per_window ? static_cast<double>(o.predicted_per_window) : o.predicted_per_s;
    }
    if (!optimum) continue;
    ++score.with_optimum;
    const Outcome out = Scorer::evaluate(p, c, truth);
    double ratio = 0;
    if (out.budgets_met) {
      ++score.met;
      ratio = best_value > 0 ? value(out.actual) / best_value : 1.0;
    }
    ratios.push_back(ratio);
  }
  if (score.configurations > 0) {
    score.mean_modes = modes / score.configurations;
    score.mean_tries = tries / score.configurations;
  }
  score.profiling_hours = seconds / 3600.0;
  if (!ratios.empty()) {
    double sum = 0;
    for (double r : ratios) sum += r;
    score.mean_ratio = sum / static_cast<double>(ratios.size());
    std::sort(ratios.begin(), ratios.end());
    const std::size_t rank =
        static_cast<std::size_t>(std::ceil(0.05 * static_cast<double>(ratios.size())));
    score.p5_ratio = ratios[rank == 0 ? 0 : rank - 1];
  }
  return score;
}

}  // namespace fulcrum::sim::search
