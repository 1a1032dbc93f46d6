// `fulcrum calibrate` as a function: fit the analytic model to the published anchors, or (modes)
// the cross-mode model to the measured power modes, on all rows, a random share (holdout) or one
// new workload's profile (fit / fit_sample), and write the calibration YAML.
//
//   CalibrateReport r = calibrate({.reference = {dir, "from --reference"}, .modes = true});
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "sim/config/data_dirs.hpp"
#include "sim/report/calibrate_report.hpp"

namespace fulcrum::sim::app {

struct CalibrateRequest {
  std::string device = "orin-agx-64gb";
  DataDir reference = {};  // the reference measurements, read in place
  std::optional<std::filesystem::path> out = std::nullopt;  // a .yaml file, or a folder
  bool quiet = false;                                       // no fit table in the report's text
  bool modes = false;                                       // the cross-mode model
  // With modes only:
  std::optional<double> holdout = std::nullopt;  // share of the modes held out, in (0, 1)
  // Leave each workload out (or only `workload`): the device fitted on this share of the other
  // workloads' modes, every row of the one left out predicted from its layer graph, in (0, 1].
  std::optional<double> zero_shot = std::nullopt;
  // Threads of a modes fit (0: one per core): the Jacobian's columns, and with zero_shot the
  // workloads left out at once, one each; the report is the same bytes for every count.
  unsigned jobs = 0;
  // Told one line (no newline) as each step of a minutes-long fit ends (zero_shot: each workload
  // left out); may be empty.
  std::function<void(const std::string& line)> progress = {};
  std::uint64_t seed = 1;                                   // of the split and the samples
  std::optional<std::filesystem::path> fit = std::nullopt;  // profile CSV of a new workload
  std::optional<std::size_t> fit_sample = std::nullopt;     // or this many reference rows of it
  std::optional<std::string> workload = std::nullopt;       // the new workload
  std::string phase = "training";                           // of fit_sample
  std::optional<std::filesystem::path> at = std::nullopt;   // rows to report on, with fit
  std::string data_dir = default_data_dir();                // the device catalog's folder
};

// Every input (the reference folder, the device, the CSVs, `out`) is checked before the fit
// (InputError, key paths as the verb's options); the YAML is published atomically.
CalibrateReport calibrate(const CalibrateRequest& request);

}  // namespace fulcrum::sim::app
