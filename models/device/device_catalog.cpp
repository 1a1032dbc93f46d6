#include "models/device/device_catalog.hpp"

#include <algorithm>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

auto by_name(const std::vector<DeviceSpec>& devices, std::string_view name) {
  return std::lower_bound(devices.begin(), devices.end(), name,
                          [](const DeviceSpec& d, std::string_view n) { return d.name < n; });
}

}  // namespace

void DeviceCatalog::add(DeviceSpec spec) {
  auto it = by_name(devices_, spec.name);
  if (it != devices_.end() && it->name == spec.name) {
    throw InputError("duplicate device '" + spec.name + "'");
  }
  devices_.insert(it, std::move(spec));
}

const DeviceSpec* DeviceCatalog::find(std::string_view name) const {
  auto it = by_name(devices_, name);
  if (it == devices_.end() || it->name != name) return nullptr;
  return &*it;
}

const DeviceSpec& DeviceCatalog::get(std::string_view name) const {
  if (const DeviceSpec* d = find(name)) return *d;
  std::string known;
  for (const DeviceSpec& d : devices_) known += (known.empty() ? "" : ", ") + d.name;
  throw InputError("unknown device '" + std::string(name) +
                   "' (known: " + (known.empty() ? "none" : known) + ")");
}

std::vector<std::string> DeviceCatalog::names() const {
  std::vector<std::string> out;
  out.reserve(devices_.size());
  for (const DeviceSpec& d : devices_) out.push_back(d.name);
  return out;
}

}  // namespace fulcrum::models
