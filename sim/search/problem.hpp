// The search problem (reference/measurements/README.md, "The problem as AutoCITE defined it"):
// which power mode and inference batch size make training as fast as possible while every
// inference stream meets its latency budget and the device its power budget. `Problem` is what a
// strategy is asked, `Choice` what it answers, `ProfilingCost` what answering cost.
//
//   Problem p;
//   p.training = "resnet18";
//   p.streams.push_back({.workload = "mobilenet_v3", .arrival_per_s = 30, .latency_budget_s =
//   0.5}); p.power_budget_w = 25; p.objective = Objective::per_window;   // the published objective
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "sim/scenario/search_vocabulary.hpp"

namespace fulcrum::sim::search {

// The vocabulary shared with scenario and sweep files (sim/scenario/search_vocabulary.hpp).
using sim::Objective;
using sim::PowerConstraint;
using sim::to_string;

// One inference stream of the search problem (named so as not to clash with the scenario's
// InferenceStreamSpec): fixed arrivals, a peak-latency budget and the batch sizes to consider.
struct SearchStream {
  std::string workload;  // as the ground truth names it: "mobilenet_v3", "bert_large", ...
  double arrival_per_s = 0;
  // Peak-latency budget; absent: none (the stream must only be stable).
  std::optional<double> latency_budget_s = std::nullopt;
  // Candidate inference batch sizes, ascending; empty = every size the ground truth measured.
  std::vector<int> batch_sizes = {};

  // The budget as an upper bound on peak latency: +infinity where there is none.
  double latency_bound_s() const {
    return latency_budget_s.value_or(std::numeric_limits<double>::infinity());
  }
};

struct Problem {
  std::string training;               // training workload, e.g. "resnet18"; empty = inference only
  int training_batch = 16;            // the measurements' training minibatch
  std::vector<SearchStream> streams;  // zero (training only), one or two
  std::optional<double> power_budget_w;
  PowerConstraint power_kind = PowerConstraint::max_of_phases;
  Objective objective = Objective::per_second;
  // Module power while the GPU idles, for PowerConstraint::time_weighted (the measurements have
  // no idle figure; the caller states it, usually catalog_idle_power_w()).
  double idle_power_w = 0;
  // The mode grid a strategy searches: a grid name of the device ("pagoda-441",
  // "powertrain-4368").
  std::string grid = "pagoda-441";
};

// Throws InputError naming the key path ("streams[0].arrival_per_s: must be > 0, got 0") for a
// problem no strategy can answer: a training minibatch or arrival rate or latency budget that is
// not positive, more than two streams, batch sizes not positive and ascending, a power budget
// that is not positive, a negative idle power, no grid. make_context() calls it.
void check_problem(const Problem& problem);

// The idle figure `fulcrum optimize` and `fulcrum sweep` charge idle time at under
// time-weighted power: the device catalog's idle_w (its source is in the device file), 0 where
// the catalog has none.
double catalog_idle_power_w(const models::DeviceSpec& device);

// What profiling cost so far (Profiler::cost()).
struct ProfilingCost {
  int modes = 0;         // distinct power modes profiled
  int measurements = 0;  // (mode, workload, phase, batch size) measurements taken
  double seconds = 0;    // simulated profiling time: settle time + N minibatches each
  int refused = 0;       // requests refused because they would exceed max_modes
};

// A strategy's answer.
struct Choice {
  bool found = false;            // false: no configuration the strategy saw meets the budgets
  models::PowerMode mode;        // valid when found
  std::vector<int> batch_sizes;  // one per Problem::streams entry, valid when found
  // What the strategy believes of its choice (from what it profiled or predicted): training
  // minibatches per window of the first stream (0 without streams) and per second, power.
  long predicted_per_window = 0;
  double predicted_per_s = 0;
  double predicted_power_w = 0;
  // The strategy's own count of evaluations, as the published GMD counts "tries" (modes profiled
  // plus MAXN checks plus backtracking probes); for other strategies the modes profiled.
  int tries = 0;
  ProfilingCost cost;  // filled by run_strategy from the Profiler
  std::string strategy;
  std::string note;  // how it was found or why nothing was
};

}  // namespace fulcrum::sim::search
