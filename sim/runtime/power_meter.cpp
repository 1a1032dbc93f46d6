#include "sim/runtime/power_meter.hpp"

#include <algorithm>
#include <cassert>

namespace fulcrum::sim {

PowerMeter::PowerMeter(std::size_t rails, Time window)
    : window_(window),
      rails_(rails),
      power_w_(rails, 0.0),
      rail_energy_j_(rails, 0.0),
      window_end_(window) {
  assert(window > 0);
}

PowerSource PowerMeter::add_source(std::string name) {
  names_.push_back(std::move(name));
  source_w_.resize(source_w_.size() + rails_, 0.0);
  source_module_w_.push_back(0.0);
  source_energy_j_.push_back(0.0);
  return PowerSource{names_.size() - 1};
}

bool PowerMeter::set(PowerSource source, Time at, std::span<const double> rail_power_w) {
  assert(source.index < names_.size());
  assert(rail_power_w.size() == rails_);
  assert(at >= last_ && "power changes must come in time order");
  double* share = source_w_.data() + source.index * rails_;
  if (std::equal(rail_power_w.begin(), rail_power_w.end(), share)) return false;
  integrate_to(at);
  double source_module = 0;
  for (std::size_t r = 0; r < rails_; ++r) {
    share[r] = rail_power_w[r];
    source_module += rail_power_w[r];
  }
  source_module_w_[source.index] = source_module;
  // The total is summed afresh in source order, never updated by differences, so it carries no
  // drift and is the same number whichever source changed last.
  bool changed = false;
  module_w_ = 0;
  for (std::size_t r = 0; r < rails_; ++r) {
    double total = 0;
    for (std::size_t s = 0; s < names_.size(); ++s) total += source_w_[s * rails_ + r];
    changed = changed || total != power_w_[r];
    power_w_[r] = total;
    module_w_ += total;
  }
  return changed;
}

void PowerMeter::integrate_to(Time t) {
  assert(t >= last_);
  const double dt_s = to_seconds(t - last_);
  for (std::size_t r = 0; r < rails_; ++r) rail_energy_j_[r] += power_w_[r] * dt_s;
  for (std::size_t s = 0; s < names_.size(); ++s) {
    source_energy_j_[s] += source_module_w_[s] * dt_s;
  }
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
