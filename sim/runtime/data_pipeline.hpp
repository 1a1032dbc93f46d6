// DataPipeline: when a training minibatch's data (fetched from storage and pre-processed on the
// CPU) is ready for the GPU. The training job asks before each minibatch; the GPU waits for it.
// make_data_pipeline() is the one place that picks the implementation a scenario asks for
// (training.data_pipeline): ComputeOnlyPipeline (none) or DataloaderPipeline (dataloader,
// dataloader_pipeline.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"
#include "sim/runtime/power_sink.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/scenario/run_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

class DataPipeline {
 public:
  // Told (from an event of the pipeline's own) that the minibatch the training job asked for and
  // got nullopt is now ready.
  using NotifyFn = std::function<void()>;

  virtual ~DataPipeline() = default;

  // Absolute time at which minibatch `minibatch` (0-based over the whole run) is ready, given
  // that the training job could start it at `wanted` (the previous minibatch's end, or when the
  // job started; the simulator's now). nullopt: not known yet -- the pipeline calls the NotifyFn
  // at the time it becomes ready. The stall charged to it is ready - wanted.
  virtual std::optional<Time> ready_at(std::uint64_t minibatch, Time wanted) = 0;

  // Minibatch `minibatch` started computing on the GPU at `at` (the main process took it from
  // the data queue: pipelines use it to hand out the next index) / finished at `at`.
  virtual void on_compute_start(std::uint64_t /*minibatch*/, Time /*at*/) {}
  virtual void on_compute_end(std::uint64_t /*minibatch*/, Time /*at*/) {}

  // CPU contention (docs/PIPELINE.md "CPU contention"). An inference process's host thread starts
  // / stops competing for the online cores with an item of its own (the training process's host
  // thread competes from on_compute_start to on_compute_end).
  virtual void on_inference_start(Time /*at*/) {}
  virtual void on_inference_end(Time /*at*/) {}
  // The share of one core (in (0, 1]) the host thread of the item starting now gets: the
  // training minibatch just announced by on_compute_start, or the inference item just announced
  // by on_inference_start. 1 where the pipeline models no CPU.
  virtual double training_host_share() const { return 1.0; }
  virtual double inference_host_share() const { return 1.0; }

  // Called once by the runtime before the run: the simulator it runs on, where it adds a power
  // source of its own (workers decoding on the host CPU) and sets it as it works, and the
  // observer (may be null) it reports its worker and storage activity to.
  virtual void attach(Simulator& /*sim*/, PowerSink& /*power*/, RunObserver* /*observer*/,
                      NotifyFn /*notify*/) {}

  // What the pipeline did for a started minibatch (ItemRecord's pipeline figures); called once
  // per minibatch, when it starts. Zero for the compute-only pipeline.
  virtual MinibatchData minibatch_data(std::uint64_t /*minibatch*/) { return {}; }
  // The same for a completed epoch (from 0); nullopt when the pipeline models no storage.
  virtual std::optional<EpochData> epoch_data(std::uint64_t /*epoch*/) { return std::nullopt; }
  // The run's totals for summary.json; nullopt for the compute-only pipeline.
  virtual std::optional<DataloaderResult> result(Time /*end*/) const { return std::nullopt; }
};

// Data always ready: pure GPU compute, zero fetch stall (training.data_pipeline: none).
class ComputeOnlyPipeline final : public DataPipeline {
 public:
  std::optional<Time> ready_at(std::uint64_t /*minibatch*/, Time wanted) override { return wanted; }
};

// The pipeline the scenario's training job asks for (setup.scenario->training must be set);
// Error when it asks for the dataloader and setup.pipeline is null.
std::unique_ptr<DataPipeline> make_data_pipeline(const RunSetup& setup);

}  // namespace fulcrum::sim
