#include "models/device/mode_space.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <tuple>

#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "tests/models/device/orin_fixture.hpp"

using namespace fulcrum::models;

TEST_CASE("the Orin AGX 64GB has 12 x 29 x 13 x 4 = 18,096 power modes", "[mode_space]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(ModeSpace::full(orin).size() == 18096);
  const std::vector<PowerMode> all = enumerate_all(orin);
  REQUIRE(all.size() == 18096);
  CHECK(std::set<PowerMode>(all.begin(), all.end()).size() == 18096);
  CHECK(std::all_of(all.begin(), all.end(),
                    [&](const PowerMode& m) { return is_valid_mode(orin, m); }));
}

TEST_CASE("mode spaces are ordered by cores, then CPU, GPU and EMC ascending", "[mode_space]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  const std::vector<PowerMode> all = enumerate_all(orin);
  CHECK(all.front() == PowerMode{1, 115200, 114750000, 204000000, 8});
  CHECK(all[1] == PowerMode{1, 115200, 114750000, 665600000, 8});
  CHECK(all[4] == PowerMode{1, 115200, 216750000, 204000000, 8});
  CHECK(all[4 * 13] == PowerMode{1, 192000, 114750000, 204000000, 8});
  CHECK(all.back() == max_mode(orin));
  CHECK(std::is_sorted(all.begin(), all.end(), [](const PowerMode& a, const PowerMode& b) {
    return std::tie(a.cores, a.cpu_khz, a.gpu_hz, a.emc_hz) <
           std::tie(b.cores, b.cpu_khz, b.gpu_hz, b.emc_hz);
  }));
}

TEST_CASE("named grids have PowerTrain's 4,368 and the inference grid's 441 modes",
          "[mode_space]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  const std::vector<PowerMode> pt = enumerate_grid(orin, "powertrain-4368");
  REQUIRE(pt.size() == 4368);
  CHECK(pt.front() == PowerMode{2, 268800, 114750000, 204000000, 8});
  CHECK(pt.back() == max_mode(orin));
  const std::vector<PowerMode> pg = enumerate_grid(orin, "pagoda-441");
  REQUIRE(pg.size() == 441);
  CHECK(pg.front() == PowerMode{4, 422400, 114750000, 665600000, 8});
  CHECK(std::all_of(pg.begin(), pg.end(),
                    [&](const PowerMode& m) { return is_valid_mode(orin, m); }));
}

TEST_CASE("an unknown grid is an input error listing the known ones", "[mode_space]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  try {
    ModeSpace::grid(orin, "everything");
    FAIL("expected an InputError");
  } catch (const fulcrum::InputError& e) {
    CHECK(std::string(e.what()) ==
          "unknown mode grid 'everything' for device 'orin-agx-64gb' "
          "(known: powertrain-4368, pagoda-441)");
  }
}

TEST_CASE("a mode's index in a space round-trips through at()", "[mode_space]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  const ModeSpace space = ModeSpace::grid(orin, "powertrain-4368");
  for (std::size_t i = 0; i < space.size(); i += 97) {
    CHECK(space.index_of(space.at(i)) == i);
  }
  CHECK(space.index_of(max_mode(orin)) == space.size() - 1);
  // 1 core is not on the PowerTrain grid, nor is 115.2 MHz.
  CHECK_FALSE(space.index_of(PowerMode{1, 2201600, 1300500000, 3199000000, 8}).has_value());
  CHECK_FALSE(space.index_of(PowerMode{2, 115200, 1300500000, 3199000000, 8}).has_value());
}
