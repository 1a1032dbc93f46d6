// Reading a calibration file (models/data/calibration/<device>.yaml, written by models::to_yaml)
// back into models::AnalyticCoefficients, and the whole `fulcrum calibrate` step: fit the analytic
// model to the reference measurements and produce the file's text and a readable table.
//
//   models::AnalyticCoefficients c = load_calibration(data_dir +
//   "/calibration/orin-agx-64gb.yaml"); CalibrationReport r =
//   calibrate_from_reference("path/to/reference", orin);   // FULCRUM_REFERENCE_DIR
#pragma once

#include <string>

#include "models/device/device_spec.hpp"
#include "models/perf/analytic_model.hpp"
#include "models/perf/calibration.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

// Every coefficient of models::coefficient_fields() must be present as {value, unit, source};
// unknown coefficients, missing ones and values out of range are InputErrors naming
// file:line:col and the key path ("coefficients.eff_compute.value").
models::AnalyticCoefficients load_calibration(const std::string& path);
models::AnalyticCoefficients parse_calibration(const YamlNode& root);

// The calibration file shipped for a device: <data_dir>/calibration/<device>.yaml.
std::string calibration_path(const std::string& data_dir, const std::string& device);

struct CalibrationReport {
  models::CalibrationResult result;
  std::string yaml;   // the calibration file's text (models::to_yaml)
  std::string table;  // measured vs predicted per anchor, MAPE overall and per workload
};

// Reads the reference CSVs in reference_dir, fits the analytic model for `device` with the
// workload catalog and returns the file text and table. Deterministic: the same inputs give
// byte-identical text. InputError when the directory lacks the files or has no anchors for
// the device.
CalibrationReport calibrate_from_reference(const std::string& reference_dir,
                                           const models::DeviceSpec& device);

}  // namespace fulcrum::sim
