#include "models/device/power_mode_resolver.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "models/error.hpp"
#include "tests/models/device/orin_fixture.hpp"

using namespace fulcrum::models;
using fulcrum::InputError;

namespace {

std::string error_of(const DeviceSpec& d, const ModeRequest& r) {
  try {
    resolve_request(d, r);
  } catch (const InputError& e) {
    CHECK_FALSE(e.where().has_value());  // the scenario loader adds the location
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("MAXN resolves to every core, the table maxima and all eight TPCs", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  const PowerMode m = resolve_preset(orin, "MAXN");
  CHECK(m.cores == 12);
  CHECK(m.cpu_khz == 2201600);
  CHECK(m.gpu_hz == 1300500000);
  CHECK(m.emc_hz == 3199000000);
  CHECK(m.gpu_tpcs == 8);
  CHECK(m == max_mode(orin));
  CHECK(m.label() == "12c/2201.6/1300.5/3199 MHz");
}

TEST_CASE("preset caps resolve to the largest table value at or below the cap", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  // 612 MHz is a JetPack 6 GPU frequency; the JetPack 5 table's largest value below it is 522.75.
  const PowerMode m30 = resolve_preset(orin, "MODE_30W");
  CHECK(m30.cores == 8);
  CHECK(m30.cpu_khz == 1728000);
  CHECK(m30.gpu_hz == 522750000);
  CHECK(m30.emc_hz == 3199000000);  // uncapped
  CHECK(m30.gpu_tpcs == 4);         // mask 240 gates TPCs 4..7

  const PowerMode m15 = resolve_preset(orin, "MODE_15W");
  CHECK(m15.cores == 4);
  CHECK(m15.cpu_khz == 1113600);
  CHECK(m15.gpu_hz == 318750000);
  CHECK(m15.emc_hz == 2133000000);
  CHECK(m15.gpu_tpcs == 3);  // mask 248 gates TPCs 3..7

  const PowerMode m50 = resolve_preset(orin, "MODE_50W");
  CHECK(m50.label() == "12c/1497.6/726.75/3199 MHz");
  CHECK(m50.gpu_tpcs == 8);
  CHECK(default_mode(orin) == m30);
}

TEST_CASE("a module with a fused-off TPC counts gated TPCs against its slots", "[resolver]") {
  DeviceSpec orin32 = testing::orin_agx_64gb();
  orin32.cpu_cores = 8;
  orin32.gpu_tpcs = 7;
  orin32.gpu_tpc_slots = 8;
  orin32.presets = {
      Preset{"MAXN", 0, 8, std::nullopt, std::nullopt, std::nullopt, 128, std::nullopt},
      Preset{"MODE_15W", 1, 4, 1113600, 408000000, 2133000000, 248, 15}};
  CHECK(resolve_preset(orin32, "MAXN").gpu_tpcs == 7);
  CHECK(resolve_preset(orin32, "MODE_15W").gpu_tpcs == 3);
  CHECK(resolve_request(orin32, {}).gpu_tpcs == 7);
}

TEST_CASE("an unknown preset is an input error listing the known ones", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  try {
    resolve_preset(orin, "MODE_99W");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "unknown preset 'MODE_99W' for device 'orin-agx-64gb' "
          "(known: MAXN, MODE_15W, MODE_30W, MODE_50W)");
  }
}

TEST_CASE("requested frequencies snap to the nearest table value", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  const PowerMode m = resolve_request(orin, {8, 1700, 1300, 3199});
  CHECK(m.cores == 8);
  CHECK(m.cpu_khz == 1728000);  // 1700 is 28 MHz from 1728, 48.8 from 1651.2
  CHECK(m.gpu_hz == 1300500000);
  CHECK(m.emc_hz == 3199000000);
  CHECK(m.gpu_tpcs == 8);  // custom modes keep every TPC on
  CHECK(resolve_request(orin, {8, 1670, 612, 1000}).cpu_khz == 1651200);
  CHECK(resolve_request(orin, {8, 1670, 612, 1000}).gpu_hz == 624750000);
  CHECK(resolve_request(orin, {8, 1670, 612, 1000}).emc_hz == 665600000);
  CHECK(resolve_request(orin, {1, 2201.6, 1300.5, 3199}) ==
        PowerMode{1, 2201600, 1300500000, 3199000000, 8});
}

TEST_CASE("a request exactly between two table values snaps to the higher", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(resolve_request(orin, {4, 1689.6, 165.75, 2666}).cpu_khz == 1728000);
  CHECK(resolve_request(orin, {4, 1689.6, 165.75, 2666}).gpu_hz == 216750000);
  CHECK(resolve_request(orin, {4, 1689.6, 165.75, 2666}).emc_hz == 3199000000);
  CHECK(resolve_request(orin, {4, 1689.5, 165.7, 2665}).cpu_khz == 1651200);
  CHECK(resolve_request(orin, {4, 1689.5, 165.7, 2665}).gpu_hz == 114750000);
  CHECK(resolve_request(orin, {4, 1689.5, 165.7, 2665}).emc_hz == 2133000000);
}

TEST_CASE("absent fields mean the device maximum", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(resolve_request(orin, {}) == PowerMode{12, 2201600, 1300500000, 3199000000, 8});
  const PowerMode m = resolve_request(orin, {.gpu_mhz = 612});
  CHECK(m.cores == 12);
  CHECK(m.cpu_khz == 2201600);
  CHECK(m.gpu_hz == 624750000);
  CHECK(m.emc_hz == 3199000000);
}

TEST_CASE("a request of zero cores or zero MHz is out of range, not the maximum", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(error_of(orin, {.cores = 0}) == "cores 0 outside 1..12");
  CHECK(error_of(orin, {.cpu_mhz = 0}) == "cpu_mhz 0 outside 115.2..2201.6 MHz");
  CHECK(error_of(orin, {.gpu_mhz = 0}) == "gpu_mhz 0 outside 114.75..1300.5 MHz");
  // EMC's bottom half-step (230.8 MHz) reaches below 0 MHz, so nearest-value snapping alone
  // would turn 0 into 204 MHz; a zero request is refused instead.
  CHECK(error_of(orin, {.emc_mhz = 0}) == "emc_mhz 0 outside 204..3199 MHz");
}

TEST_CASE("requests within half a table step of the ends are in range", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  // CPU: the top step is 12.8 MHz, the bottom 76.8 MHz.
  CHECK(resolve_request(orin, {.cpu_mhz = 2208}).cpu_khz == 2201600);
  CHECK(resolve_request(orin, {.cpu_mhz = 76.8}).cpu_khz == 115200);
  // GPU: the top step is 63.75 MHz; EMC: 1066 MHz.
  CHECK(resolve_request(orin, {.gpu_mhz = 1332}).gpu_hz == 1300500000);
  CHECK(resolve_request(orin, {.emc_mhz = 3700}).emc_hz == 3199000000);
  // The bottom half-step is 230.8 MHz.
  CHECK(resolve_request(orin, {.emc_mhz = 1}).emc_hz == 204000000);
}

TEST_CASE("out-of-range requests are input errors naming the field and the range", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(error_of(orin, {.cpu_mhz = 5000}) == "cpu_mhz 5000 outside 115.2..2201.6 MHz");
  CHECK(error_of(orin, {.cpu_mhz = 2209}) == "cpu_mhz 2209 outside 115.2..2201.6 MHz");
  CHECK(error_of(orin, {.cpu_mhz = 76}) == "cpu_mhz 76 outside 115.2..2201.6 MHz");
  CHECK(error_of(orin, {.gpu_mhz = 1400}) == "gpu_mhz 1400 outside 114.75..1300.5 MHz");
  CHECK(error_of(orin, {.emc_mhz = 4000}) == "emc_mhz 4000 outside 204..3199 MHz");
  CHECK(error_of(orin, {.gpu_mhz = -300}) == "gpu_mhz -300 outside 114.75..1300.5 MHz");
  CHECK(error_of(orin, {.emc_mhz = -10}) == "emc_mhz -10 outside 204..3199 MHz");
  CHECK(error_of(orin, {.cores = 99}) == "cores 99 outside 1..12");
  CHECK(error_of(orin, {.cores = -1}) == "cores -1 outside 1..12");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(error_of(orin, {.cpu_mhz = nan}).rfind("cpu_mhz ", 0) == 0);
  CHECK_THROWS_AS(resolve_request(orin, {.emc_mhz = std::numeric_limits<double>::infinity()}),
                  InputError);
}

TEST_CASE("snapping against a table finds the nearest value or nothing", "[resolver]") {
  const std::vector<double> table{100, 200, 400};
  CHECK(snap_nearest(table, 149) == 100);
  CHECK(snap_nearest(table, 150) == 200);
  CHECK(snap_nearest(table, 310) == 400);
  CHECK(snap_nearest(table, 50) == 100);
  CHECK_FALSE(snap_nearest(table, 49).has_value());
  CHECK(snap_nearest(table, 500) == 400);
  CHECK_FALSE(snap_nearest(table, 501).has_value());
  CHECK(snap_nearest({300}, 300) == 300);
  CHECK_FALSE(snap_nearest({300}, 301).has_value());
  CHECK(floor_to_table(table, 399) == 200);
  CHECK(floor_to_table(table, 400) == 400);
  CHECK(floor_to_table(table, 1e9) == 400);
  CHECK_FALSE(floor_to_table(table, 99).has_value());
}

TEST_CASE("a mode is valid only when every value is on the device's tables", "[resolver]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(is_valid_mode(orin, max_mode(orin)));
  CHECK(is_valid_mode(orin, resolve_preset(orin, "MODE_15W")));
  CHECK_FALSE(is_valid_mode(orin, PowerMode{12, 2201600, 612000000, 3199000000, 8}));
  CHECK_FALSE(is_valid_mode(orin, PowerMode{13, 2201600, 1300500000, 3199000000, 8}));
  CHECK_FALSE(is_valid_mode(orin, PowerMode{12, 2201600, 1300500000, 3199000000, 0}));
}
