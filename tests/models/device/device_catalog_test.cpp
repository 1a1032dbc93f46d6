#include "models/device/device_catalog.hpp"

#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "tests/models/device/orin_fixture.hpp"

using namespace fulcrum::models;

namespace {
DeviceSpec named(std::string name) {
  DeviceSpec d = testing::orin_agx_64gb();
  d.name = std::move(name);
  return d;
}
}  // namespace

TEST_CASE("a catalog finds devices by name and lists them in name order", "[device_catalog]") {
  DeviceCatalog catalog;
  CHECK(catalog.empty());
  catalog.add(named("xavier-nx-8gb"));
  catalog.add(named("orin-agx-64gb"));
  catalog.add(named("orin-nano-8gb"));
  REQUIRE(catalog.size() == 3);
  CHECK(catalog.names() ==
        std::vector<std::string>{"orin-agx-64gb", "orin-nano-8gb", "xavier-nx-8gb"});
  CHECK(catalog.devices().front().name == "orin-agx-64gb");
  CHECK(catalog.get("orin-nano-8gb").name == "orin-nano-8gb");
  REQUIRE(catalog.find("xavier-nx-8gb") != nullptr);
  CHECK(catalog.find("xavier-nx-8gb")->cpu_cores == 12);
  CHECK(catalog.find("jetson-tx2") == nullptr);
}

TEST_CASE("asking for an unknown device names it and lists the known ones", "[device_catalog]") {
  DeviceCatalog catalog;
  catalog.add(named("orin-agx-64gb"));
  catalog.add(named("orin-nano-8gb"));
  try {
    catalog.get("jetson-tx2");
    FAIL("expected an InputError");
  } catch (const fulcrum::InputError& e) {
    CHECK(std::string(e.what()) ==
          "unknown device 'jetson-tx2' (known: orin-agx-64gb, orin-nano-8gb)");
  }
}

TEST_CASE("adding a device twice is an input error", "[device_catalog]") {
  DeviceCatalog catalog;
  catalog.add(named("orin-agx-64gb"));
  CHECK_THROWS_AS(catalog.add(named("orin-agx-64gb")), fulcrum::InputError);
  CHECK(catalog.size() == 1);
}

TEST_CASE("peak memory bandwidth follows the EMC frequency and bus width", "[device_spec]") {
  const DeviceSpec orin = testing::orin_agx_64gb();
  CHECK(orin.memory_bandwidth_gbps(3199e6) == Approx(204.736));
  CHECK(orin.memory_bandwidth_gbps(204e6) == Approx(13.056));
  CHECK(orin.cuda_cores_per_tpc() == 256);
  CHECK(orin.find_preset("MODE_30W") != nullptr);
  CHECK(orin.find_preset("MODE_99W") == nullptr);
  CHECK(orin.find_grid("pagoda-441") != nullptr);
}
