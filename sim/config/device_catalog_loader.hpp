// Reading the device catalog (models/data/devices/*.yaml) into models::DeviceCatalog. The file
// layout is documented at the top of models/data/devices/orin-agx-64gb.yaml. Unknown keys,
// non-ascending tables, presets or grids that disagree with the tables are InputErrors naming
// file:line:col and the key path.
//
//   const std::string dir = std::string(FULCRUM_DATA_DIR) + "/devices";
//   models::DeviceCatalog catalog = load_device_catalog(dir);
#pragma once

#include <string>

#include "models/device/device_catalog.hpp"
#include "models/device/device_spec.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

// Every *.yaml file in `dir`, in name order. A missing or empty folder is an InputError.
models::DeviceCatalog load_device_catalog(const std::string& dir);

// One device file; its `name:` must equal the file's stem.
models::DeviceSpec load_device_file(const std::string& path);

// One device from a parsed document (the name check against the file stem is left to the caller).
models::DeviceSpec parse_device(const YamlNode& root);

}  // namespace fulcrum::sim
