#include "sim/config/perf_model_loader.hpp"

#include <filesystem>
#include <variant>

#include "models/perf/analytic_model.hpp"
#include "models/perf/cross_mode_model.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/perf/table_model.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/config/cross_mode_loader.hpp"

namespace fulcrum::sim {

namespace {

constexpr const char* kFallbackCalibration = "orin-agx-64gb";

std::unique_ptr<models::PerfModel> analytic(const std::string& data_dir,
                                            const models::DeviceSpec& device) {
  std::string file = calibration_path(data_dir, device.name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    file = calibration_path(data_dir, kFallbackCalibration);
  }
  return std::make_unique<models::AnalyticModel>(load_calibration(file));
}

std::unique_ptr<models::PerfModel> table(const TablePerfModel& choice) {
  auto model = std::make_unique<models::TableModel>();
  for (const std::string& path : choice.paths) {
    model->add_profiles(models::read_profile_csv(path));
  }
  return model;
}

// analytic-modes: only where a cross-mode calibration exists; no fallback to another device's.
std::unique_ptr<models::PerfModel> analytic_modes(const std::string& data_dir,
                                                  const models::DeviceSpec& device,
                                                  bool pipeline_simulated) {
  const std::string file = cross_mode_calibration_path(data_dir, device.name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw InputError("device " + device.name +
                     " has no cross-mode calibration (perf_model analytic-modes needs " + file +
                     ", fitted by `fulcrum calibrate --modes`; orin-agx-64gb has one); use "
                     "perf_model: analytic");
  }
  auto model = std::make_unique<models::CrossModeModel>(device, load_cross_mode_calibration(file));
  model->set_pipeline_in_time(!pipeline_simulated);
  return model;
}

}  // namespace

DefaultModel default_perf_model(const std::string& data_dir, const models::DeviceSpec& device) {
  const std::string modes = cross_mode_calibration_path(data_dir, device.name);
  std::error_code ec;
  if (std::filesystem::is_regular_file(modes, ec)) {
    return {AnalyticModesPerfModel{}, "analytic-modes",
            "the device has a cross-mode calibration (" + modes +
                "), fitted across its measured power modes; more accurate than analytic away "
                "from MAXN (docs/MODEL.md)"};
  }
  const std::string own = calibration_path(data_dir, device.name);
  if (std::filesystem::is_regular_file(own, ec)) {
    return {AnalyticPerfModel{}, "analytic",
            "the device has no cross-mode calibration; its own analytic calibration (" + own + ")"};
  }
  return {AnalyticPerfModel{}, "analytic",
          "the device has no calibration of its own: the analytic model with the " +
              std::string(kFallbackCalibration) +
              " coefficients on the device's own cores, clocks and power envelope (predictions "
              "marked extrapolated)"};
}

std::unique_ptr<models::PerfModel> load_perf_model(const PerfModelChoice& choice,
                                                   const std::string& data_dir,
                                                   const models::DeviceSpec& device,
                                                   bool pipeline_simulated) {
  if (std::holds_alternative<DefaultPerfModel>(choice)) {
    return load_perf_model(default_perf_model(data_dir, device).choice, data_dir, device,
                           pipeline_simulated);
  }
  if (const auto* t = std::get_if<TablePerfModel>(&choice)) return table(*t);
  if (std::holds_alternative<AnalyticModesPerfModel>(choice))
    return analytic_modes(data_dir, device, pipeline_simulated);
  return analytic(data_dir, device);
}

}  // namespace fulcrum::sim
