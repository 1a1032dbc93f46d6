// ModeSpace: a cartesian product of power-mode axes (cores x CPU x GPU x EMC) viewed without
// materialising it, e.g. the 18,096 modes of an Orin AGX or PowerTrain's 4,368-mode grid.
//
//   ModeSpace all = ModeSpace::full(orin);                   // cores 1..12 x every table value
//   ModeSpace pt = ModeSpace::grid(orin, "powertrain-4368"); // InputError when unknown
//   for (std::size_t i = 0; i < pt.size(); ++i) use(pt.at(i));
// Order is deterministic: cores slowest, then CPU, GPU, and EMC fastest, each ascending.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"

namespace fulcrum::models {

class ModeSpace {
 public:
  // Every mode of the device: cores 1..cpu_cores x cpu_khz x gpu_hz x emc_hz, all TPCs on.
  static ModeSpace full(const DeviceSpec& device);
  // A named grid of the device; unknown -> InputError "unknown mode grid 'x' for device 'd'
  // (known: ...)".
  static ModeSpace grid(const DeviceSpec& device, std::string_view grid_name);

  std::size_t size() const;
  PowerMode at(std::size_t index) const;  // index < size()
  // The index of a mode in this space; nullopt when any of its values is not on an axis.
  std::optional<std::size_t> index_of(const PowerMode& mode) const;
  std::vector<PowerMode> to_vector() const;

  const std::vector<int>& cores() const { return cores_; }
  const std::vector<double>& cpu_khz() const { return cpu_khz_; }
  const std::vector<double>& gpu_hz() const { return gpu_hz_; }
  const std::vector<double>& emc_hz() const { return emc_hz_; }

 private:
  ModeSpace(std::vector<int> cores, std::vector<double> cpu_khz, std::vector<double> gpu_hz,
            std::vector<double> emc_hz, int gpu_tpcs);

  std::vector<int> cores_;
  std::vector<double> cpu_khz_;
  std::vector<double> gpu_hz_;
  std::vector<double> emc_hz_;
  int gpu_tpcs_ = 0;
};

// Materialised forms of the spaces above, in the same order.
std::vector<PowerMode> enumerate_all(const DeviceSpec& device);
std::vector<PowerMode> enumerate_grid(const DeviceSpec& device, std::string_view grid_name);

}  // namespace fulcrum::models
