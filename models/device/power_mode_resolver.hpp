// Turning presets and user requests into PowerModes, as the hardware would: frequencies snap to
// the device's tables. Errors are InputError without a location; the scenario loader adds one.
//
//   PowerMode m = resolve_preset(orin, "MODE_30W");            // caps -> largest value <= cap
//   PowerMode r = resolve_request(orin, {.cores = 8, .gpu_mhz = 1300});   // 1300.5 MHz
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"

namespace fulcrum::models {

// An nvpmodel preset: cores from the preset; each cap becomes the largest table value <= cap
// (absent cap = table maximum); active TPCs = min(gpu_tpcs, slots - TPCs gated by the mask).
// Unknown preset -> InputError "unknown preset 'x' for device 'd' (known: ...)".
PowerMode resolve_preset(const DeviceSpec& device, std::string_view preset);

// A custom request in MHz. Each frequency snaps to the nearest table value (ties to the higher);
// it is in range when within half a table step of the table's ends, otherwise InputError
// "cpu_mhz 5000 outside 115.2..2201.6 MHz". Cores must be 1..cpu_cores ("cores 99 outside 1..12").
// An absent field means the device maximum; 0 is out of range like any other value. All TPCs
// are on.
PowerMode resolve_request(const DeviceSpec& device, const ModeRequest& request);

// All cores, table maxima, all TPCs.
PowerMode max_mode(const DeviceSpec& device);

// The default preset, resolved.
PowerMode default_mode(const DeviceSpec& device);

// Snapping against one ascending table (exposed for loaders and searches).
// Nearest value, ties to the higher; std::nullopt when `value` lies more than half a step
// beyond either end (a one-entry table accepts only that value, to a relative 1e-9).
std::optional<double> snap_nearest(const std::vector<double>& table, double value);
// Largest value <= cap (to a relative 1e-9); std::nullopt when cap is below the table.
std::optional<double> floor_to_table(const std::vector<double>& table, double cap);

// Whether a mode's values are all table values of the device, cores in 1..cpu_cores and TPCs
// in 1..gpu_tpcs.
bool is_valid_mode(const DeviceSpec& device, const PowerMode& mode);

}  // namespace fulcrum::models
