#include "models/device/mode_space.hpp"

#include <cassert>
#include <cmath>
#include <numeric>
#include <string>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

template <typename T>
std::optional<std::size_t> position(const std::vector<T>& axis, T value) {
  for (std::size_t i = 0; i < axis.size(); ++i) {
    if (std::abs(static_cast<double>(axis[i]) - static_cast<double>(value)) <=
        1e-9 * std::max(std::abs(static_cast<double>(value)), 1.0)) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

ModeSpace::ModeSpace(std::vector<int> cores, std::vector<double> cpu_khz,
                     std::vector<double> gpu_hz, std::vector<double> emc_hz, int gpu_tpcs)
    : cores_(std::move(cores)),
      cpu_khz_(std::move(cpu_khz)),
      gpu_hz_(std::move(gpu_hz)),
      emc_hz_(std::move(emc_hz)),
      gpu_tpcs_(gpu_tpcs) {}

ModeSpace ModeSpace::full(const DeviceSpec& device) {
  std::vector<int> cores(static_cast<std::size_t>(std::max(device.cpu_cores, 0)));
  std::iota(cores.begin(), cores.end(), 1);
  return ModeSpace(std::move(cores), device.cpu_khz, device.gpu_hz, device.emc_hz, device.gpu_tpcs);
}

ModeSpace ModeSpace::grid(const DeviceSpec& device, std::string_view grid_name) {
  const ModeGrid* g = device.find_grid(grid_name);
  if (!g) {
    std::string known;
    for (const ModeGrid& x : device.grids) known += (known.empty() ? "" : ", ") + x.name;
    throw InputError("unknown mode grid '" + std::string(grid_name) + "' for device '" +
                     device.name + "' (known: " + (known.empty() ? "none" : known) + ")");
  }
  return ModeSpace(g->cores, g->cpu_khz, g->gpu_hz, g->emc_hz, device.gpu_tpcs);
}

std::size_t ModeSpace::size() const {
  return cores_.size() * cpu_khz_.size() * gpu_hz_.size() * emc_hz_.size();
}

PowerMode ModeSpace::at(std::size_t index) const {
  assert(index < size());
  const std::size_t e = index % emc_hz_.size();
  index /= emc_hz_.size();
  const std::size_t g = index % gpu_hz_.size();
  index /= gpu_hz_.size();
  const std::size_t c = index % cpu_khz_.size();
  index /= cpu_khz_.size();
  return PowerMode{cores_[index], cpu_khz_[c], gpu_hz_[g], emc_hz_[e], gpu_tpcs_};
}

std::optional<std::size_t> ModeSpace::index_of(const PowerMode& mode) const {
  const auto k = position(cores_, mode.cores);
  const auto c = position(cpu_khz_, mode.cpu_khz);
  const auto g = position(gpu_hz_, mode.gpu_hz);
  const auto e = position(emc_hz_, mode.emc_hz);
  if (!k || !c || !g || !e) return std::nullopt;
  return ((*k * cpu_khz_.size() + *c) * gpu_hz_.size() + *g) * emc_hz_.size() + *e;
}

std::vector<PowerMode> ModeSpace::to_vector() const {
  std::vector<PowerMode> out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) out.push_back(at(i));
  return out;
}

std::vector<PowerMode> enumerate_all(const DeviceSpec& device) {
  return ModeSpace::full(device).to_vector();
}

std::vector<PowerMode> enumerate_grid(const DeviceSpec& device, std::string_view grid_name) {
  return ModeSpace::grid(device, grid_name).to_vector();
}

}  // namespace fulcrum::models
