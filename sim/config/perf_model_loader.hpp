// The one place that turns a scenario's `device.perf_model` into a models::PerfModel: the
// calibrated analytic model of the device, or a table model over measured profile CSVs.
//
//   std::unique_ptr<models::PerfModel> m =
//       load_perf_model(scenario.device.perf_model, data_dir, device);
#pragma once

#include <memory>
#include <string>

#include "models/device/device_spec.hpp"
#include "models/perf/perf_model.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// analytic: <data_dir>/calibration/<device>.yaml, or the Orin AGX 64GB calibration (extrapolated
// by the model to the device) when the device has none. analytic-modes:
// <data_dir>/calibration/<device>-modes.yaml, InputError when the device has none. table: every row
// of every CSV, each registered under the workload its `workload`/`model` column names (InputError,
// located in the CSV, for a malformed file or one without a workload column).
// `pipeline_simulated`: the run models the training data pipeline itself
// (`data_pipeline: dataloader`), so analytic-modes gives the GPU path's time and power without the
// measured pipeline's stall and worker power, which the runtime adds (no double count).
// The model a scenario that names no `perf_model` gets on `device`, and why: analytic-modes where
// <data_dir>/calibration/<device>-modes.yaml exists (fitted across the measured power modes, the
// more accurate model away from MAXN), else analytic.
struct DefaultModel {
  PerfModelChoice choice;
  std::string name;    // "analytic-modes" or "analytic"
  std::string reason;  // one sentence for `fulcrum devices NAME`
};
DefaultModel default_perf_model(const std::string& data_dir, const models::DeviceSpec& device);

// DefaultPerfModel is resolved by default_perf_model first.
std::unique_ptr<models::PerfModel> load_perf_model(const PerfModelChoice& choice,
                                                   const std::string& data_dir,
                                                   const models::DeviceSpec& device,
                                                   bool pipeline_simulated = false);

}  // namespace fulcrum::sim
