#include "backends/simulated_backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "models/error.hpp"

namespace fulcrum::backends {

SimulatedBackend::SimulatedBackend(const models::DeviceSpec& device, const models::PerfModel& model)
    : device_(device), model_(model) {}

Completion SimulatedBackend::execute(const WorkItem& item) {
  if (item.workload == nullptr) throw InputError("work item has no workload");
  const ItemKey key{reinterpret_cast<std::uintptr_t>(item.workload), static_cast<int>(item.phase),
                    item.batch_size, item.mode};
  if (const auto it = completions_.find(key); it != completions_.end()) return it->second;

  const models::Prediction p =
      model_.predict({device_, item.mode, *item.workload, item.phase, item.batch_size});
  const double ns = std::round(p.time_ms * 1e6);
  if (!(ns >= 0) || ns > static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
    throw Error("performance model " + model_.name() + " predicted an unusable time of " +
                std::to_string(p.time_ms) + " ms for " + item.workload->name());
  }
  Completion c;
  // A minibatch always takes time: a zero duration would let the engine spin at one instant.
  c.duration = std::chrono::nanoseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(ns)));
  const double seconds = static_cast<double>(c.duration.count()) * 1e-9;
  c.rail_energy_j.reserve(p.power.power_w.size());
  for (double w : p.power.power_w) c.rail_energy_j.push_back(w * seconds);
  c.provenance = p.provenance;
  completions_.emplace(key, c);
  return c;
}

models::RailPower SimulatedBackend::idle_power(const models::PowerMode& mode) {
  if (const auto it = idle_.find(mode); it != idle_.end()) return it->second;
  models::RailPower p = model_.idle_power(device_, mode);
  idle_.emplace(mode, p);
  return p;
}

}  // namespace fulcrum::backends
