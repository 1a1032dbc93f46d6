#include "sim/runtime/power_meter.hpp"

#include <algorithm>
#include <cassert>

namespace fulcrum::sim {

PowerMeter::PowerMeter(std::size_t rails, Time window)
    : window_(window), power_w_(rails, 0.0), rail_energy_j_(rails, 0.0), window_end_(window) {
  assert(window > 0);
}

bool PowerMeter::set(Time at, std::span<const double> rail_power_w) {
  assert(rail_power_w.size() == power_w_.size());
  assert(at >= last_ && "power changes must come in time order");
  if (std::equal(rail_power_w.begin(), rail_power_w.end(), power_w_.begin())) return false;
  integrate_to(at);
  module_w_ = 0;
  for (std::size_t r = 0; r < power_w_.size(); ++r) {
    power_w_[r] = rail_power_w[r];
    module_w_ += rail_power_w[r];
  }
  return true;
}

void PowerMeter::integrate_to(Time t) {
  assert(t >= last_);
  const double dt_s = to_seconds(t - last_);
  for (std::size_t r = 0; r < power_w_.size(); ++r) rail_energy_j_[r] += power_w_[r] * dt_s;
  // Window averages: split [last_, t) at window boundaries.
  while (last_ < t) {
    const Time segment_end = std::min(t, window_end_);
    window_energy_j_ += module_w_ * to_seconds(segment_end - last_);
    last_ = segment_end;
    if (segment_end == window_end_) {
      max_window_w_ = std::max(max_window_w_, window_energy_j_ / to_seconds(window_));
      any_full_window_ = true;
      window_energy_j_ = 0;
      window_end_ += window_;
    }
  }
}

void PowerMeter::finish(Time end) {
  integrate_to(end);
  if (!any_full_window_ && end > 0) max_window_w_ = window_energy_j_ / to_seconds(end);
}

double PowerMeter::energy_j() const {
  double total = 0;
  for (double e : rail_energy_j_) total += e;
  return total;
}

}  // namespace fulcrum::sim
