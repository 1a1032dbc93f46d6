// RunResult: everything a run measured, in plain numbers with units in the names. sim/report
// turns it into summary.json; docs/METRICS.md defines every field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"

namespace fulcrum::sim {

// Over the completed requests of a stream; absent (std::nullopt) when none completed.
struct LatencyStats {
  double mean_ms = 0;
  double p50_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// How many executed items' figures were measured, interpolated, extrapolated or modelled (the
// backend's Completion::provenance).
struct ProvenanceCounts {
  std::uint64_t measured = 0;
  std::uint64_t interpolated = 0;
  std::uint64_t extrapolated = 0;
  std::uint64_t modelled = 0;

  void add(models::Provenance p) {
    switch (p) {
      case models::Provenance::measured:
        ++measured;
        return;
      case models::Provenance::interpolated:
        ++interpolated;
        return;
      case models::Provenance::extrapolated:
        ++extrapolated;
        return;
      case models::Provenance::modelled:
        ++modelled;
        return;
    }
  }
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
  std::optional<LatencyStats> latency;  // over completed requests; absent when none completed
  bool stable = true;
  std::string unstable_reason;  // empty when stable
  double gpu_busy_s = 0;        // time this stream's context was executing on the GPU
  ProvenanceCounts provenance;  // of its batches' figures
  // Where the perf model extrapolates this workload: the measured workload it is most like and
  // how that one's extrapolated figures did (PerfModel::extrapolation_nearest); else empty.
  std::string extrapolation_nearest;
};

// Epoch times of a training job: a fixed-size digest, whatever the number of epochs (each epoch
// goes to epochs.csv through RunObserver::on_epoch).
struct EpochTimeStats {
  double first_s = 0;
  double last_s = 0;
  double mean_s = 0;
  double min_s = 0;
  double max_s = 0;
};

// One completed epoch, as summary.json lists it: the first kMaxSummaryEpochs epochs only, so
// that the summary stays small however many epochs a run completes (epochs.csv has them all).
struct EpochSummary {
  std::uint64_t epoch = 0;
  double time_s = 0;
  double fetch_stall_s = 0;
  std::optional<double> cache_hit_ratio;  // absent without a dataloader
};
inline constexpr std::size_t kMaxSummaryEpochs = 10;

// The dataloader's settings, estimates and totals over the run (summary.json "dataloader").
struct DataloaderResult {
  int workers = 0;
  int prefetch_factor = 0;
  std::string storage;
  double dataset_scale = 1;
  std::uint64_t dataset_samples = 0;  // per epoch, scaled
  double dataset_bytes = 0;           // scaled
  std::string sample_format;
  double preprocess_ms_per_sample = 0;  // one core alone, in the run's mode
  int cores = 0;                        // online cores the workers and host threads share
  double os_cores = 0;                  // of which the OS keeps busy (docs/PIPELINE.md)
  double ram_gb = 0;
  double os_gb = 0;
  double processes_gb = 0;
  double gpu_gb = 0;
  double page_cache_capacity_bytes = 0;
  std::uint64_t cache_hit_samples = 0;
  std::uint64_t storage_samples = 0;
  double bytes_from_cache = 0;
  double bytes_from_storage = 0;
  double storage_busy_s = 0;  // the storage device serving reads
  double worker_core_s = 0;   // core-seconds of pre-processing (per-minibatch cost included)
  // Mean core share the training host thread ran its minibatches with (1: never contended).
  double training_host_share = 1;
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
  std::uint64_t epochs_completed = 0;
  std::optional<EpochTimeStats> epoch_time_s;  // absent when no epoch completed
  // When the job finished its epochs, if it did within the run (absent: it trained to the end),
  // and its rates over that time: what it achieved while it trained. The *_per_s above are over
  // the whole run.
  std::optional<double> finished_s;
  std::optional<double> minibatches_per_s_while_training, samples_per_s_while_training;
  double gpu_busy_s = 0;
  ProvenanceCounts provenance;                 // of its minibatches' figures
  std::string extrapolation_nearest;           // as StreamResult's
  std::vector<EpochSummary> epochs;            // the first kMaxSummaryEpochs completed epochs
  std::optional<DataloaderResult> dataloader;  // absent without a dataloader
};

struct PowerResult {
  std::vector<std::string> rails;
  std::vector<double> rail_energy_j;
  std::vector<double> rail_avg_w;
  double energy_j = 0;      // module energy = sum of rails
  double avg_w = 0;         // energy_j / duration
  double max_window_w = 0;  // max over consecutive windows of power_window_s
  double window_s = 1.0;
  // Energy by source (the idle baseload of the power mode, the GPU's work, ...), in the order the
  // run added them; they sum to energy_j.
  std::vector<std::string> sources;
  std::vector<double> source_energy_j;
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
  std::string gpu_sharing;          // "managed" | "native" | "sequential"
  std::string gpu_sharing_variant;  // managed: "windowed" | "greedy"; empty for other policies
  std::string
      perf_model;  // the scenario's performance model: "analytic" | "analytic-modes" | "table"
  // How the model's extrapolated figures were checked against measurements, per phase (the
  // device calibration's leave-one-workload-out check under analytic-modes), as one clause each;
  // empty where none is recorded.
  std::string extrapolation_check_training, extrapolation_check_inference;
  std::optional<TrainingResult> training;
  std::vector<StreamResult> inference;
  PowerResult power;
  double gpu_utilization = 0;  // fraction of the run some context executed on the GPU
  BudgetResult budgets;        // judge_budgets() of this result (sim/runtime/budgets.hpp)
  std::uint64_t events_processed = 0;
  // Wall-clock runs only (a backend that runs in real time): how late events ran. Not
  // deterministic, so it goes to run.json, never to summary.json.
  std::optional<Lateness> lateness;
};

}  // namespace fulcrum::sim
