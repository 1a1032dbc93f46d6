// PowerMeter: the device's power as the sum of independent sources (the idle baseload of the
// power mode, the GPU's work, and later host CPU work such as dataloader workers), each setting
// its own per-rail share whenever it changes. Integrates the piecewise-constant total exactly
// (energy += power x dt at every change, as SimGrid's energy plugin does), per rail and per
// source, and tracks the highest average module power over consecutive fixed windows with O(1)
// state -- nothing is stored per change.
//
//   PowerMeter meter(3, kSecond);
//   PowerSource base = meter.add_source("static");
//   PowerSource gpu = meter.add_source("gpu");
//   meter.set(base, 0, idle_w);  meter.set(gpu, 5 * kMillisecond, busy_minus_idle_w);
//   meter.finish(duration);
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"

namespace fulcrum::sim {

// A handle to one source of a PowerMeter.
struct PowerSource {
  std::size_t index = 0;
};

class PowerMeter {
 public:
  // Precondition: window > 0.
  PowerMeter(std::size_t rails, Time window);

  // A new source, drawing nothing until set. Sources are summed in the order they were added.
  PowerSource add_source(std::string name);

  // From `at` on, `source` draws rail_power_w[r] on rail r. Precondition: `at` >= the previous
  // call's. Returns whether the total actually changed (equal consecutive powers are merged).
  bool set(PowerSource source, Time at, std::span<const double> rail_power_w);

  // Integrates up to `end` and closes the windows. Precondition: called once, end >= last set.
  void finish(Time end);

  const std::vector<double>& rail_energy_j() const { return rail_energy_j_; }
  double energy_j() const;
  // Energy each source drew, in the order they were added (their sum is energy_j()).
  const std::vector<std::string>& source_names() const { return names_; }
  const std::vector<double>& source_energy_j() const { return source_energy_j_; }
  // Max over the consecutive windows [jW, (j+1)W) that fit entirely in the run of their average
  // module power; when the run is shorter than one window, the run's average.
  double max_window_w() const { return max_window_w_; }
  // The total per rail now: the sum of the sources' shares.
  const std::vector<double>& rail_power_w() const { return power_w_; }

 private:
  void integrate_to(Time t);

  Time window_;
  std::size_t rails_;
  std::vector<std::string> names_;
  std::vector<double> source_w_;  // [source][rail], row-major
  std::vector<double> source_module_w_;
  std::vector<double> source_energy_j_;
  std::vector<double> power_w_;  // total per rail
  double module_w_ = 0;
  std::vector<double> rail_energy_j_;
  Time last_ = 0;
  Time window_end_;
  double window_energy_j_ = 0;
  double max_window_w_ = 0;
  bool any_full_window_ = false;
};

}  // namespace fulcrum::sim
