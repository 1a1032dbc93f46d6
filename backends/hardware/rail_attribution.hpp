// Turning a meter's EnergyReading into a Completion's per-rail energies in the device's rail order
// (DeviceSpec::rails), so that a hardware backend's rails add up to its module energy as the
// conformance test requires, whatever rails the meter has.
//
//   EnergyReading r = meter.stop();
//   completion.rail_energy_j = device_rail_energy_j(r, meter.rail_names(), device.rails);
//   completion.module_energy_j = r.module_energy_j;
#pragma once

#include <string>
#include <vector>

#include "backends/hardware/power_meter.hpp"
#include "models/device/rail_values.hpp"

namespace fulcrum::backends {

// Each device rail takes the energy of the meter rail of the same name (an INA3221 on the Jetson
// the device describes: all of them). What the module energy leaves unexplained (a meter that
// knows only the module, such as NVML's one "GPU" rail under other names) goes to the first device
// rail the meter lacks whose name contains "GPU", else to the first rail the meter lacks. Meter
// rails the device does not sum (sub-rails) are left out. Precondition: device_rails.size() <=
// RailValues::kCapacity.
models::RailValues device_rail_energy_j(const EnergyReading& reading,
                                        const std::vector<std::string>& meter_rails,
                                        const std::vector<std::string>& device_rails);

}  // namespace fulcrum::backends
