// RunObserver: what the runtime reports while it runs, so that outputs stream to disk (memory
// grows with pending work, not with simulated duration). sim/report implements the writers.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/device/rail_values.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/phase_cost.hpp"
#include "sim/engine/time.hpp"

namespace fulcrum::sim {

// What the data pipeline did for one training minibatch (zero without a dataloader).
struct MinibatchData {
  Time fetch = 0;                       // issuing its reads -> its files in memory (queueing too)
  Time preprocess = 0;                  // its pre-processing on the CPU (sharing cores too)
  std::uint64_t cache_hit_samples = 0;  // of its samples, read from the page cache
  std::uint64_t storage_samples = 0;    // ... read from storage
};

// The data pipeline over one epoch.
struct EpochData {
  std::uint64_t cache_hit_samples = 0;
  std::uint64_t storage_samples = 0;
  double bytes_from_cache = 0;
  double bytes_from_storage = 0;
  double cache_hit_ratio() const {
    const auto n = cache_hit_samples + storage_samples;
    return n > 0 ? static_cast<double>(cache_hit_samples) / static_cast<double>(n) : 0.0;
  }
};

// A span of data-pipeline work, for the trace: a worker fetching or pre-processing a minibatch,
// or the storage device serving a worker's reads.
struct PipelineSpan {
  enum class Track { worker, storage } track = Track::worker;
  int worker = 0;               // the worker (-1: the main process, workers = 0)
  const char* what = "";        // "fetch", "preprocess", "read"
  std::uint64_t minibatch = 0;  // over the run, from 0
  Time start = 0;
  Time end = 0;
  std::uint64_t samples = 0;  // files read (storage) or samples handled (worker)
};

// One completed inference request.
struct RequestRecord {
  int stream = 0;                // index into Scenario::inference
  std::uint64_t request_id = 0;  // per stream, from 0 in arrival order
  std::uint64_t batch_id = 0;    // per stream, from 0 in dispatch order
  Time arrival = 0;
  Time dispatch = 0;    // its batch was formed and handed to the GPU-sharing policy
  Time start = 0;       // its batch started executing on the GPU
  Time completion = 0;  // its batch completed; latency = completion - arrival
};

// One executed minibatch (training or inference).
struct ItemRecord {
  int context = 0;  // 0 = training job, 1 + i = inference stream i
  models::Phase phase = models::Phase::inference;
  std::uint64_t item_id = 0;  // per context, from 0
  int batch_size = 0;
  Time start = 0;  // first moment it ran on the GPU
  Time end = 0;    // completion
  // Its execution time alone on the GPU (the backend's duration); in a wall-clock native run,
  // where contexts execute at once, its measured time in its own context.
  Time standalone = 0;
  Time fetch_stall = 0;              // training only: data-pipeline stall before it could start
  models::RailValues rail_energy_j;  // the backend's energy of the item, per rail
  models::Provenance provenance = models::Provenance::modelled;  // how its figures were obtained
  MinibatchData data;  // training only: what the data pipeline did for it
};

// One epoch of the training job, reported when its last minibatch completes.
struct EpochRecord {
  std::uint64_t epoch = 0;        // from 0
  Time end = 0;                   // its last minibatch completed
  Time time = 0;                  // end - the previous epoch's end (or 0)
  std::uint64_t minibatches = 0;  // in the epoch (its last one partial when the dataset says so)
  std::uint64_t samples = 0;      // in the epoch: the dataset's size
  Time fetch_stall = 0;           // sum of its minibatches' fetch stalls
  std::optional<EpochData> data;  // the data pipeline's figures; absent without a dataloader
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_request(const RequestRecord&) {}
  virtual void on_item(const ItemRecord&) {}
  virtual void on_epoch(const EpochRecord&) {}
  // A span of data-pipeline work, reported once its times are known: a storage read when it is
  // queued (its end may lie ahead), a worker's fetch or pre-processing when it ends.
  virtual void on_pipeline_span(const PipelineSpan&) {}
  // Power is piecewise constant: from `at` on, each rail draws rail_power_w[r] (DeviceSpec::rails).
  virtual void on_power(Time /*at*/, const std::vector<double>& /*rail_power_w*/) {}
  // Queued (not yet dispatched) requests of a stream changed to `queued` at `at`.
  virtual void on_queue_length(int /*stream*/, Time /*at*/, std::size_t /*queued*/) {}
  // Simulated time has reached `now`: every event at or before it has run, so nothing reported
  // later happens at or before `now`. Called at each progress step before the end (every
  // end / kProgressSteps of simulated time, more often in a wall-clock run; runner.hpp), so that
  // writers of time series (power.csv) can write what is settled as the run goes, not at its end.
  virtual void on_advance(Time /*now*/) {}
  // The run ended at `end` (== scenario duration).
  virtual void on_end(Time /*end*/) {}
};

}  // namespace fulcrum::sim
