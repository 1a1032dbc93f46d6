#include "backends/hardware/minibatch_profiler.hpp"

#include <algorithm>
#include <cassert>
#include <thread>

#include "backends/hardware/rail_attribution.hpp"
#include "models/error.hpp"

namespace fulcrum::backends {

double median(std::vector<double> values) {
  assert(!values.empty());
  const std::size_t n = values.size();
  std::sort(values.begin(), values.end());
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

MinibatchProfiler::MinibatchProfiler(Backend& backend, ClockControl* clocks,
                                     ProfilerOptions options)
    : backend_(backend), clocks_(clocks), options_(std::move(options)) {
  if (options_.repeats < 1) throw InputError(std::nullopt, "--repeats", "must be >= 1");
  if (options_.discard < 0) throw InputError(std::nullopt, "--discard", "must be >= 0");
}

void MinibatchProfiler::enter_mode(const models::PowerMode& mode) {
  if (clocks_ != nullptr && clocks_->can_change()) clocks_->set(mode);
  current_ = mode;
  if (backend_.runs_in_real_time() && options_.settle > std::chrono::nanoseconds(0)) {
    // Sleep in short steps so that an interrupt is seen within a tenth of a second.
    const auto until = std::chrono::steady_clock::now() + options_.settle;
    while (std::chrono::steady_clock::now() < until) {
      if (options_.check_point) options_.check_point();
      std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(
          std::chrono::milliseconds(100), until - std::chrono::steady_clock::now()));
    }
  }
}

int MinibatchProfiler::run_for(const WorkItem& item, std::chrono::nanoseconds at_least,
                               std::vector<double>* time_ms) {
  std::chrono::nanoseconds ran{0};
  int n = 0;
  do {
    if (options_.check_point) options_.check_point();
    const Completion& c = backend_.execute(item);
    ++n;
    if (time_ms != nullptr) {
      time_ms->push_back(std::chrono::duration<double, std::milli>(c.duration).count());
    }
    if (c.duration <= std::chrono::nanoseconds(0)) break;  // would never reach `at_least`
    ran += c.duration;
  } while (ran < at_least);
  return n;
}

ProfileMeasurement MinibatchProfiler::measure(const ProfilePoint& point,
                                              const models::PowerMode& mode) {
  assert(point.workload != nullptr);
  if (!current_ || *current_ != mode) enter_mode(mode);
  const WorkItem item{point.workload, point.phase, point.batch_size, mode};
  const std::size_t rails = backend_.device().rails.size();
  const bool real_time = backend_.runs_in_real_time();
  PowerMeter* meter = real_time && options_.meter != nullptr && options_.meter->measures()
                          ? options_.meter
                          : nullptr;
  ProfileMeasurement m;
  for (int k = 0; k < options_.discard; ++k) {
    if (options_.check_point) options_.check_point();
    backend_.execute(item);
  }
  if (real_time && options_.settle > std::chrono::nanoseconds(0)) {
    m.settle_minibatches = run_for(item, options_.settle, nullptr);
  }
  std::vector<double> time_ms, power_w;
  std::vector<std::vector<double>> rail_w(rails);
  for (int k = 0; k < options_.repeats; ++k) {
    if (meter == nullptr) {
      if (options_.check_point) options_.check_point();
      const Completion& c = backend_.execute(item);
      const double seconds = std::chrono::duration<double>(c.duration).count();
      time_ms.push_back(seconds * 1e3);
      power_w.push_back(c.module_energy_j / seconds);
      for (std::size_t r = 0; r < rails && r < c.rail_energy_j.size(); ++r) {
        rail_w[r].push_back(c.rail_energy_j[r] / seconds);
      }
      continue;
    }
    // One window of back-to-back minibatches: the meter's energy over the window's time.
    meter->start();
    try {
      m.metered_minibatches += run_for(item, options_.window, &time_ms);
    } catch (...) {
      try {
        meter->stop();
      } catch (...) {  // the first error is the one to report
      }
      throw;
    }
    const EnergyReading r = meter->stop();
    const double seconds = std::max(r.duration_s, 1e-9);
    power_w.push_back(r.module_energy_j / seconds);
    const models::RailValues by_rail =
        device_rail_energy_j(r, meter->rail_names(), backend_.device().rails);
    for (std::size_t i = 0; i < rails && i < by_rail.size(); ++i) {
      rail_w[i].push_back(by_rail[i] / seconds);
    }
  }
  m.workload = point.workload->name();
  m.phase = point.phase;
  m.batch_size = point.batch_size;
  m.mode = mode;
  m.time_ms = median(time_ms);
  m.power_w = median(power_w);
  for (const std::vector<double>& r : rail_w) {
    if (r.size() == power_w.size()) m.rail_power_w.push_back(median(r));
  }
  if (m.rail_power_w.size() != rails) m.rail_power_w.clear();  // rails not all known
  m.minibatches = options_.repeats;
  m.time_min_ms = *std::min_element(time_ms.begin(), time_ms.end());
  m.time_max_ms = *std::max_element(time_ms.begin(), time_ms.end());
  m.layer_times = backend_.last_layer_times();
  return m;
}

}  // namespace fulcrum::backends
