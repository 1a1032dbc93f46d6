#include "sim/config/calibration_loader.hpp"

#include <set>
#include <string_view>

#include "models/perf/reference_anchors.hpp"
#include "models/workload/workload_catalog.hpp"

namespace fulcrum::sim {

namespace {

// Range of each coefficient that the model can run with.
void check_range(const YamlNode& value, const std::string& name, double v) {
  const bool share = name == "launch_overlap" || name.find("_share") != std::string::npos ||
                     name.find("v_min_ratio") != std::string::npos;
  if (share && (v < 0 || v > 1)) value.fail("expected a value in [0, 1]");
  const bool positive =
      name.rfind("eff_", 0) == 0 || name == "cpu_ref_khz" || name.rfind("ref_", 0) == 0;
  if (positive && !(v > 0)) value.fail("expected a value > 0");
  if (v < 0) value.fail("expected a value >= 0");
}

}  // namespace

models::AnalyticCoefficients parse_calibration(const YamlNode& root) {
  root.expect_map();
  root.allow_keys({"version", "model", "device", "sources", "fit", "coefficients", "anchors"});
  const YamlNode version = root.required("version");
  if (version.as_int() != 1) version.fail("unsupported version (expected 1)");
  const YamlNode model = root.required("model");
  if (model.as_string() != "analytic") model.fail("expected 'analytic'");

  models::AnalyticCoefficients c;
  c.device = root.required("device").as_string();
  const YamlNode coeffs = root.required("coefficients");
  coeffs.expect_map();
  std::set<std::string, std::less<>> known;
  for (const models::CoefficientField& f : models::coefficient_fields()) known.insert(f.name);
  for (const std::string& key : coeffs.keys()) {
    if (!known.count(key)) coeffs.required(key).fail("unknown coefficient '" + key + "'");
  }
  for (const models::CoefficientField& f : models::coefficient_fields()) {
    const YamlNode entry = coeffs.required(f.name);
    entry.expect_map();
    entry.allow_keys({"value", "unit", "source"});
    const YamlNode value = entry.required("value");
    const double v = value.as_double();
    check_range(value, f.name, v);
    c.*(f.member) = v;
  }
  if (c.static_gpu_soc_share + c.static_cpu_cv_share > 1) {
    coeffs.required("static_cpu_cv_share")
        .fail("static_gpu_soc_share + static_cpu_cv_share must not exceed 1");
  }
  return c;
}

models::AnalyticCoefficients load_calibration(const std::string& path) {
  return parse_calibration(YamlDoc::load(path).root());
}

std::string calibration_path(const std::string& data_dir, const std::string& device) {
  return data_dir + "/calibration/" + device + ".yaml";
}

CalibrationReport calibrate_from_reference(const std::string& reference_dir,
                                           const models::DeviceSpec& device) {
  const models::ReferenceData ref = models::load_reference_data(reference_dir, device);
  if (ref.anchors.empty()) {
    throw InputError(SourceLocation{reference_dir, 0, 0}, "",
                     "no reference measurements for device '" + device.name + "'");
  }
  CalibrationReport report;
  report.result =
      models::fit_analytic(device, ref.anchors, models::workload_catalog(), ref.sources);
  report.yaml = models::to_yaml(report.result);
  report.table = models::to_table(report.result);
  return report;
}

}  // namespace fulcrum::sim
