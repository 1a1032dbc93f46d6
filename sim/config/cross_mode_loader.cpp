#include "sim/config/cross_mode_loader.hpp"

#include <array>
#include <cmath>
#include <cstdint>
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

models::Phase read_phase(const YamlNode& node) {
  const std::string phase = node.as_string();
  if (phase != "training" && phase != "inference") node.fail("expected training or inference");
  return phase == "training" ? models::Phase::training : models::Phase::inference;
}

// A percentage error: MAPE >= 0, a mean signed error any finite value (as_double rejects the rest).
double read_pct(const YamlNode& node, bool absolute) {
  const double v = absolute ? node.as_nonnegative_double() : node.as_double();
  if (!(std::abs(v) <= 1e6)) node.fail("expected a percentage within [-1e6, 1e6]");
  return v;
}

// Optional: the leave-one-workload-out check of the zero-shot parameters
// (models::ZeroShotCheck), as `fulcrum calibrate --modes --zero-shot F --out` writes it.
models::ZeroShotCheck read_zero_shot_check(const YamlNode& z) {
  z.expect_map();
  z.allow_keys({"device_modes", "seed", "results"});
  models::ZeroShotCheck check;
  const YamlNode share = z.required("device_modes");
  check.device_modes = share.as_double();
  if (!(check.device_modes > 0 && check.device_modes <= 1))
    share.fail("expected a share in (0, 1]");
  const YamlNode seed = z.required("seed");
  if (seed.as_int() < 0) seed.fail("expected a seed >= 0");
  check.seed = static_cast<std::uint64_t>(seed.as_int());
  const YamlNode results = z.required("results");
  results.expect_sequence();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const YamlNode r = results.at(i);
    r.expect_map();
    r.allow_keys({"workload", "phase", "rows", "time_mape_pct", "time_bias_pct", "power_mape_pct",
                  "power_bias_pct", "few_shot", "own_fit"});
    models::ZeroShotCheck::Result one;
    one.key = {r.required("workload").as_string(), read_phase(r.required("phase"))};
    one.rows = static_cast<std::size_t>(r.required("rows").as_positive_int());
    one.time_mape_pct = read_pct(r.required("time_mape_pct"), true);
    one.time_bias_pct = read_pct(r.required("time_bias_pct"), false);
    one.power_mape_pct = read_pct(r.required("power_mape_pct"), true);
    one.power_bias_pct = read_pct(r.required("power_bias_pct"), false);
    if (auto f = r.optional("few_shot")) {
      f->expect_sequence();
      for (std::size_t j = 0; j < f->size(); ++j) {
        const YamlNode p = f->at(j);
        p.expect_map();
        p.allow_keys({"k", "time_mape_pct", "power_mape_pct"});
        one.few_shot.push_back({p.required("k").as_positive_int(),
                                read_pct(p.required("time_mape_pct"), true),
                                read_pct(p.required("power_mape_pct"), true)});
      }
    }
    if (auto o = r.optional("own_fit")) {
      o->expect_map();
      o->allow_keys({"time_mape_pct", "power_mape_pct"});
      one.own_fit_time_mape_pct = read_pct(o->required("time_mape_pct"), true);
      one.own_fit_power_mape_pct = read_pct(o->required("power_mape_pct"), true);
    }
    for (const models::ZeroShotCheck::Result& earlier : check.results) {
      if (earlier.key == one.key) r.fail("workload and phase given twice");
    }
    check.results.push_back(std::move(one));
  }
  return check;
}

}  // namespace

models::CrossModeCalibration parse_cross_mode_calibration(const YamlNode& root) {
  root.expect_map();
  root.allow_keys({"version", "model", "device", "coefficients", "workloads", "graph_coefficients",
                   "zero_shot_check"});
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
    // A calibration written before the oversubscription term was fitted without it: 0 is the
    // model it was fitted with.
    if (std::string_view(f.name) == "oversubscription_mhz" && !coeffs.optional(f.name)) {
      c.device.*(f.member) = 0;
      continue;
    }
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
    const models::Phase phase = read_phase(w.required("phase"));
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
    const models::WorkloadKey key{name, phase};
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
  if (auto z = root.optional("zero_shot_check")) c.zero_shot_check = read_zero_shot_check(*z);
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
