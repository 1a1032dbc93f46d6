// Strategies that learn the whole grid from a sample (docs/SEARCH.md, "Learned strategies"):
//   nn          k random modes profiled, per-workload MLPs fitted from scratch on them
//               (models/learn fit_mode_predictor), every grid mode predicted
//   powertrain  the same sample, the committed resnet18 reference networks transferred and
//               fine-tuned on it (transfer_mode_predictor), every grid mode predicted
// Both then scan the predicted candidates (every mode x batch combination, predicted time and
// power raised by kLearnedSafetyMargin, 5%) for the best predicted-feasible one, profile it to
// verify, and answer the best *measured* feasible configuration: the verified prediction, or the
// best of the sample when the prediction misses the budgets on measurement.
//
//   StrategyRegistry r;
//   add_learned_strategies(r);
//   Choice c = run_strategy(*r.make("powertrain", {.k = 20, .seed = 1}), problem, context);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "models/learn/mode_predictor.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// Predicted minibatch time and power are multiplied by 1 + this before the scan: a pick within 5%
// of a budget is not trusted. Measured over the concurrent reference configurations (per window,
// seeds 1-3, docs/SEARCH.md "Learned strategies"): against no margin it meets the budgets more
// often (nn 99.1% vs 98.8%, powertrain 99.2% vs 98.7%) at the same mean ratio (nn 0.883 vs 0.879,
// powertrain 0.897 vs 0.896); the chosen mode is verified by profiling either way.
inline constexpr double kLearnedSafetyMargin = 0.05;

// Modes sampled when StrategyOptions::k is absent (the README's RND budget, 50 modes).
inline constexpr int kLearnedDefaultSample = 50;

// The predictions nn and powertrain fit are shared by every instance in the process (a sweep makes
// one instance per configuration): one entry per (learner, reference folder, series, grid, seed,
// measured rows), fitted once even when several threads ask for it at once. A fit depends on
// nothing else, so an entry gives the bits a fresh fit gives. Bounded: past the capacity the
// oldest entries are dropped (and fitted again if asked for again). Thread-safe.
inline constexpr std::size_t kLearnedFitCacheBytes = std::size_t{256} << 20;
struct LearnedFitCacheStats {
  std::uint64_t hits = 0;  // predictions served from an entry
  std::uint64_t fits = 0;  // predictions fitted (a miss, or every one when caching is off)
  std::size_t entries = 0;
  std::size_t bytes = 0;  // what the entries hold, about
};
LearnedFitCacheStats learned_fit_cache_stats();
// 0 turns caching off (every prediction is fitted); the entries beyond it are dropped now.
void set_learned_fit_cache_capacity(std::size_t bytes);
void clear_learned_fit_cache();  // drops every entry and zeroes the counts

// The committed PowerTrain reference networks (kPowertrainReferenceWeights under `data_dir`), read
// once per folder and process; InputError when the file is missing or malformed. Thread-safe.
const models::MlpModePredictor& powertrain_reference(const std::string& data_dir);

std::unique_ptr<Strategy> make_nn(const StrategyOptions& options);
std::unique_ptr<Strategy> make_powertrain(const StrategyOptions& options);

// Registers nn and powertrain (default budget: the sample plus one verification mode).
void add_learned_strategies(StrategyRegistry& registry);

}  // namespace fulcrum::sim::search
