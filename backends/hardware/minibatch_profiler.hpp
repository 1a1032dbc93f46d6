// MinibatchProfiler: measures one (workload, phase, batch size) at one power mode on any Backend by
// the published method: set the clocks (where they can change), run and discard the first
// minibatch(es), let power settle, then report the median time and power of the next N. What
// `fulcrum profile` and `fulcrum validate` write into the profile CSV the `table` model reads.
//
// Power on a real-time backend with a meter (ProfilerOptions::meter): the item runs back to back
// for the settle time (a GPU's power rises for about a second under load, and NVML's readings
// are averaged over about as long), then each of the N measurements is one meter window over
// back-to-back minibatches lasting at least ProfilerOptions::window: the meter's energy delta
// (NVML's energy counter) over the window's time. Without a meter the backend's own per-item
// energy is used.
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
#include "backends/hardware/power_meter.hpp"

namespace fulcrum::backends {

struct ProfilerOptions {
  int repeats = 10;  // N >= 1: minibatches whose median is reported
  int discard = 1;   // >= 0: minibatches run first and thrown away (warm-up, allocation, caches)
  // Only for a backend that runs in real time (a prediction has nothing to settle): after a mode
  // change, wait this long idle (clocks and temperature settle); then, before the N of every
  // point, run the item back to back for this long (summed minibatch time) so that its power
  // has settled under load when the metering starts.
  std::chrono::nanoseconds settle{0};
  // Where set (and it measures) on a real-time backend: the meter each of the N power figures is
  // read from, one window of back-to-back minibatches of at least `window` (summed minibatch
  // time) each, so that a coarse energy counter ticks many times per window. Must outlive the
  // profiler; it must not be the backend's own meter (the backend may open its own windows).
  PowerMeter* meter = nullptr;
  std::chrono::nanoseconds window{std::chrono::milliseconds(250)};
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
  models::PowerMode mode;  // the mode of the work items (the clocks set, or read back)
  double time_ms = 0;      // median minibatch time
  double power_w = 0;      // median module power (energy / time of each minibatch, or meter window)
  std::vector<double> rail_power_w;  // median power per rail (the device's rails order)
  int minibatches = 0;               // measured (the median's N), discarded ones not counted
  // Minibatches run back to back before the N (settle, real-time backends) and in all of the N's
  // meter windows (0 without a meter).
  int settle_minibatches = 0, metered_minibatches = 0;
  double time_min_ms = 0, time_max_ms = 0;  // spread of the N
  // The backend's per-layer times of the point's last minibatch (Backend::last_layer_times();
  // empty where it does not time layers).
  std::vector<LayerTime> layer_times;
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

  // Runs `item` back to back until the minibatches' summed time reaches `at_least` (at least
  // once); their times (ms) and completions' energies go to the vectors where given.
  int run_for(const WorkItem& item, std::chrono::nanoseconds at_least,
              std::vector<double>* time_ms);
};

}  // namespace fulcrum::backends
