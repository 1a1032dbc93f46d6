// Running a sweep: every configuration of a SweepSpec with every strategy, on all cores, one CSV
// row per (configuration, strategy) in configuration order, and the per-strategy summary
// (docs/SEARCH.md, "fulcrum sweep"). `--shard K/N` runs the K-th of N contiguous slices of the
// configurations; merge_sweep() joins shard CSVs into the bytes an unsharded run writes.
//
//   SweepTruths truths = SweepTruths::load(spec, data_dir, measurements_dir);
//   std::ofstream csv(path);
//   SweepSummary s = run_sweep(spec, truths, {.threads = 0}, csv);
//   std::cout << format_summary(s);
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/perf/perf_model.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace fulcrum::sim::sweep {

// The ground truths a sweep names, loaded once: the measured Orin AGX tables and/or the
// analytic model of the same device.
class SweepTruths {
 public:
  // `measurements_dir`: reference/measurements (needed for "table"); `data_dir`: the device
  // catalog and calibrations. InputError when something is missing.
  static SweepTruths load(const SweepSpec& spec, const std::string& data_dir,
                          const std::string& measurements_dir);
  const search::GroundTruth& at(std::size_t i) const { return *truths_.at(i); }
  // The idle power a configuration charges where the sweep file sets none: the catalog's idle_w
  // of the sweep's device (search::catalog_idle_power_w(), as `fulcrum optimize`).
  double catalog_idle_power_w() const { return catalog_idle_power_w_; }
  // The data folder it was loaded from (the strategies read their reference networks there).
  const std::string& data_dir() const { return data_dir_; }

 private:
  std::unique_ptr<models::DeviceCatalog> catalog_;
  double catalog_idle_power_w_ = 0;
  std::string data_dir_;
  std::unique_ptr<models::PerfModel> analytic_;
  std::vector<std::unique_ptr<search::GroundTruth>> truths_;
};

struct SweepOptions {
  std::string version = "";  // the build's version, written in the CSV's header
  unsigned threads = 0;      // 0 = every core
  std::size_t shard = 1;     // 1-based
  std::size_t shards = 1;
  // Called from the calling thread after each chunk: configurations done, of the shard's total.
  std::function<void(std::size_t done, std::size_t total)> progress = {};
  // Where the strategies the sweep names are made; null: the built-ins (search::strategy_registry).
  // A registry extended with strategies written elsewhere (Python: python/search_module.cpp).
  const search::StrategyRegistry* strategies = nullptr;
};

// Per strategy, over the configurations with a feasible optimum (on the ground truth).
struct StrategySummary {
  std::string strategy;
  std::size_t configurations = 0;
  std::size_t feasible = 0;    // configurations where the oracle found a configuration
  std::size_t met = 0;         // of those, where the strategy's choice met both budgets
  double mean_ratio = 0;       // objective / oracle's (0 where budgets were missed)
  double p5_ratio = 0;         // 5th percentile of the same
  double mean_modes = 0;       // distinct modes profiled per configuration (all configurations)
  double profiling_hours = 0;  // total simulated profiling time; a reused set counted once
  std::size_t mode_switches = 0;
};
struct SweepSummary {
  std::string name;
  std::size_t configurations = 0;
  std::vector<StrategySummary> strategies;
};

// The CSV's two header lines: a comment naming the sweep, its size, its strategies, the sweep
// file's digest and the build's version, then the column names.
std::string csv_header(const SweepSpec& spec, const std::string& version);

SweepSummary run_sweep(const SweepSpec& spec, const SweepTruths& truths,
                       const SweepOptions& options, std::ostream& csv);

// Joins shard CSVs of one sweep (any order; LF or CRLF line ends) into `csv`: the same header in
// every file -- the same sweep file digest, written by this build's `version` --, each
// configuration exactly once over all of them, with one row per strategy in the header's order.
// InputError "file:line:col: problem" otherwise.
SweepSummary merge_sweep(const std::vector<std::string>& shard_files, std::ostream& csv,
                         const std::string& version);

// merge_sweep() over shard CSVs held in memory: (name for its errors, the CSV's text) in any
// order (sim/mpi/ gathers each rank's slice of a sweep so).
SweepSummary merge_sweep_parts(std::vector<std::pair<std::string, std::string>> parts,
                               std::ostream& csv, const std::string& version);

// The summary as a text table, one line per strategy.
std::string format_summary(const SweepSummary& summary);

// "K/N" -> (K, N) with 1 <= K <= N; InputError otherwise.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text);

}  // namespace fulcrum::sim::sweep
