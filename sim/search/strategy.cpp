#include "sim/search/strategy.hpp"

#include <utility>

#include "models/error.hpp"
#include "sim/search/prior.hpp"

namespace fulcrum::sim::search {

SearchContext make_context(const GroundTruth& truth, const Problem& problem, std::uint64_t seed) {
  check_problem(problem);
  SearchContext ctx{
      truth, truth.device(), models::ModeSpace::grid(truth.device(), problem.grid), {}, seed};
  if (!problem.training.empty() &&
      truth.batch_sizes(problem.training, models::Phase::training).empty()) {
    throw InputError("training workload '" + problem.training + "' is unknown to the " +
                     truth.name() + " ground truth");
  }
  for (const SearchStream& s : problem.streams) {
    std::vector<int> known = truth.batch_sizes(s.workload, models::Phase::inference);
    if (known.empty()) {
      throw InputError("inference workload '" + s.workload + "' is unknown to the " + truth.name() +
                       " ground truth");
    }
    ctx.stream_batches.push_back(s.batch_sizes.empty() ? known : s.batch_sizes);
  }
  return ctx;
}

void StrategyRegistry::add(StrategyInfo info) {
  if (infos_.count(info.name) != 0) {
    throw InputError("strategy '" + info.name + "' is registered twice");
  }
  std::string name = info.name;
  infos_.emplace(std::move(name), std::move(info));
}

const StrategyInfo* StrategyRegistry::find(std::string_view name) const {
  const auto it = infos_.find(name);
  return it == infos_.end() ? nullptr : &it->second;
}

std::vector<std::string> StrategyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : infos_) out.push_back(name);
  return out;
}

std::unique_ptr<Strategy> StrategyRegistry::make(std::string_view name,
                                                 const StrategyOptions& options) const {
  const StrategyInfo* info = find(name);
  if (info == nullptr) {
    std::string known;
    for (const auto& [n, i] : infos_) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
  }
  StrategyOptions o = options;
  if (!o.max_modes) o.max_modes = info->default_budget;
  return info->make(o);
}

const StrategyRegistry& strategy_registry() {
  static const StrategyRegistry registry = [] {
    StrategyRegistry r;
    add_builtin_strategies(r);
    add_model_strategies(r);
    return r;
  }();
  return registry;
}

Choice run_strategy(Strategy& strategy, const Problem& problem, const SearchContext& context,
                    ProfilerOptions options) {
  if (!options.max_modes) options.max_modes = strategy.max_modes();
  Profiler profiler(context.truth, options);
  Choice c = strategy.choose(problem, profiler, context);
  c.cost = profiler.cost();
  c.strategy = strategy.name();
  return c;
}

}  // namespace fulcrum::sim::search
