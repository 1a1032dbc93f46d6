// DeviceCatalog: the known Jetson modules by name, filled by sim/config's device catalog loader.
//
//   const DeviceSpec& orin = catalog.get("orin-agx-64gb");   // InputError when unknown
//   for (const DeviceSpec& d : catalog.devices()) ...        // sorted by name
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/device/device_spec.hpp"

namespace fulcrum::models {

class DeviceCatalog {
 public:
  // Throws InputError "duplicate device 'x'" when the name is already present.
  void add(DeviceSpec spec);

  // Throws InputError "unknown device 'x' (known: a, b, ...)".
  const DeviceSpec& get(std::string_view name) const;
  // nullptr when absent.
  const DeviceSpec* find(std::string_view name) const;

  std::vector<std::string> names() const;                              // ascending
  const std::vector<DeviceSpec>& devices() const { return devices_; }  // sorted by name
  std::size_t size() const { return devices_.size(); }
  bool empty() const { return devices_.empty(); }

 private:
  std::vector<DeviceSpec> devices_;  // kept sorted by name; a handful of entries
};

}  // namespace fulcrum::models
