// device_rail_energy_j: a meter's rails mapped onto the device's rail order, by name, with what
// the module leaves unexplained on the GPU rail the meter lacks.
#include "backends/hardware/rail_attribution.hpp"

#include <catch2/catch.hpp>

using namespace fulcrum;
using namespace fulcrum::backends;

TEST_CASE("INA3221 rails map by name onto the device's order, sub-rails left out") {
  EnergyReading r;
  r.rail_energy_j = {1.0, 2.0, 0.5, 3.0};  // meter order
  r.module_energy_j = 6.0;
  const models::RailValues e =
      device_rail_energy_j(r, {"VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO", "VDD_GPU_SOC"},
                           {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"});
  CHECK(e == models::RailValues{3.0, 1.0, 2.0});
  CHECK(e.sum() == r.module_energy_j);
}

TEST_CASE("a module-only meter puts the energy on the device's GPU rail, else its first rail") {
  EnergyReading r;
  r.rail_energy_j = {12.5};
  r.module_energy_j = 12.5;
  CHECK(device_rail_energy_j(r, {"GPU"}, {"CPU", "VDD_GPU", "SOC"}) ==
        models::RailValues{0.0, 12.5, 0.0});
  CHECK(device_rail_energy_j(r, {"GPU"}, {"VDD_IN"}) == models::RailValues{12.5});
  CHECK(device_rail_energy_j(r, {"GPU"}, {"GPU"}) == models::RailValues{12.5});
}

TEST_CASE("with a device rail missing from the meter, it takes what the module leaves") {
  EnergyReading r;
  r.rail_energy_j = {4.0};
  r.module_energy_j = 10.0;
  const models::RailValues e =
      device_rail_energy_j(r, {"VDD_CPU_CV"}, {"VDD_GPU_SOC", "VDD_CPU_CV"});
  CHECK(e == models::RailValues{6.0, 4.0});
  CHECK(e.sum() == 10.0);
}

TEST_CASE("no meter rails at all (the null meter) gives zeros") {
  const EnergyReading r;
  CHECK(device_rail_energy_j(r, {}, {"VDD_GPU_SOC", "VDD_CPU_CV"}) == models::RailValues{0.0, 0.0});
}
