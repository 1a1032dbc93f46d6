#include "sim/config/cross_mode_loader.hpp"

#include <array>
#include <cmath>
#include <filesystem>
#include <set>

#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"

namespace fulcrum::sim {

namespace {

double read_positive(const YamlNode& n) {
  const double v = n.as_double();
  if (!(v > 0)) n.fail("expected a value > 0");
  return v;
}

// A workload's learned residual correction: {length_scale, linear, points: [[z x 5 or 8], ...],
// weights: [...]}, one weight per point; 8 values per point: with the regime axes.
models::ResidualCorrection read_correction(const YamlNode& n) {
  n.expect_map();
  n.allow_keys({"length_scale", "linear", "points", "weights"});
  models::ResidualCorrection c;
  c.length_scale = read_positive(n.required("length_scale"));
  const YamlNode linear = n.required("linear");
  c.linear = linear.as_double();
  if (!(c.linear >= 0 && std::isfinite(c.linear))) linear.fail("expected a finite value >= 0");
  const YamlNode points = n.required("points");
  points.expect_sequence();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const YamlNode p = points.at(i);
    p.expect_sequence();
    if (i == 0) c.regime = p.size() == models::kResidualDims;
    const std::size_t axes = c.regime ? models::kResidualDims : models::kResidualAxes;
    if (p.size() != axes) {
      p.fail(i == 0 ? "expected " + std::to_string(models::kResidualAxes) +
                          " values (GPU, CPU, EMC clock, cores, batch size position) or " +
                          std::to_string(models::kResidualDims) +
                          " (and the launch, CPU-work and compute shares)"
                    : "expected " + std::to_string(axes) + " values, as the first point has");
    }
    std::array<double, models::kResidualDims> z{};
    for (std::size_t j = 0; j < axes; ++j) {
      const YamlNode v = p.at(j);
      z[j] = v.as_double();
      if (!(std::abs(z[j]) <= 100)) v.fail("expected a value within [-100, 100]");
    }
    c.points.push_back(z);
  }
  const YamlNode weights = n.required("weights");
  weights.expect_sequence();
  if (weights.size() != c.points.size()) {
    weights.fail("expected one weight per point (" + std::to_string(c.points.size()) + ")");
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const YamlNode v = weights.at(i);
    c.weights.push_back(v.as_double());
    if (!std::isfinite(c.weights.back())) v.fail("expected a finite number");
  }
  return c;
}

}  // namespace

models::CrossModeCalibration parse_cross_mode_calibration(const YamlNode& root) {
  root.expect_map();
  root.allow_keys(
      {"version", "model", "device", "coefficients", "workloads", "graph_coefficients"});
  const YamlNode version = root.required("version");
  if (version.as_int() != 1) version.fail("unsupported version (expected 1)");
  const YamlNode model = root.required("model");
  if (model.as_string() != "analytic-modes") model.fail("expected 'analytic-modes'");
  models::CrossModeCalibration c;
  c.device.device = root.required("device").as_string();
  const YamlNode coeffs = root.required("coefficients");
  coeffs.expect_map();
  std::set<std::string, std::less<>> known;
  for (const models::CrossModeField& f : models::cross_mode_fields()) known.insert(f.name);
  for (const std::string& key : coeffs.keys()) {
    if (!known.count(key)) coeffs.required(key).fail("unknown coefficient '" + key + "'");
  }
  for (const models::CrossModeField& f : models::cross_mode_fields()) {
    const YamlNode entry = coeffs.required(f.name);
    entry.expect_map();
    entry.allow_keys({"value", "unit", "source"});
    const YamlNode value = entry.required("value");
    double v = value.as_double();
    if (f.kind == 's') {
      if (!(v >= 0 && v <= 1)) value.fail("expected a value in [0, 1]");
    } else if (f.kind == 'e') {
      if (!(v >= 1)) value.fail("expected a value >= 1");
    } else if (!(v >= 0)) {
      value.fail("expected a value >= 0");
    }
    if (std::string_view(f.name) == "cpu_ref_khz" || std::string_view(f.name) == "workers") {
      v = read_positive(value);
    }
    c.device.*(f.member) = v;
  }
  const YamlNode list = root.required("workloads");
  list.expect_sequence();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlNode w = list.at(i);
    w.expect_map();
    w.allow_keys({"workload", "phase", "eff_compute", "eff_memory", "gpu_activity", "kernel_scale",
                  "preprocess_ms", "kernel_cycles", "overlap_host", "time_correction",
                  "power_correction"});
    const std::string name = w.required("workload").as_string();
    const YamlNode phase_node = w.required("phase");
    const std::string phase = phase_node.as_string();
    if (phase != "training" && phase != "inference") {
      phase_node.fail("expected training or inference");
    }
    models::CrossModeWorkload p;
    p.eff_compute = read_positive(w.required("eff_compute"));
    p.eff_memory = read_positive(w.required("eff_memory"));
    p.gpu_activity = read_positive(w.required("gpu_activity"));
    p.kernel_scale = read_positive(w.required("kernel_scale"));
    p.preprocess_ms = w.required("preprocess_ms").as_nonnegative_double();
    // Optional, from a new workload's own profiled rows (models::fit_workload).
    if (auto k = w.optional("kernel_cycles")) p.kernel_cycles = read_positive(*k);
    if (auto o = w.optional("overlap_host")) {
      p.overlap_host = o->as_double();
      if (!(*p.overlap_host > 1)) o->fail("expected an exponent > 1");
    }
    if (auto t = w.optional("time_correction")) p.time_correction = read_correction(*t);
    if (auto t = w.optional("power_correction")) p.power_correction = read_correction(*t);
    const models::WorkloadKey key{
        name, phase == "training" ? models::Phase::training : models::Phase::inference};
    if (!c.workloads.emplace(key, p).second) w.fail("workload and phase given twice");
  }
  // Optional: per-op-class log coefficients (dense_conv, grouped_conv, gemm, other, recurrent) of
  // the zero-shot parameters.
  if (auto g = root.optional("graph_coefficients")) {
    g->expect_map();
    g->allow_keys({"inv_compute", "inv_memory", "activity", "kernels"});
    models::GraphCoefficients gc;
    const auto read = [&](const char* key, std::array<double, models::kOpClasses>& out) {
      const YamlNode l = g->required(key);
      l.expect_sequence();
      if (l.size() != models::kOpClasses) {
        l.fail("expected " + std::to_string(models::kOpClasses) +
               " values (dense_conv, grouped_conv, gemm, other, recurrent)");
      }
      for (std::size_t i = 0; i < models::kOpClasses; ++i) {
        const YamlNode v = l.at(i);
        out[i] = v.as_double();
        if (!(std::abs(out[i]) <= 50)) v.fail("expected a log value within [-50, 50]");
      }
    };
    read("inv_compute", gc.inv_compute);
    read("inv_memory", gc.inv_memory);
    read("activity", gc.activity);
    read("kernels", gc.kernels);
    c.graph = gc;
  }
  return c;
}

models::CrossModeCalibration load_cross_mode_calibration(const std::string& path) {
  return parse_cross_mode_calibration(YamlDoc::load(path).root());
}

std::string cross_mode_calibration_path(const std::string& data_dir, const std::string& device) {
  return data_dir + "/calibration/" + device + "-modes.yaml";
}

const std::vector<std::string>& cross_mode_reference_files() {
  static const std::vector<std::string> files = {"measurements/orin-agx-training-modes.csv",
                                                 "measurements/orin-agx-inference-modes.csv"};
  return files;
}

std::vector<models::ModeRow> read_cross_mode_reference(const std::string& reference_dir,
                                                       const models::DeviceSpec& device) {
  std::vector<models::ModeRow> rows;
  for (const std::string& f : cross_mode_reference_files()) {
    std::string path = reference_dir;
    path += '/';
    path += f;
    for (models::ModeRow& r : models::mode_rows(models::read_profile_csv(path), device)) {
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

std::string cross_mode_calibration_text(const models::CrossModeCalibration& calibration,
                                        const std::vector<models::ModeRow>& rows,
                                        const std::string& command) {
  std::vector<std::string> header = {
      "Cross-mode performance/power calibration (perf_model: analytic-modes) for " +
          calibration.device.device + ".",
      "Generated by: " + command,
      "Fit: models::fit_cross_mode, Levenberg-Marquardt on log-time and relative power errors",
      "(Huber 10%) over all " + std::to_string(rows.size()) +
          " busy rows of the reference files (no random draw: no seed), read in place:"};
  for (const std::string& f : cross_mode_reference_files()) header.push_back("  " + f);
  header.push_back(
      "Equations, reasons and held-out accuracy: docs/MODEL.md, \"Across power modes\".");
  header.push_back("Do not edit; tests/sim/config/cross_mode_loader_test.cpp regenerates it.");
  return models::cross_mode_yaml(calibration, header);
}

}  // namespace fulcrum::sim
