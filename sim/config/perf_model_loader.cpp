#include "sim/config/perf_model_loader.hpp"

#include <filesystem>
#include <variant>

#include "models/perf/analytic_model.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/perf/table_model.hpp"
#include "sim/config/calibration_loader.hpp"

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

}  // namespace

std::unique_ptr<models::PerfModel> load_perf_model(const PerfModelChoice& choice,
                                                   const std::string& data_dir,
                                                   const models::DeviceSpec& device) {
  if (const auto* t = std::get_if<TablePerfModel>(&choice)) return table(*t);
  return analytic(data_dir, device);
}

}  // namespace fulcrum::sim
