// Strategies that learn the whole grid from a sample (docs/SEARCH.md, "Learned strategies"):
//   nn          k random modes profiled, per-workload MLPs fitted from scratch on them
//               (models/learn fit_mode_predictor), every grid mode predicted
//   powertrain  the same sample, the committed resnet18 reference networks transferred and
//               fine-tuned on it (transfer_mode_predictor), every grid mode predicted
// Both then scan the predicted candidates (every mode x batch combination, predicted time and
// power raised by kLearnedSafetyMargin, 0) for the best predicted-feasible one, profile it to
// verify, and answer the best *measured* feasible configuration: the verified prediction, or the
// best of the sample when the prediction misses the budgets on measurement.
//
//   StrategyRegistry r;
//   add_learned_strategies(r);
//   Choice c = run_strategy(*r.make("powertrain", {.k = 20, .seed = 1}), problem, context);
#pragma once

#include <memory>
#include <string>

#include "models/learn/mode_predictor.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// Predicted minibatch time and power are multiplied by 1 + this before the scan. 0: the chosen
// mode is verified by profiling anyway, and over the concurrent reference configurations (seed 1,
// per window) a margin only costs throughput: mean ratio nn 0.893 / 0.889 / 0.880, powertrain
// 0.906 / 0.880 / 0.867 at 0 / 5% / 10%, budgets met 98.7-98.8% / 98.6% / 98.6%
// (docs/SEARCH.md, "Learned strategies").
inline constexpr double kLearnedSafetyMargin = 0.0;

// Modes sampled when StrategyOptions::k is absent (the README's RND budget, 50 modes).
inline constexpr int kLearnedDefaultSample = 50;

// The committed PowerTrain reference networks (models/data, kPowertrainReferenceWeights under
// default_data_dir()), read once per process; InputError when the file is missing or malformed.
const models::MlpModePredictor& powertrain_reference();

std::unique_ptr<Strategy> make_nn(const StrategyOptions& options);
std::unique_ptr<Strategy> make_powertrain(const StrategyOptions& options);

// Registers nn and powertrain (default budget: the sample plus one verification mode).
void add_learned_strategies(StrategyRegistry& registry);

}  // namespace fulcrum::sim::search
