// Strategy: one way of choosing a power mode and batch sizes for a Problem, learning about modes
// only through the Profiler it is given. Strategies are made by name from a StrategyRegistry;
// each carries its own profiling budget (StrategyOptions::max_modes, or its default), which the
// Profiler run_strategy builds enforces.
//
//   SearchContext ctx = make_context(truth, problem);
//   std::unique_ptr<Strategy> s = strategy_registry().make("gmd", {});
//   Choice c = run_strategy(*s, problem, ctx, {.seed = 7});
//   Outcome o = Scorer::evaluate(problem, c, truth);     // judged on the ground truth
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/mode_space.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/problem.hpp"
#include "sim/search/profiler.hpp"

namespace fulcrum::sim::search {

// What a strategy may know besides the problem: the device, the grid it searches, the batch
// sizes each stream may use, a seed. The ground truth is reachable only with a TruthKey (the
// oracle's).
struct SearchContext {
  const GroundTruth& truth;
  const models::DeviceSpec& device;
  models::ModeSpace grid;                        // Problem::grid of the device
  std::vector<std::vector<int>> stream_batches;  // per stream: its candidate batch sizes
  std::uint64_t seed = 0;
  // The data folder (models/data) the learned strategies read the PowerTrain reference networks
  // from: the caller's (a run plan's, a sweep's), so a run's --data folder is the one used.
  std::string data_dir = default_data_dir();
};

// The context of `problem` on `truth`'s device: its grid (InputError when unknown) and each
// stream's batch sizes (SearchStream::batch_sizes, else every size the truth knows; InputError
// when a workload is unknown to the truth).
SearchContext make_context(const GroundTruth& truth, const Problem& problem,
                           std::uint64_t seed = 0);

struct StrategyOptions {
  std::optional<int> max_modes = std::nullopt;  // profiling budget; absent = the strategy's default
  std::optional<int> k = std::nullopt;          // sample size (random), where a strategy has one
  std::uint64_t seed = 0;
  // The data folder (models/data) the learned strategies read the PowerTrain reference networks
  // from: the caller's (a run plan's, a sweep's), so a run's --data folder is the one used.
  std::string data_dir = default_data_dir();
};

// What an exploration leaves behind when it answers every problem of the same workloads (any
// budgets, any arrival rate) with no more profiling: `als` keeps its measured set.
class ReusableAnswer {
 public:
  virtual ~ReusableAnswer() = default;
  // The answer to `problem`; nullopt when it names other workloads than were explored.
  virtual std::optional<Choice> answer(const Problem& problem) const = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // The profiling budget this instance runs under (distinct modes); absent = unlimited.
  virtual std::optional<int> max_modes() const = 0;
  // Chooses for `problem`, profiling through `profiler` only.
  virtual Choice choose(const Problem& problem, Profiler& profiler,
                        const SearchContext& context) = 0;
  // For a strategy whose exploration answers every problem of the same workloads: explores for
  // `problem` through `profiler` and returns that answer. nullptr (and no profiling) for a
  // strategy that searches anew for each problem.
  virtual std::unique_ptr<ReusableAnswer> explore_reusable(const Problem& /*problem*/,
                                                           Profiler& /*profiler*/,
                                                           const SearchContext& /*context*/) {
    return nullptr;
  }
  // Whether the strategy answers from the ground truth itself instead of profiling (the oracle,
  // whose cost is not charged): a caller holding Oracle's answer to the problem may use it.
  virtual bool answers_from_truth() const { return false; }
  // Whether what the strategy learns depends on its workloads, grid and seed only, not on the
  // budgets or arrival rates (nn, powertrain: the sample and the networks fitted on it): a caller
  // solving many configurations of the same workloads may seed it once for all of them, so that
  // they profile the same sample and share the fits.
  virtual bool seeded_per_workload_set() const { return false; }
  // Whether the strategy keeps what it measured for a problem and reuses it when it is asked
  // again, through the same Profiler, for the same workloads with other rates or budgets (the
  // segments of a dynamic arrival case): a caller may then keep one instance and one Profiler
  // for all of them, so that a mode measured once is charged once. max_modes() stays the budget
  // of new modes per problem.
  virtual bool keeps_profiles() const { return false; }
};

struct StrategyInfo {
  std::string name;
  std::string summary;                // one line for --help and docs
  std::optional<int> default_budget;  // distinct modes when StrategyOptions::max_modes is absent
  std::function<std::unique_ptr<Strategy>(const StrategyOptions&)> make;
};

class StrategyRegistry {
 public:
  // InputError when the name is taken.
  void add(StrategyInfo info);
  // InputError "unknown strategy 'x' (known: a, b, ...)".
  std::unique_ptr<Strategy> make(std::string_view name, const StrategyOptions& options) const;
  const StrategyInfo* find(std::string_view name) const;
  std::vector<std::string> names() const;  // sorted

 private:
  std::map<std::string, StrategyInfo, std::less<>> infos_;
};

// The built-in strategies: maxn, presets, random, binary, gmd, gmd+, oracle.
const StrategyRegistry& strategy_registry();
// Adds the built-ins to `registry` (for a registry extended with more strategies).
void add_builtin_strategies(StrategyRegistry& registry);

// Runs `strategy` with a fresh Profiler on context.truth (options.max_modes = the strategy's
// budget unless set), and returns its choice with the profiler's cost filled in.
Choice run_strategy(Strategy& strategy, const Problem& problem, const SearchContext& context,
                    ProfilerOptions options = {});

}  // namespace fulcrum::sim::search
