// `fulcrum predict` as a function: fit a time and power predictor to one workload's profiled
// modes, predict every row of another profile, and report each row's residual, the held-out
// MAPE and the bias (docs/PREDICT.md).
//
//   PredictReport r = predict({.predictor = "nn", .fit_csv = "fit.csv", .at_csv = "at.csv"});
//   std::cout << predict_text(r);
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "sim/config/data_dirs.hpp"
#include "sim/report/predict_report.hpp"

namespace fulcrum::sim::app {

struct PredictRequest {
  std::string predictor = "powertrain";  // analytic, analytic-modes, nn, powertrain
  std::filesystem::path fit_csv = {};
  std::filesystem::path at_csv = {};
  std::optional<std::filesystem::path> out_csv = std::nullopt;       // the predictions
  std::optional<std::filesystem::path> save_weights = std::nullopt;  // nn: the trained networks
  std::optional<std::filesystem::path> weights = std::nullopt;  // powertrain: default reference
  std::optional<std::string> workload = std::nullopt;  // default: the one the --fit file names
  std::optional<std::string> phase = std::nullopt;     // keep only rows of this phase
  std::optional<int> batch_size = std::nullopt;        // keep only rows of this batch size
  std::optional<int> sample = std::nullopt;            // fit on K rows drawn by `seed`
  std::uint64_t seed = 1;
  std::optional<int> min_steps = std::nullopt;
  std::string device = "orin-agx-64gb";  // analytic: the device the rows were measured on
  std::string data_dir = default_data_dir();
  std::string command_line = {};  // recorded in saved weights
};

// Checks every input and both outputs first (bad input: one InputError, nothing written), fits,
// predicts, then writes --out and --save-weights (each all at once, AtomicFile).
PredictReport predict(const PredictRequest& request);

}  // namespace fulcrum::sim::app
