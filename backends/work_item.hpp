// WorkItem and Completion: the unit a Backend executes (one non-preemptive minibatch) and what it
// reports back (duration and energy per rail).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/phase_cost.hpp"

namespace fulcrum::backends {

struct WorkItem {
  const models::Workload* workload = nullptr;  // catalog-owned; never null when executed
  models::Phase phase = models::Phase::inference;
  int batch_size = 1;
  models::PowerMode mode;
};

struct Completion {
  std::chrono::nanoseconds duration{0};  // standalone execution time of the item
  std::vector<double> rail_energy_j;     // energy per rail (DeviceSpec::rails order) over duration
  models::Provenance provenance = models::Provenance::modelled;

  double module_energy_j() const {
    double s = 0;
    for (double e : rail_energy_j) s += e;
    return s;
  }
};

}  // namespace fulcrum::backends
