// `fulcrum optimize` as a function: a scenario with a `search:` block becomes a search problem
// (search::problem_from, shared with `sweep`), its strategy chooses a power mode and batch sizes
// through the Profiler on the ground truth the block names (search::make_ground_truth), the choice
// and the oracle's are judged on that truth, and the scenario runs in the choice through
// RunPlan::with_mode / with_batch_sizes. The search's result is kept whatever happens to that run.
//
//   OptimizeResult r = app::optimize({.plan = {.scenario_path =
//   "scenarios/optimize-measured.yaml"}}); std::cout << optimize_summary(r.report);            //
//   sim/report/optimize_report.hpp if (r.run_failure) std::rethrow_exception(r.run_failure);
#pragma once

#include <exception>
#include <filesystem>
#include <optional>
#include <string>

#include "sim/app/run_plan.hpp"
#include "sim/report/optimize_report.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::app {

struct OptimizeRequest {
  PlanRequest plan;  // the scenario, --set, --seed, the data folder
  // Holding measurements/ (the `table` ground truth); absent: $FULCRUM_REFERENCE_DIR (a relative
  // one from the scenario's folder, as its ${FULCRUM_REFERENCE_DIR} paths) or the build's.
  std::optional<std::string> reference_dir = std::nullopt;
  // Where optimize.json goes (checked before the search: check_output_folder); absent:
  // default_optimize_folder() of the scenario's name.
  std::optional<std::filesystem::path> out_dir = std::nullopt;
  // The strategies `search.strategy` may name; null: the built-ins (search::strategy_registry()).
  const search::StrategyRegistry* strategies = nullptr;
};

struct OptimizeResult {
  OptimizeReport report;
  std::filesystem::path folder;  // the checked output folder
  // The event-driven run's failure (report.event_driven_error says it in words), to rethrow
  // once the search's result is out; null when it ran or there was no choice.
  std::exception_ptr run_failure;
  // The signal that stopped the event-driven run (sim/report/interrupt.hpp); the report then has
  // everything but the run.
  std::optional<int> interrupted_by;
};

// Bad input (no `search:` block, an unknown strategy, a workload or batch size the ground truth
// lacks, arrivals the closed form cannot pose, ...) throws InputError located in the scenario
// before any search.
OptimizeResult optimize(const OptimizeRequest& request);

// Publishes the report's optimize.json into result.folder as `run` publishes a file: a lock
// beside it (optimize.json.lock; another optimize writing it is an InputError, exit 2), staged
// in optimize.json.partial and renamed into place (never half a JSON); an interrupt leaves
// nothing. Returns the file's path.
std::filesystem::path publish(const OptimizeResult& result);

// The folder optimize writes by default: out/optimize-NAME, NAME without a leading "optimize-".
std::string default_optimize_folder(const std::string& scenario_name);

}  // namespace fulcrum::sim::app
