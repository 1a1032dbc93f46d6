// MinibatchProfiler: measures one (workload, phase, batch size) at one power mode on any Backend by
// the published method: set the clocks (where they can change), wait for power to settle, run and
// discard the first minibatch(es), then report the median time and power of the next N. What
// `fulcrum profile` and `fulcrum validate` write into the profile CSV the `table` model reads.
//
//   MinibatchProfiler profiler(backend, &clocks, {.repeats = 10, .discard = 1});
//   ProfileMeasurement m = profiler.measure({&resnet50, Phase::inference, 16}, mode);
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/hardware/clock_control.hpp"

namespace fulcrum::backends {

struct ProfilerOptions {
  int repeats = 10;  // N >= 1: minibatches whose median is reported
  int discard = 1;   // >= 0: minibatches run first and thrown away (warm-up, allocation, caches)
  // Wait after a mode change before the first minibatch, so that power and temperature settle;
  // only for a backend that runs in real time (a prediction has nothing to settle).
  std::chrono::nanoseconds settle{0};
  // Called between minibatches (the verbs pass the interrupt check, which throws).
  std::function<void()> check_point = {};
};

struct ProfilePoint {
  const models::Workload* workload = nullptr;  // never null
  models::Phase phase = models::Phase::inference;
  int batch_size = 1;
};

struct ProfileMeasurement {
  std::string workload;  // catalog name
  models::Phase phase = models::Phase::inference;
  int batch_size = 1;
  models::PowerMode mode;            // the mode of the work items (the clocks set, or read back)
  double time_ms = 0;                // median minibatch time
  double power_w = 0;                // median module power (energy / time of each minibatch)
  std::vector<double> rail_power_w;  // median power per rail (the device's rails order)
  int minibatches = 0;               // measured (the median's N), discarded ones not counted
  double time_min_ms = 0, time_max_ms = 0;  // spread of the N
};

// The median of `values` (the mean of the two middle ones for an even count). Precondition: not
// empty.
double median(std::vector<double> values);

class MinibatchProfiler {
 public:
  // `clocks` may be null (the backend takes the mode from the work item, as the simulated one
  // does); it must outlive the profiler, as must `backend`.
  MinibatchProfiler(Backend& backend, ClockControl* clocks, ProfilerOptions options);

  // Puts the device in `mode` (through the clocks when they can change), then waits `settle`.
  // Done by measure() when the mode differs from the last one.
  void enter_mode(const models::PowerMode& mode);

  // Measures `point` at `mode`. InputError for a point the backend cannot execute; what the
  // backend or the clocks throw otherwise.
  ProfileMeasurement measure(const ProfilePoint& point, const models::PowerMode& mode);

 private:
  Backend& backend_;
  ClockControl* clocks_;
  ProfilerOptions options_;
  std::optional<models::PowerMode> current_;
};

}  // namespace fulcrum::backends
