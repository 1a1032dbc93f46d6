// What `fulcrum predict` found, and its two renderings: the text a person reads and the JSON a
// program reads (`--json`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fulcrum::sim {

struct PredictRow {
  int cores = 0;
  double cpu_khz = 0, gpu_hz = 0, emc_hz = 0;
  std::string phase;
  int batch_size = 0;
  double predicted_time_ms = 0, measured_time_ms = 0;
  double predicted_power_w = 0, measured_power_w = 0;
  bool held_out = false;  // its mode was not among the fitted rows
};

// Over the held-out rows: mean absolute and mean signed error, in % of the measured value.
struct PredictErrors {
  double time_mape_pct = 0, power_mape_pct = 0;
  double time_bias_pct = 0, power_bias_pct = 0;  // > 0: the predictor over-estimates
};

struct PredictReport {
  std::string predictor, workload, phase;
  int batch_size = 0;
  std::uint64_t seed = 0;
  std::string fit_source, at_source;
  std::size_t fit_rows = 0, fit_available = 0;
  std::vector<PredictRow> rows;         // every predicted row of --at, in file order
  std::optional<PredictErrors> errors;  // absent when no row is held out
  std::vector<std::string> written;     // files written
};

// The human report (stdout of `fulcrum predict`).
std::string predict_text(const PredictReport& report);
// The same as one JSON document, with every row's prediction and residual.
std::string predict_json(const PredictReport& report);

}  // namespace fulcrum::sim
