// DataPipeline: when a training minibatch's data (fetched from storage and pre-processed on the
// CPU) is ready for the GPU. The training job asks before each minibatch; the GPU waits for it.
// make_data_pipeline() is the one place that picks the implementation a scenario asks for
// (training.data_pipeline); only the compute-only pipeline exists so far.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/engine/time.hpp"
#include "sim/runtime/power_sink.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

class DataPipeline {
 public:
  virtual ~DataPipeline() = default;

  // Absolute time at which minibatch `minibatch` (0-based over the whole run) is ready, given
  // that the training job could start it at `wanted` (the previous minibatch's end, or when the
  // job started). The stall charged to it is max(0, result - wanted).
  virtual Time ready_at(std::uint64_t minibatch, Time wanted) = 0;

  // Minibatch `minibatch` started computing on the GPU at `at` (pipelines use it to model
  // workers that run ahead of the GPU).
  virtual void on_compute_start(std::uint64_t /*minibatch*/, Time /*at*/) {}

  // Called once by the runtime before the run: a pipeline whose work draws power (workers
  // fetching and decoding on the host CPU) adds its own source here and sets it as it works.
  virtual void attach(PowerSink& /*power*/) {}
};

// Data always ready: pure GPU compute, zero fetch stall (training.data_pipeline: none).
class ComputeOnlyPipeline final : public DataPipeline {
 public:
  Time ready_at(std::uint64_t /*minibatch*/, Time wanted) override { return wanted; }
};

// The pipeline the scenario's training job asks for.
std::unique_ptr<DataPipeline> make_data_pipeline(const TrainingSpec& training);

}  // namespace fulcrum::sim
