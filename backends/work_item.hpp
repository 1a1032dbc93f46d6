// WorkItem and Completion: the unit a Backend executes (one non-preemptive minibatch) and what it
// reports back (duration and energy per rail, and how the figures were obtained).
#pragma once

#include <chrono>

#include "models/device/power_mode.hpp"
#include "models/device/rail_values.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/phase_cost.hpp"
#include "models/workload/workload.hpp"

namespace fulcrum::backends {

struct WorkItem {
  const models::Workload* workload = nullptr;  // catalog-owned; never null (a programming error)
  models::Phase phase = models::Phase::inference;
  int batch_size = 1;  // >= 1; a smaller one is an InputError
  models::PowerMode mode;
  // Share of one CPU core the item's host thread gets (the runtime's CPU contention, docs/
  // PIPELINE.md "CPU contention"), in (0, 1]: a simulated backend stretches the item's host-side
  // work by 1 / host_share; a device that runs the item has its own contention and ignores it.
  double host_share = 1.0;
};

struct Completion {
  std::chrono::nanoseconds duration{0};  // execution time of the item alone on the GPU; > 0
  models::RailValues rail_energy_j;      // energy per rail (DeviceSpec::rails order) over duration
  // The module's energy over duration as its own figure (a meter of the module's input, or the
  // model's module power): the rails should add up to it, which the conformance test checks.
  double module_energy_j = 0;
  // Simulated: where the model's figures came from (measured, interpolated, extrapolated,
  // modelled). A hardware backend reports `measured`.
  models::Provenance provenance = models::Provenance::modelled;
  // An emulated item whose real-time sleep ended before its time, at the run's end or at an
  // interrupt (RealTimeLimit, backend.hpp): it did not finish, and `duration` is the time it
  // would have taken. Never set by a backend that does not run in real time.
  bool cut_short = false;
};

}  // namespace fulcrum::backends
