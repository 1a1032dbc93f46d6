// SimulatedBackend: executes a WorkItem by asking a PerfModel, memoising one Completion per
// (workload, phase, batch size, mode) so that the tens of thousands of minibatches of a run cost
// one model evaluation each distinct item.
//
//   SimulatedBackend backend(orin, analytic_model);
//   Completion c = backend.execute({&workload, Phase::training, 16, mode});
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "backends/backend.hpp"

namespace fulcrum::backends {

class SimulatedBackend final : public Backend {
 public:
  // Both must outlive the backend.
  SimulatedBackend(const models::DeviceSpec& device, const models::PerfModel& model);

  const models::DeviceSpec& device() const override { return device_; }
  // Duration = predicted time rounded to integer ns (at least 1 ns); energy per rail =
  // predicted rail power x that duration. Throws InputError for a null workload.
  Completion execute(const WorkItem& item) override;
  models::RailPower idle_power(const models::PowerMode& mode) override;

  // Distinct items predicted so far (for tests and reports).
  std::size_t cached_items() const { return completions_.size(); }

 private:
  // The workload is identified by its catalog-owned address: the catalog is immutable.
  using ItemKey = std::tuple<std::uintptr_t, int, int, models::PowerMode>;

  const models::DeviceSpec& device_;
  const models::PerfModel& model_;
  std::map<ItemKey, Completion> completions_;
  std::map<models::PowerMode, models::RailPower> idle_;
};

}  // namespace fulcrum::backends
