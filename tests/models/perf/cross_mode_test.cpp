// The cross-mode model and its fit on the published Orin AGX measurements (read in place;
// skipped without them).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "models/perf/cross_mode_fit.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/models/device/orin_fixture.hpp"
#include "tests/reference_data.hpp"

using namespace fulcrum::models;

namespace {

std::vector<ModeRow> reference_rows() {
  const DeviceSpec d = testing::orin_agx_64gb();
  std::vector<ModeRow> rows;
  for (const char* f :
       {"measurements/orin-agx-training-modes.csv", "measurements/orin-agx-inference-modes.csv"}) {
    const auto path = fulcrum::testing::reference_path(f);
    if (!path) return {};
    for (ModeRow& r : mode_rows(read_profile_csv(*path), d)) rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

TEST_CASE("explore cross-mode fit", "[.explore]") {
  const auto rows = reference_rows();
  if (rows.empty()) return;
  const DeviceSpec d = testing::orin_agx_64gb();
  auto [fit_i, rest_i] = split_modes(rows, 0.5, 1);
  const auto t0 = std::chrono::steady_clock::now();
  CrossModeFit f = fit_cross_mode(d, select(rows, fit_i), workload_catalog());
  const auto t1 = std::chrono::steady_clock::now();
  std::cout << "fit " << std::chrono::duration<double>(t1 - t0).count() << " s, iterations "
            << f.iterations << " cost " << f.cost << "\n";
  std::cout << cross_mode_yaml(f.calibration, {});
  std::cout << to_table(
      evaluate_cross_mode(d, f.calibration, select(rows, rest_i), workload_catalog()), "held out");
}
