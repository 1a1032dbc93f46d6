// The conformance checks every Backend must pass, whatever executes the work: a test of each
// backend calls check_backend_conformance() with items that backend can run (and, where it has
// one, an item naming a workload it knows nothing of).
//
//   ConformanceCase c;
//   c.items = {{&resnet50, Phase::inference, 16, maxn}, ...};
//   c.unknown_workload = WorkItem{&lenet5, Phase::inference, 16, maxn};   // where it has one
//   check_backend_conformance(backend, c);
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <vector>

#include "backends/backend.hpp"
#include "models/error.hpp"

namespace fulcrum::backends::testing {

struct ConformanceCase {
  std::vector<WorkItem> items;               // items the backend must execute
  std::optional<WorkItem> unknown_workload;  // an item it must refuse as bad input
  // Relative difference allowed between two executions of the same item: 0 for a deterministic
  // backend, a measured one's noise otherwise.
  double repeat_tolerance = 0;
  // Relative difference allowed between the module's energy and the sum of the rails'.
  double module_tolerance = 1e-9;
};

inline void check_completion(const Backend& backend, const WorkItem& item, const Completion& c,
                             double module_tolerance) {
  INFO(item.workload->name() << " " << models::to_string(item.phase) << " batch "
                             << item.batch_size);
  CHECK(c.duration.count() > 0);
  REQUIRE(c.rail_energy_j.size() == backend.device().rails.size());
  double rails_j = 0;
  for (double e : c.rail_energy_j) {
    CHECK(std::isfinite(e));
    CHECK(e >= 0);
    rails_j += e;
  }
  CHECK(std::isfinite(c.module_energy_j));
  CHECK(c.module_energy_j > 0);
  CHECK(rails_j == Approx(c.module_energy_j).epsilon(module_tolerance));
}

inline void check_same(const Completion& a, const Completion& b, double tolerance) {
  const auto da = static_cast<double>(a.duration.count());
  const auto db = static_cast<double>(b.duration.count());
  CHECK(da == Approx(db).epsilon(tolerance));
  CHECK(a.module_energy_j == Approx(b.module_energy_j).epsilon(tolerance));
  REQUIRE(a.rail_energy_j.size() == b.rail_energy_j.size());
  for (std::size_t r = 0; r < a.rail_energy_j.size(); ++r) {
    CHECK(a.rail_energy_j[r] == Approx(b.rail_energy_j[r]).epsilon(tolerance).margin(1e-12));
  }
  CHECK(a.provenance == b.provenance);
}

inline void check_backend_conformance(Backend& backend, const ConformanceCase& c) {
  REQUIRE_FALSE(c.items.empty());
  std::vector<Completion> first;
  for (const WorkItem& item : c.items) {
    first.push_back(backend.execute(item));
    check_completion(backend, item, first.back(), c.module_tolerance);
    // A busy GPU draws more than the idle device over the same time.
    const models::RailPower idle = backend.idle_power(item.mode);
    REQUIRE(idle.power_w.size() == backend.device().rails.size());
    const double seconds = static_cast<double>(first.back().duration.count()) * 1e-9;
    CHECK(idle.module_w() * seconds < first.back().module_energy_j);
  }
  // Repeated calls are independent: running the items again, in reverse order, gives each the
  // same result as before, whatever ran in between.
  for (std::size_t i = c.items.size(); i-- > 0;) {
    INFO("again: item " << i);
    const Completion again = backend.execute(c.items[i]);
    check_same(first[i], again, c.repeat_tolerance);
  }
  // A batch size below 1 is bad input, not a crash or a zero-length item.
  for (int bad : {0, -3}) {
    WorkItem item = c.items.front();
    item.batch_size = bad;
    CHECK_THROWS_AS(backend.execute(item), InputError);
  }
  if (c.unknown_workload) {
    CHECK_THROWS_AS(backend.execute(*c.unknown_workload), InputError);
    // ... and the backend is still usable afterwards.
    const Completion again = backend.execute(c.items.front());
    check_same(first.front(), again, c.repeat_tolerance);
  }
}

}  // namespace fulcrum::backends::testing
