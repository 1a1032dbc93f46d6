// Reading a cross-mode calibration file (models/data/calibration/<device>-modes.yaml, written by
// models::cross_mode_yaml) back into models::CrossModeCalibration, and the `fulcrum calibrate
// --modes` steps that read the reference measurements in place.
//
//   models::CrossModeCalibration c = load_cross_mode_calibration(
//       cross_mode_calibration_path(data_dir, "orin-agx-64gb"));
#pragma once

#include <string>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/perf/cross_mode_fit.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

// Every coefficient of models::cross_mode_fields() as {value, unit, source} and every workload's
// parameters; unknown or missing keys and out-of-range values are InputErrors naming
// file:line:col and the key path.
models::CrossModeCalibration load_cross_mode_calibration(const std::string& path);
models::CrossModeCalibration parse_cross_mode_calibration(const YamlNode& root);

// <data_dir>/calibration/<device>-modes.yaml.
std::string cross_mode_calibration_path(const std::string& data_dir, const std::string& device);

// The measurement files the cross-mode fit reads, relative to the reference folder.
const std::vector<std::string>& cross_mode_reference_files();

// Every busy row of those files for `device` (InputError when a file is missing).
std::vector<models::ModeRow> read_cross_mode_reference(const std::string& reference_dir,
                                                       const models::DeviceSpec& device);

// The shipped calibration's text: the fit over every reference row, with its header.
std::string cross_mode_calibration_text(const models::CrossModeCalibration& calibration,
                                        const std::vector<models::ModeRow>& rows,
                                        const std::string& command);

}  // namespace fulcrum::sim
