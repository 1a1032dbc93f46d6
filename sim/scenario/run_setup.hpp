// RunSetup: a scenario with every name resolved against the catalogs -- what a run needs and
// nothing it must look up. The scenario loader (sim/config) builds it; the runtime consumes it.
#pragma once

#include <functional>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "models/pipeline/dataloader_model.hpp"
#include "models/workload/workload.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

struct RunSetup {
  const Scenario* scenario = nullptr;
  const models::DeviceSpec* device = nullptr;
  models::PowerMode mode;
  const models::Workload* training_workload = nullptr;       // null: no training job
  double training_dataset_samples = 0;                       // samples per epoch
  std::vector<const models::Workload*> inference_workloads;  // one per scenario.inference[i]
  // What the runtime predicts items with before they run (how long a full batch takes, for the
  // stability verdict; a policy's plans): the scenario's performance model. The backend executes
  // them; in simulation it asks the same model.
  const models::PerfModel* perf_model = nullptr;
  // The data-pipeline model's data (storage medium, dataloader coefficients) when the training
  // job's data_pipeline is dataloader; sim/config loads it (load_pipeline).
  const models::PipelineData* pipeline = nullptr;
  // Called once, right before the run's clock starts (after a concurrent run has warmed up its
  // device contexts): where a caller starts a meter over the run itself. May be empty.
  std::function<void()> on_clock_start;
  // Called once, right after the run's clock reaches its end (before the results are collected
  // and written): where that meter stops. May be empty.
  std::function<void()> on_clock_end;
  // A real-time run on an emulated backend: asked every few ms while an item sleeps (from the
  // sleeping thread, so cheap and thread-safe); true ends the sleep at once, so that an interrupt
  // is seen at the next progress step instead of after the item. May be empty.
  std::function<bool()> stop_requested;
};

}  // namespace fulcrum::sim
