// RunResult: everything a run measured, in plain numbers with units in the names. sim/report
// turns it into summary.json; docs/METRICS.md defines every field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/device/power_mode.hpp"

namespace fulcrum::sim {

struct LatencyStats {
  double mean_ms = 0;
  double p50_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

struct StreamResult {
  std::string name;
  std::string workload;
  int batch_size = 0;
  std::uint64_t arrived = 0;    // arrivals within the run
  std::uint64_t completed = 0;  // requests whose batch completed within the run
  std::uint64_t queued = 0;     // arrived but not completed at the end (waiting or running)
  std::uint64_t dropped = 0;    // refused once the stream was found unstable (bounded memory)
  std::uint64_t batches = 0;    // inference minibatches completed
  double throughput_per_s = 0;  // completed / duration
  LatencyStats latency;         // over completed requests
  bool stable = true;
  std::string unstable_reason;  // empty when stable
  double gpu_busy_s = 0;        // time this stream's context was executing on the GPU
};

struct TrainingResult {
  std::string workload;
  std::string dataset;
  int batch_size = 0;
  std::uint64_t minibatches = 0;  // completed within the run
  double samples = 0;
  double minibatches_per_s = 0;
  double samples_per_s = 0;
  double fetch_stall_s = 0;
  int epochs_completed = 0;
  std::vector<double> epoch_time_s;  // wall time of each completed epoch
  double gpu_busy_s = 0;
};

struct PowerResult {
  std::vector<std::string> rails;
  std::vector<double> rail_energy_j;
  std::vector<double> rail_avg_w;
  double energy_j = 0;      // module energy = sum of rails
  double avg_w = 0;         // energy_j / duration
  double max_window_w = 0;  // max over consecutive windows of power_window_s
  double window_s = 1.0;
};

struct BudgetResult {
  std::optional<bool> latency_met;  // absent when no latency budget
  std::optional<bool> power_met;    // absent when no power budget
};

struct RunResult {
  std::string scenario;
  std::uint64_t seed = 0;
  double duration_s = 0;
  std::string device;
  models::PowerMode mode;
  std::string gpu_sharing;  // "managed" | "native" | "sequential"
  std::optional<TrainingResult> training;
  std::vector<StreamResult> inference;
  PowerResult power;
  double gpu_utilization = 0;  // fraction of the run some context executed on the GPU
  BudgetResult budgets;
  std::uint64_t events_processed = 0;
};

}  // namespace fulcrum::sim
