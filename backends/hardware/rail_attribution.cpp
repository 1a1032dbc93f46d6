#include "backends/hardware/rail_attribution.hpp"

#include <algorithm>
#include <optional>

namespace fulcrum::backends {

models::RailValues device_rail_energy_j(const EnergyReading& reading,
                                        const std::vector<std::string>& meter_rails,
                                        const std::vector<std::string>& device_rails) {
  models::RailValues energy_j(device_rails.size());
  double explained_j = 0;
  std::optional<std::size_t> first_missing, first_missing_gpu;
  for (std::size_t d = 0; d < device_rails.size(); ++d) {
    const auto m = std::find(meter_rails.begin(), meter_rails.end(), device_rails[d]);
    if (m != meter_rails.end() &&
        static_cast<std::size_t>(m - meter_rails.begin()) < reading.rail_energy_j.size()) {
      energy_j[d] = reading.rail_energy_j[static_cast<std::size_t>(m - meter_rails.begin())];
      explained_j += energy_j[d];
      continue;
    }
    if (!first_missing) first_missing = d;
    if (!first_missing_gpu && device_rails[d].find("GPU") != std::string::npos)
      first_missing_gpu = d;
  }
  const std::optional<std::size_t> rest = first_missing_gpu ? first_missing_gpu : first_missing;
  if (rest) energy_j[*rest] = std::max(0.0, reading.module_energy_j - explained_j);
  return energy_j;
}

}  // namespace fulcrum::backends
