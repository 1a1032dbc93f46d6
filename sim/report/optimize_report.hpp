// OptimizeReport: what `fulcrum optimize` found, as plain figures -- the search's choice, its
// closed-form and event-driven figures, the budgets, the profiling cost, the oracle's choice --
// and its two renderings: optimize.json (schema: docs/SEARCH.md, "fulcrum optimize") and the
// human summary the verb prints.
//
//   OptimizeReport r = app::optimize(request);   // sim/app/optimize.hpp
//   AtomicFile f(dir / "optimize.json"); f.write(optimize_json(r)); ...
//   std::cout << optimize_summary(r);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/runtime/run_result.hpp"

namespace fulcrum::sim {

// A closed-form steady state, judged on the ground truth.
struct OptimizeState {
  bool stable = false;
  long per_window = 0;  // training minibatches per window of the first stream
  double per_s = 0;     // training minibatches per second
  double peak_latency_s = 0;
  double power_w = 0;  // the power the problem's constraint judges
  double power_max_of_phases_w = 0;
  double power_time_weighted_w = 0;
  bool latency_met = false;
  bool power_met = false;
};

struct OptimizeChoice {
  bool found = false;
  // Valid when found.
  int cores = 0;
  double cpu_mhz = 0, gpu_mhz = 0, emc_mhz = 0;
  std::string mode_label;        // "8c/729.6/1134.75/3199 MHz"
  std::vector<int> batch_sizes;  // one per stream
  std::string note;              // how it was found, or why nothing was
};

struct OptimizeReport {
  std::string scenario;
  std::uint64_t seed = 0;
  // The search.
  std::string strategy;
  std::string ground_truth;  // "table" | "analytic"
  std::string grid;
  std::string objective;         // "per-window" | "per-second"
  std::string power_constraint;  // "max-of-phases" | "time-weighted"
  double idle_power_w = 0;
  std::optional<int> max_modes;
  // The budgets, in seconds and watts.
  std::optional<double> latency_budget_s;
  std::optional<double> power_budget_w;
  // The strategy's choice, what it believed of it, and the truth of it.
  OptimizeChoice choice;
  long predicted_per_window = 0;
  double predicted_per_s = 0;
  double predicted_power_w = 0;
  std::optional<OptimizeState> closed_form_actual;  // absent: the truth has no value there
  bool budgets_met = false;
  // The event-driven run in the choice: absent without a choice, or when it failed (then
  // event_driven_error says why) or was interrupted.
  std::optional<RunResult> event_driven;
  std::optional<std::string> event_driven_error;
  // Set when the choice trains nothing: whether any configuration of the grid trains within the
  // budgets, and the smallest latency budget (power kept) and power budget (latency kept) under
  // which one would.
  struct Training {
    bool possible = false;
    std::optional<double> latency_budget_s;
    std::optional<double> power_budget_w;
  };
  std::optional<Training> training;
  struct Profiling {
    int modes = 0;
    int measurements = 0;
    double seconds = 0;
    int tries = 0;
  };
  Profiling profiling;
  OptimizeChoice oracle;
  std::optional<OptimizeState> oracle_actual;
  // One line each: what the closed form does not model ("budgets.latency_percentile 99 ...").
  std::vector<std::string> warnings;
};

// optimize.json: one object, keys in a fixed order; same report, same bytes.
std::string optimize_json(const OptimizeReport& report);

// The human summary, one line per item, ending with a newline (without the "wrote" line).
std::string optimize_summary(const OptimizeReport& report);

}  // namespace fulcrum::sim
