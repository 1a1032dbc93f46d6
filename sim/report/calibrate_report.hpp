// What `fulcrum calibrate` fitted and wrote, and its JSON (`--json`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace fulcrum::sim {

struct CalibrateReport {
  // reference: the analytic model on the published anchors; modes: the cross-mode model on every
  // reference row; holdout: the same on a random share, errors on the rest; new-workload: one
  // workload's parameters from --fit / --fit-sample, errors on its other rows.
  std::string kind;
  std::string device;
  std::size_t fitted_rows = 0;     // anchors or rows the fit used
  std::size_t evaluated_rows = 0;  // rows the errors are over (the fitted ones when in-sample)
  bool in_sample = false;          // the errors are over the rows that were fitted
  std::optional<int> iterations;   // of the cross-mode fit
  double time_mape_pct = 0;
  double power_mape_pct = 0;
  std::string text;  // the tables the verb prints on stdout (empty where --quiet drops them)
  std::optional<std::filesystem::path> written;  // the calibration YAML, with --out
};

// {"kind", "device", "fitted_rows", "evaluated_rows", "in_sample", "iterations" | null,
//  "time_mape_pct", "power_mape_pct", "calibration_yaml" | null}
std::string calibrate_json(const CalibrateReport& report);

}  // namespace fulcrum::sim
