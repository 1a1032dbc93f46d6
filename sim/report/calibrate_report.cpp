#include "sim/report/calibrate_report.hpp"

#include <cstdint>

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

std::string calibrate_json(const CalibrateReport& report) {
  JsonWriter j;
  j.begin_object();
  j.key("kind").value(report.kind);
  j.key("device").value(report.device);
  j.key("fitted_rows").value(static_cast<std::uint64_t>(report.fitted_rows));
  j.key("evaluated_rows").value(static_cast<std::uint64_t>(report.evaluated_rows));
  j.key("in_sample").value(report.in_sample);
  j.key("iterations");
  if (report.iterations) {
    j.value(*report.iterations);
  } else {
    j.null();
  }
  j.key("time_mape_pct").value(report.time_mape_pct);
  j.key("power_mape_pct").value(report.power_mape_pct);
  j.key("calibration_yaml");
  if (report.written) {
    j.value(report.written->string());
  } else {
    j.null();
  }
  j.end_object();
  return j.take();
}

}  // namespace fulcrum::sim
