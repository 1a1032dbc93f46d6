// `prior`: a physics prior corrected by few profiles, sampling where the problem's optimum is
// likely (docs/SEARCH.md, "prior").
//
// Per series (the training workload, every stream at every batch size) a GP on log time and one
// on power, each on top of a mean: the prior's prediction where one is plugged in (ModePrior,
// e.g. the analytic model through PerfModelPrior), plus a power law in the four mode axes fitted
// to the profiles (the linear mean on log features, surrogate.hpp). Seeded with a few
// space-filling modes, it then profiles, one at a time, the mode whose optimistic estimate (times
// mean - kappa sd, power mean - kappa sd) gives the best objective for this problem, and stops
// when no unprofiled mode can beat the best measured feasible one even optimistically, or at its
// budget. The answer is the best measured feasible configuration (never a prediction), so it
// meets the budgets on an exact ground truth.
//
//   PriorStrategy s({.max_modes = 15});
//   Choice c = run_strategy(s, problem, context);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/phase_cost.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// What a strategy may believe about a mode before profiling it: any model, never the truth.
class ModePrior {
 public:
  virtual ~ModePrior() = default;
  virtual std::string name() const = 0;
  // nullopt where the prior has nothing to say (the GP then works without an offset).
  virtual std::optional<MeasuredPoint> predict(std::string_view workload, models::Phase phase,
                                               int batch_size,
                                               const models::PowerMode& mode) const = 0;
};

// A PerfModel (e.g. the analytic model, or a cross-mode calibrated one) as a prior. `model` and
// `device` must outlive it; workloads are looked up in the catalog by the measurement names.
class PerfModelPrior : public ModePrior {
 public:
  PerfModelPrior(const models::DeviceSpec& device, const models::PerfModel& model)
      : device_(device), model_(model) {}
  std::string name() const override { return model_.name(); }
  std::optional<MeasuredPoint> predict(std::string_view workload, models::Phase phase,
                                       int batch_size,
                                       const models::PowerMode& mode) const override;

 private:
  const models::DeviceSpec& device_;
  const models::PerfModel& model_;
};

struct PriorOptions {
  int max_modes = 15;  // profiling budget, the published GMD's
  int seed_modes = 4;  // space-filling sample before the guided loop
  double kappa = 1.0;  // optimism of the guided loop
};

class PriorStrategy : public Strategy {
 public:
  // `prior` may be null: the power-law mean alone.
  explicit PriorStrategy(PriorOptions options = {}, std::shared_ptr<const ModePrior> prior = {})
      : options_(options), prior_(std::move(prior)) {}
  std::string name() const override { return "prior"; }
  std::optional<int> max_modes() const override { return options_.max_modes; }
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override;

 private:
  PriorOptions options_;
  std::shared_ptr<const ModePrior> prior_;
};

std::unique_ptr<Strategy> make_prior(const StrategyOptions& options);

// Registers `als` and `prior` (strategy_registry() holds them with the built-ins).
void add_model_strategies(StrategyRegistry& registry);

}  // namespace fulcrum::sim::search
