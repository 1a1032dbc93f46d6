// run(): one event-driven run of a scenario on a backend -- the entry point of the runtime.
//
//   RunSetup setup{&scenario, &device, mode, training_workload, samples, {&resnet50}, &model};
//   RunResult result = run(setup, backend);   // then sim/report writes summary and files
#pragma once

#include <functional>
#include <vector>

#include "backends/backend.hpp"
#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/workload/workload.hpp"
#include "sim/engine/time.hpp"
#include "sim/runtime/gpu_sharing_policy.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/scenario/run_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// Told how far a run has got: `reached` of `end` simulated nanoseconds. Called kProgressSteps
// times over a run (every end / kProgressSteps of simulated time, never per event), so it costs
// nothing measurable; a display decides itself how often to redraw (e.g. by wall time).
using ProgressFn = std::function<void(Time reached, Time end)>;
inline constexpr int kProgressSteps = 1000;
// ... and, in a wall-clock run, at least once per this much simulated (= real) time.
inline constexpr Time kWallProgressStep = 100 * kMillisecond;

// Runs the scenario to its duration: picks the training job's data pipeline
// (make_data_pipeline), runs, and judges the budgets (judge_budgets). `observer` (may be null)
// sees every request, item and power change as it happens; `progress` (may be empty) is told how
// far the run has got. A backend that runs in real time makes it a wall-clock run. `policy`
// (may be empty) makes the GPU-sharing policy instead of the scenario's gpu_sharing.
RunResult run(const RunSetup& setup, backends::Backend& backend, RunObserver* observer = nullptr,
              ProgressFn progress = {}, const GpuSharingPolicyFactory& policy = {});

// A context of a run (the training job first, then the inference streams in scenario order, as
// the runtime numbers them) and an item it may execute.
struct ContextItem {
  int context = 0;
  backends::WorkItem item;
};

// Every distinct item a run of `setup` can execute, in the setup's mode: the training minibatch
// and, where the dataset does not divide into minibatches, each epoch's last, smaller one; each
// stream's full batch and, where it may dispatch partial batches (max_wait_ms), every smaller
// size. What a run on a device prepares and warms up before its clock starts, so that no item
// pays its preparation in the middle of the run.
std::vector<ContextItem> distinct_items(const RunSetup& setup);

}  // namespace fulcrum::sim
