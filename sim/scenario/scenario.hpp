// Scenario: a YAML scenario file parsed once into typed structs (schema: docs/SCENARIOS.md).
// Nothing downstream looks up strings in YAML; sim/config/scenario_loader fills these, with
// defaults applied and values range-checked, and records where each came from for errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/device/power_mode.hpp"
#include "sim/scenario/search_vocabulary.hpp"

namespace fulcrum::sim {

// The performance/power model that gives minibatch times and powers (docs/MODEL.md).
// No `perf_model` key: the device's best model, chosen when it is loaded (sim/config
// perf_model_loader.hpp, default_perf_model): analytic-modes where the device has a cross-mode
// calibration, else analytic.
struct DefaultPerfModel {};
struct AnalyticPerfModel {};  // the calibrated analytic model of the device
// The cross-mode model fitted over measured power modes (<device>-modes.yaml; Orin AGX 64GB).
struct AnalyticModesPerfModel {};
struct TablePerfModel {
  std::vector<std::string> paths;  // measured profile CSVs, resolved against the scenario's folder
};
using PerfModelChoice =
    std::variant<DefaultPerfModel, AnalyticPerfModel, TablePerfModel, AnalyticModesPerfModel>;

inline const char* perf_model_name(const PerfModelChoice& choice) {
  if (std::holds_alternative<DefaultPerfModel>(choice)) return "default";
  if (std::holds_alternative<TablePerfModel>(choice)) return "table";
  if (std::holds_alternative<AnalyticModesPerfModel>(choice)) return "analytic-modes";
  return "analytic";
}

// Device and its power mode: a preset by name, or a custom request that snaps to the tables.
struct DeviceChoice {
  std::string model = "orin-agx-64gb";
  std::optional<std::string> preset;          // "MAXN"; absent when `custom` is set
  std::optional<models::ModeRequest> custom;  // cores, cpu_mhz, gpu_mhz, emc_mhz
  std::optional<double> ram_gb;               // what-if RAM size; absent: the device's
  PerfModelChoice perf_model;
};

enum class SharingPolicy { managed, native, sequential };

// The YAML spelling of each policy (also what summary.json reports).
inline const char* to_string(SharingPolicy policy) {
  switch (policy) {
    case SharingPolicy::managed:
      return "managed";
    case SharingPolicy::native:
      return "native";
    case SharingPolicy::sequential:
      return "sequential";
  }
  return "managed";
}

// How `managed` fills the GPU between inference batches (docs/SCENARIOS.md, `gpu_sharing`).
//  - windowed (the default, the published scheme): after each inference batch, only the training
//    minibatches predicted to finish before any stream's next batch can be ready, then idle; no
//    batch waits behind training.
//  - greedy: a training minibatch whenever no inference batch is ready; a batch can wait for up
//    to one training minibatch.
enum class ManagedVariant { windowed, greedy };

// The YAML spelling of each variant (also what summary.json reports).
inline const char* to_string(ManagedVariant variant) {
  switch (variant) {
    case ManagedVariant::windowed:
      return "windowed";
    case ManagedVariant::greedy:
      return "greedy";
  }
  return "windowed";
}

struct GpuSharing {
  SharingPolicy policy = SharingPolicy::managed;
  ManagedVariant variant = ManagedVariant::windowed;  // managed only
  // managed windowed only: for a stream with random (Poisson) arrivals, the chance a training
  // minibatch may take that the stream's next batch becomes ready before it finishes.
  double risk = 1e-3;
  double timeslice_us = 1024;     // native only: round-robin slice length
  double context_switch_us = 25;  // native only: cost of each switch between contexts
};

// Arrival processes of an inference stream.
struct FixedArrivals {
  double rate_per_s = 0;  // > 0; request k arrives at k / rate
};
struct PoissonArrivals {
  double rate_per_s = 0;  // > 0; exponential inter-arrival times
};
struct RateSegment {
  double start_s = 0;     // segment begins (ascending, first is 0)
  double rate_per_s = 0;  // >= 0; 0 means no arrivals in the segment
};
struct PiecewiseArrivals {
  std::vector<RateSegment> segments;
  bool poisson = false;  // false: evenly spaced within a segment; true: Poisson
};
struct TraceArrivals {
  std::string path;               // CSV with an `arrival_s` column, ascending; resolved path
  std::vector<double> arrival_s;  // loaded and validated by the loader
};
using ArrivalSpec = std::variant<FixedArrivals, PoissonArrivals, PiecewiseArrivals, TraceArrivals>;

struct InferenceStreamSpec {
  std::string name;  // defaults to "<workload>-<index>"
  std::string workload;
  int batch_size = 1;                 // >= 1
  std::optional<double> max_wait_ms;  // dispatch a partial batch when the oldest waited this long
  ArrivalSpec arrivals;
};

// How a training minibatch's data reaches the GPU (sim/runtime/data_pipeline.hpp).
enum class DataPipelineKind {
  none,        // compute only: the data is always ready, no fetch stall
  dataloader,  // workers fetch from storage through the page cache and pre-process on the CPU
};

inline const char* to_string(DataPipelineKind kind) {
  switch (kind) {
    case DataPipelineKind::none:
      return "none";
    case DataPipelineKind::dataloader:
      return "dataloader";
  }
  return "none";
}

struct DataloaderSpec {
  int workers = 4;
  int prefetch_factor = 2;
  std::string storage = "nvme-ssd";  // a medium of models/data/storage/
  double dataset_scale = 1.0;        // what-if: the dataset's samples and bytes times this
};

struct TrainingSpec {
  std::string workload;
  std::string dataset;
  int batch_size = 16;        // >= 1
  std::optional<int> epochs;  // absent: train for the whole duration
  DataloaderSpec dataloader;
  DataPipelineKind data_pipeline = DataPipelineKind::none;
};

enum class PowerBudgetKind { average, max_window };

struct Budgets {
  std::optional<double> latency_ms;  // applies to latency_percentile of every stream
  double latency_percentile = 99;    // one of 50, 95, 99, 100 (100 = max)
  std::optional<double> power_w;
  PowerBudgetKind power_kind = PowerBudgetKind::average;
  double power_window_s = 1.0;  // window for max_window
};

// The `search:` block of a scenario, read by sim/config/search_reader.hpp (the reader sweep files
// share) and used by `fulcrum optimize` (docs/SEARCH.md, "fulcrum optimize").
struct SearchSpec {
  std::string strategy = "gmd";  // one of kStrategyNames (search::strategy_registry()'s)
  std::vector<int> batch_sizes{1, 4, 8, 16, 32, 64, 128, 256};
  // The mode grid searched; absent: the ground truth's own grid (pagoda-441 for the measured
  // tables, which cover it; powertrain-4368 for the analytic model).
  std::optional<std::string> modes;
  std::optional<int> max_modes;  // profiling budget; absent: the strategy's default
  PowerConstraint power_constraint = PowerConstraint::max_of_phases;
  Objective objective = Objective::per_window;
  GroundTruthKind ground_truth = GroundTruthKind::table;
  std::optional<std::uint64_t> seed;  // absent: the scenario's seed
  double noise = 0;                   // the Profiler's relative measurement noise
};

struct OutputsSpec {
  bool requests = true;         // requests.csv
  bool minibatches = true;      // minibatches.csv
  bool epochs = true;           // epochs.csv (written when there is a training job)
  bool power = true;            // power.csv
  bool trace = true;            // trace.json
  double power_sample_s = 1.0;  // jtop-like sampling period of power.csv
  // Most rows a scenario may ask of requests.csv (checked when it is loaded).
  std::uint64_t max_rows = 100'000'000;
};

struct Scenario {
  std::string source_path;  // the file it came from ("" when built in code)
  int version = 1;
  std::string name;
  std::uint64_t seed = 1;
  double duration_s = 60;  // > 0
  DeviceChoice device;
  GpuSharing gpu_sharing;
  std::optional<TrainingSpec> training;
  std::vector<InferenceStreamSpec> inference;
  Budgets budgets;
  std::optional<SearchSpec> search;
  OutputsSpec outputs;
};

}  // namespace fulcrum::sim
