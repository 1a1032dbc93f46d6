// A sweep file (schema: docs/SEARCH.md, "Sweep files"): the grid of search configurations that
// `fulcrum sweep` runs every strategy on -- workload sets x arrival cases x latency budgets x
// power budgets x ground truths -- and how a configuration index maps to one of them.
//
//   SweepSpec spec = load_sweep("scenarios/sweeps/small.yaml");   // located one-line errors
//   std::size_t n = spec.configurations();
//   SweepConfig c = spec.config(17);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/scenario/search_vocabulary.hpp"
#include "sim/search/problem.hpp"
#include "sim/search/problem_builder.hpp"

namespace fulcrum::sim::sweep {

// A training workload with one or two inference streams (both streams get the configuration's
// arrival rate and latency budget).
struct WorkloadSet {
  std::string training;
  std::vector<std::string> inference;  // 1 or 2
  SourceLocation where;                // of its entry in the sweep file
  std::string label() const;           // "resnet18/mobilenet_v3" or "resnet18/lstm+resnet50"
};

// One arrival case: a fixed rate (one entry) or piecewise rates of equal length, the search
// re-optimising at each change (several entries).
struct ArrivalCase {
  std::vector<double> rates_per_s;
  bool dynamic() const { return rates_per_s.size() > 1; }
  std::string label() const;  // "30" or "30>90>60"
};

struct StrategyEntry {
  std::string name;
  std::optional<int> max_modes;  // absent: the strategy's default budget
};

struct SweepSpec {
  std::string source;  // the file
  // Names the output files (out/sweep-NAME.csv): letters, digits, '.', '_', '-', not starting
  // with '.'.
  std::string name;
  // 64-bit FNV-1a of the sweep file's bytes, as 16 hex digits: every CSV of the sweep carries it
  // so that `--merge` refuses a shard of another sweep file.
  std::string digest;
  std::uint64_t seed = 1;
  std::string grid = "pagoda-441";
  std::optional<SourceLocation> grid_where;  // of `grid:` in the sweep file, when it is there
  search::Objective objective = search::Objective::per_window;
  search::PowerConstraint power_kind = search::PowerConstraint::max_of_phases;
  // Idle power for time-weighted power; absent: the device catalog's idle_w, as `fulcrum
  // optimize` charges (SweepTruths::catalog_idle_power_w()).
  std::optional<double> idle_power_w;
  std::vector<GroundTruthKind> ground_truths{GroundTruthKind::table};
  std::vector<WorkloadSet> workloads;
  std::vector<ArrivalCase> arrivals;
  std::vector<double> latency_budgets_s;
  std::vector<double> power_budgets_w;
  std::vector<StrategyEntry> strategies;
  // The Profiler's method (reference/measurements/README.md defaults) and noise.
  double settle_s = 2.5;
  int minibatches = 40;
  double noise = 0;

  // Number of configurations: truths x workload sets x arrivals x latencies x powers.
  std::size_t configurations() const;
};

// 64-bit FNV-1a of `bytes` as 16 lower-case hex digits.
std::string text_digest(const std::string& bytes);

// One configuration; indices into the spec's lists. Order: ground truth slowest, then workload
// set, arrival case, latency budget and power budget fastest.
struct SweepConfig {
  std::size_t index = 0;
  std::size_t truth = 0;
  std::size_t workloads = 0;
  std::size_t arrival = 0;
  std::size_t latency = 0;
  std::size_t power = 0;
};
SweepConfig config_at(const SweepSpec& spec, std::size_t index);

// What a workload set of the spec asks of the search (search::problem_from() turns it into the
// problem its ground truth answers): its workloads, the spec's objective, power constraint, idle
// power and grid. Rates and budgets are set per configuration by problem_at().
search::ProblemRequest request_of(const SweepSpec& spec, std::size_t workload_set);

// The problem of a configuration at one arrival rate (a segment of a dynamic case), from the
// problem of its workload set (problem_from(request_of(...))).
search::Problem problem_at(const search::Problem& base, const SweepSpec& spec,
                           const SweepConfig& config, double arrival_per_s);

// Reads and checks a sweep file; every error is an InputError "file:line:col: key.path: problem".
// `known_strategies` (sorted) are the names a strategy entry may use.
SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& known_strategies);
// `display_name` stands for the file in errors; the digest is of `text`.
SweepSpec parse_sweep(const std::string& text, const std::string& display_name,
                      const std::vector<std::string>& known_strategies);

}  // namespace fulcrum::sim::sweep
