// PowerMeter: integrates a piecewise-constant per-rail power exactly (energy += power x dt at
// every change, as SimGrid's energy plugin does) and tracks the highest average module power
// over consecutive fixed windows with O(1) state -- nothing is stored per change.
//
//   PowerMeter meter(3, kSecond);
//   meter.set(0, idle_w);  meter.set(5 * kMillisecond, busy_w);  meter.finish(duration);
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "sim/engine/time.hpp"

namespace fulcrum::sim {

class PowerMeter {
 public:
  // Precondition: window > 0.
  PowerMeter(std::size_t rails, Time window);

  // From `at` on, rail r draws rail_power_w[r]. Precondition: `at` >= the previous call's.
  // Returns whether the power actually changed (equal consecutive powers are merged).
  bool set(Time at, std::span<const double> rail_power_w);

  // Integrates up to `end` and closes the windows. Precondition: called once, end >= last set.
  void finish(Time end);

  const std::vector<double>& rail_energy_j() const { return rail_energy_j_; }
  double energy_j() const;
  // Max over the consecutive windows [jW, (j+1)W) that fit entirely in the run of their average
  // module power; when the run is shorter than one window, the run's average.
  double max_window_w() const { return max_window_w_; }
  const std::vector<double>& rail_power_w() const { return power_w_; }

 private:
  void integrate_to(Time t);

  Time window_;
  std::vector<double> power_w_;
  double module_w_ = 0;
  std::vector<double> rail_energy_j_;
  Time last_ = 0;
  Time window_end_;
  double window_energy_j_ = 0;
  double max_window_w_ = 0;
  bool any_full_window_ = false;
};

}  // namespace fulcrum::sim
