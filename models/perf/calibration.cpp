#include "models/perf/calibration.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "models/error.hpp"

namespace fulcrum::models {

const std::vector<CoefficientField>& coefficient_fields() {
  static const std::vector<CoefficientField> fields = {
      {"eff_compute", "fraction of CUDA-core peak (cores_on x 2 x f_gpu)", "fitted: time anchors",
       &AnalyticCoefficients::eff_compute},
      {"eff_matmul", "fraction of CUDA-core peak, matrix products (linear, attention, LSTM)",
       "fitted: time anchors", &AnalyticCoefficients::eff_matmul},
      {"eff_grouped", "fraction of CUDA-core peak, grouped/depthwise convolutions",
       "fitted: time anchors", &AnalyticCoefficients::eff_grouped},
      {"eff_memory", "fraction of peak DRAM bandwidth (f_emc x 2 x bus bytes)",
       "fitted: time anchors", &AnalyticCoefficients::eff_memory},
      {"launch_us", "us per kernel launch at cpu_ref_khz", "fitted: time anchors",
       &AnalyticCoefficients::launch_us},
      {"overhead_ms", "ms per minibatch at cpu_ref_khz", "fitted: time anchors",
       &AnalyticCoefficients::overhead_ms},
      {"launch_overlap", "share of min(GPU, launch) per layer not hidden (0..1)",
       "fitted: time anchors (grid search)", &AnalyticCoefficients::launch_overlap},
      {"cpu_ref_khz", "kHz", "prior: the device's highest CPU frequency",
       &AnalyticCoefficients::cpu_ref_khz},
      {"static_w", "W, module, nothing running, at maximum clocks", "fitted: power anchors",
       &AnalyticCoefficients::static_w},
      {"gpu_dynamic_w", "W at 100% GPU busy, all TPCs, maximum f_gpu", "fitted: power anchors",
       &AnalyticCoefficients::gpu_dynamic_w},
      {"memory_dynamic_w", "W at 100% of peak DRAM bandwidth", "fitted: power anchors",
       &AnalyticCoefficients::memory_dynamic_w},
      {"cpu_dynamic_w", "W with the host thread 100% busy at maximum f_cpu",
       "fitted: power anchors", &AnalyticCoefficients::cpu_dynamic_w},
      {"gpu_v_min_ratio", "V(f_min) / V(f_max), GPU", "prior: linear V(f), DVFS tables",
       &AnalyticCoefficients::gpu_v_min_ratio},
      {"cpu_v_min_ratio", "V(f_min) / V(f_max), CPU", "prior: linear V(f), DVFS tables",
       &AnalyticCoefficients::cpu_v_min_ratio},
      {"static_gpu_soc_share", "share of static_w on VDD_GPU_SOC", "prior: rail split",
       &AnalyticCoefficients::static_gpu_soc_share},
      {"static_cpu_cv_share", "share of static_w on VDD_CPU_CV", "prior: rail split",
       &AnalyticCoefficients::static_cpu_cv_share},
      {"static_scalable_share", "share of each rail's static power that scales with the mode",
       "prior", &AnalyticCoefficients::static_scalable_share},
      {"ref_cuda_cores", "CUDA cores of the calibration device", "device catalog",
       &AnalyticCoefficients::ref_cuda_cores},
      {"ref_memory_bus_bits", "bits, DRAM bus of the calibration device", "device catalog",
       &AnalyticCoefficients::ref_memory_bus_bits},
      {"ref_module_peak_w", "W, module peak of the calibration device", "device catalog",
       &AnalyticCoefficients::ref_module_peak_w},
  };
  return fields;
}

namespace {

// --- Bounded linear least squares -------------------------------------------------------------

// min ||A x - y||^2 subject to x >= lower. Exact for a handful of unknowns: every set of
// variables held at their bound is tried, the free ones solved by QR, and the best feasible kept
// (the optimum of this convex problem is the solution of its own active set).
Eigen::VectorXd bounded_least_squares(const Eigen::MatrixXd& a, const Eigen::VectorXd& y,
                                      const Eigen::VectorXd& lower) {
  const int n = static_cast<int>(a.cols());
  assert(n <= 16);
  Eigen::VectorXd best = lower;
  double best_cost = std::numeric_limits<double>::infinity();
  for (unsigned held = 0; held < (1u << n); ++held) {
    std::vector<int> free;
    Eigen::VectorXd x = lower;
    for (int j = 0; j < n; ++j) {
      if (!(held & (1u << j))) free.push_back(j);
    }
    if (!free.empty()) {
      Eigen::MatrixXd af(a.rows(), static_cast<Eigen::Index>(free.size()));
      for (std::size_t k = 0; k < free.size(); ++k)
        af.col(static_cast<Eigen::Index>(k)) = a.col(free[k]);
      // Free variables enter as unknowns; held ones sit at their bound.
      Eigen::VectorXd held_x = lower;
      for (int j : free) held_x(j) = 0;
      const Eigen::VectorXd rhs = y - a * held_x;
      const Eigen::VectorXd xf = af.colPivHouseholderQr().solve(rhs);
      bool feasible = true;
      for (std::size_t k = 0; k < free.size(); ++k) {
        const double v = xf(static_cast<Eigen::Index>(k));
        if (!std::isfinite(v) || v < lower(free[k])) feasible = false;
        x(free[k]) = v;
      }
      if (!feasible) continue;
    }
    const double cost = (a * x - y).squaredNorm();
    if (cost < best_cost - 1e-15) {
      best_cost = cost;
      best = x;
    }
  }
  return best;
}

// --- Time fit ---------------------------------------------------------------------------------

struct TimeRow {
  std::vector<LayerFeatures> layers;
  double host_scale = 1;
  double measured_ms = 0;
};

// Unknowns of the time fit: 1/eff_compute, 1/eff_memory, launch time (ms), overhead (ms),
// 1/eff_matmul, 1/eff_grouped.
constexpr int kTimeParams = 6;
using TimeParams = std::array<double, kTimeParams>;

int compute_param(const LayerFeatures& f) {
  switch (f.compute_class) {
    case ComputeClass::general:
      return 0;
    case ComputeClass::matmul:
      return 4;
    case ComputeClass::grouped:
      return 5;
  }
  return 0;
}
double inv_eff(const LayerFeatures& f, const TimeParams& x) { return x[compute_param(f)]; }

double predict_time(const TimeRow& r, const TimeParams& x, double overlap) {
  double t = 0;
  for (const LayerFeatures& f : r.layers) {
    const double gpu = std::max(inv_eff(f, x) * f.compute_ms, x[1] * f.memory_ms);
    const double host = x[2] * f.launches;
    t += std::max(gpu, host) + overlap * std::min(gpu, host);
  }
  return t + x[3] * r.host_scale;
}

double time_cost(const std::vector<TimeRow>& rows, const TimeParams& x, double overlap) {
  double c = 0;
  for (const TimeRow& r : rows) {
    const double e = predict_time(r, x, overlap) / r.measured_ms - 1.0;
    c += e * e;
  }
  return c;
}

// The linear system of one classification (which roofline side and which of GPU/launch wins in
// each layer, taken at x), rows divided by the measurement.
Eigen::MatrixXd linearise(const std::vector<TimeRow>& rows, const TimeParams& x, double overlap) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), kTimeParams);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TimeRow& r = rows[i];
    const auto row = static_cast<Eigen::Index>(i);
    for (const LayerFeatures& f : r.layers) {
      const bool compute_bound = inv_eff(f, x) * f.compute_ms >= x[1] * f.memory_ms;
      const double gpu = compute_bound ? inv_eff(f, x) * f.compute_ms : x[1] * f.memory_ms;
      const double host = x[2] * f.launches;
      const double w_gpu = gpu >= host ? 1.0 : overlap;
      const double w_host = gpu >= host ? overlap : 1.0;
      if (compute_bound) {
        a(row, compute_param(f)) += w_gpu * f.compute_ms;
      } else {
        a(row, 1) += w_gpu * f.memory_ms;
      }
      a(row, 2) += w_host * f.launches;
    }
    a(row, 3) = r.host_scale;
    a.row(row) /= r.measured_ms;
  }
  return a;
}

struct TimeFit {
  TimeParams x{};
  double overlap = 0;
  double cost = std::numeric_limits<double>::infinity();
};

TimeFit fit_time_at_overlap(const std::vector<TimeRow>& rows, double overlap) {
  // Efficiencies may not exceed 1 (the roofline is a ceiling); launch and overhead >= 0.
  Eigen::VectorXd lower(kTimeParams);
  lower << 1.0, 1.0, 0.0, 0.0, 1.0, 1.0;
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size()));
  TimeFit best;
  best.overlap = overlap;
  // A few deterministic starting classifications; each is iterated to a fixed point.
  // Grouped convolutions also start far below peak: their arithmetic intensity is so low that
  // an efficiency above a few percent leaves them memory-bound, where the cost ignores it.
  for (double start_inv_eff : {1.5, 4.0, 12.0}) {
    for (double launch_ms : {0.005, 0.03}) {
      for (double start_inv_grouped : {start_inv_eff, 50.0}) {
        TimeParams x{start_inv_eff, start_inv_eff, launch_ms,
                     0.5,           start_inv_eff, start_inv_grouped};
        double cost = time_cost(rows, x, overlap);
        // Gauss-Newton on a piecewise-linear function: the linearisation at x is exact within
        // x's classification; the step is halved until the true cost falls, so it never cycles.
        for (int iter = 0; iter < 100; ++iter) {
          const Eigen::VectorXd s = bounded_least_squares(linearise(rows, x, overlap), ones, lower);
          TimeParams target;
          for (int j = 0; j < kTimeParams; ++j) target[j] = s(j);
          bool improved = false;
          for (double t = 1.0; t > 1e-4; t *= 0.5) {
            TimeParams next;
            for (int j = 0; j < kTimeParams; ++j) next[j] = x[j] + t * (target[j] - x[j]);
            const double c = time_cost(rows, next, overlap);
            if (c < cost - 1e-14 * (1 + cost)) {
              x = next;
              cost = c;
              improved = true;
              break;
            }
          }
          if (!improved) break;
        }
        if (cost < best.cost) {
          best.cost = cost;
          best.x = x;
        }
      }
    }
  }
  return best;
}

TimeFit fit_time(const std::vector<TimeRow>& rows) {
  TimeFit best;
  for (int k = 0; k <= 20; ++k) {
    TimeFit f = fit_time_at_overlap(rows, k * 0.05);
    if (f.cost < best.cost - 1e-15) best = f;
  }
  const double centre = best.overlap;
  for (int k = -4; k <= 4; ++k) {
    const double s = centre + k * 0.01;
    if (k == 0 || s < 0 || s > 1) continue;
    TimeFit f = fit_time_at_overlap(rows, s);
    if (f.cost < best.cost - 1e-15) best = f;
  }
  return best;
}

// --- Power fit --------------------------------------------------------------------------------

// Module power is linear in the four magnitudes: evaluate each with magnitude 1 and the rest 0.
std::array<double, 4> power_features(const AnalyticCoefficients& c, const DeviceSpec& device,
                                     const PowerMode& mode, const TimeBreakdown& t) {
  std::array<double, 4> out{};
  for (int j = 0; j < 4; ++j) {
    AnalyticCoefficients unit = c;
    unit.static_w = j == 0 ? 1 : 0;
    unit.gpu_dynamic_w = j == 1 ? 1 : 0;
    unit.memory_dynamic_w = j == 2 ? 1 : 0;
    unit.cpu_dynamic_w = j == 3 ? 1 : 0;
    out[j] = AnalyticModel(unit).busy_power(device, mode, t).module_w();
  }
  return out;
}

// Time of a minibatch at 100% compute and memory efficiency with free launches: no
// measurement can be faster (to a 1% tolerance for measurement noise).
std::optional<std::string> roofline_violation(const DeviceSpec& device, const Anchor& a,
                                              const std::vector<LayerWork>& layers,
                                              double cpu_ref_khz) {
  if (!a.time_ms) return std::nullopt;
  double bound_ms = 0;
  for (const LayerFeatures& f : layer_features(device, a.mode, layers, cpu_ref_khz)) {
    bound_ms += std::max(f.compute_ms, f.memory_ms);
  }
  if (*a.time_ms >= 0.99 * bound_ms) return std::nullopt;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "measured %.3f ms is below the roofline bound %.3f ms at 100%% efficiency",
                *a.time_ms, bound_ms);
  return std::string(buf);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

CalibrationResult evaluate_analytic(const DeviceSpec& device, const std::vector<Anchor>& anchors,
                                    const WorkloadLookup& workloads,
                                    const AnalyticCoefficients& coefficients,
                                    const std::vector<std::string>& sources) {
  const AnalyticModel model(coefficients);
  CalibrationResult out;
  out.device = device.name;
  out.coefficients = coefficients;
  out.sources = sources;
  std::vector<double> time_errors;
  std::vector<double> time_errors_all;
  std::vector<double> power_errors;
  std::map<std::string, std::vector<double>> by_workload;
  for (const Anchor& a : anchors) {
    const Workload& w = workloads(a.workload);
    const auto layers = w.layer_work(a.phase, a.batch_size);
    const TimeBreakdown t = model.time(device, a.mode, layers);
    AnchorResidual r;
    r.anchor = a;
    if (a.time_ms) {
      r.predicted_time_ms = t.total_ms;
      r.time_error_pct = (t.total_ms - *a.time_ms) / *a.time_ms * 100.0;
      r.time_excluded = roofline_violation(device, a, layers, coefficients.cpu_ref_khz);
      time_errors_all.push_back(std::abs(*r.time_error_pct));
      by_workload[a.workload].push_back(std::abs(*r.time_error_pct));
      if (!r.time_excluded) time_errors.push_back(std::abs(*r.time_error_pct));
    }
    if (a.power_w) {
      r.predicted_power_w = model.busy_power(device, a.mode, t).module_w();
      r.power_error_pct = (*r.predicted_power_w - *a.power_w) / *a.power_w * 100.0;
      if (!a.power_excluded) power_errors.push_back(std::abs(*r.power_error_pct));
    }
    out.residuals.push_back(std::move(r));
  }
  out.time_anchors = static_cast<int>(time_errors.size());
  out.power_anchors = static_cast<int>(power_errors.size());
  out.time_anchors_excluded = static_cast<int>(time_errors_all.size() - time_errors.size());
  out.time_mape_pct = mean(time_errors);
  out.time_mape_all_pct = mean(time_errors_all);
  out.power_mape_pct = mean(power_errors);
  for (const auto& [name, errs] : by_workload)
    out.time_mape_pct_by_workload.emplace_back(name, mean(errs));
  return out;
}

CalibrationResult fit_analytic(const DeviceSpec& device, const std::vector<Anchor>& anchors,
                               const WorkloadLookup& workloads,
                               const std::vector<std::string>& sources,
                               const AnalyticCoefficients& priors) {
  AnalyticCoefficients c = priors;
  c.device = device.name;
  if (!device.cpu_khz.empty()) c.cpu_ref_khz = device.cpu_khz.back();
  c.ref_cuda_cores = device.cuda_cores;
  c.ref_memory_bus_bits = device.memory_bus_bits;
  if (device.module_peak_w) c.ref_module_peak_w = *device.module_peak_w;

  std::vector<TimeRow> rows;
  for (const Anchor& a : anchors) {
    if (!a.time_ms) continue;
    if (!(*a.time_ms > 0)) throw InputError(a.source + ": time_ms must be > 0");
    const Workload& w = workloads(a.workload);
    const auto layers = w.layer_work(a.phase, a.batch_size);
    if (roofline_violation(device, a, layers, c.cpu_ref_khz)) continue;
    rows.push_back({layer_features(device, a.mode, layers, c.cpu_ref_khz),
                    host_scale(a.mode, c.cpu_ref_khz), *a.time_ms});
  }
  if (rows.size() < 4) throw InputError("calibration needs at least 4 time anchors");
  const TimeFit tf = fit_time(rows);
  c.eff_compute = 1.0 / tf.x[0];
  c.eff_memory = 1.0 / tf.x[1];
  c.eff_matmul = 1.0 / tf.x[4];
  c.eff_grouped = 1.0 / tf.x[5];
  c.launch_us = tf.x[2] * 1e3;
  c.overhead_ms = tf.x[3];
  c.launch_overlap = tf.overlap;

  // Power: activities from the fitted time model, magnitudes by bounded least squares.
  const AnalyticModel timed(c);
  std::vector<std::array<double, 4>> feats;
  std::vector<double> measured;
  for (const Anchor& a : anchors) {
    if (!a.power_w || a.power_excluded) continue;
    if (!(*a.power_w > 0)) throw InputError(a.source + ": power_w must be > 0");
    const Workload& w = workloads(a.workload);
    const TimeBreakdown t = timed.time(device, a.mode, w.layer_work(a.phase, a.batch_size));
    feats.push_back(power_features(c, device, a.mode, t));
    measured.push_back(*a.power_w);
  }
  if (feats.size() >= 4) {
    Eigen::MatrixXd pa(static_cast<Eigen::Index>(feats.size()), 4);
    for (std::size_t i = 0; i < feats.size(); ++i) {
      for (int j = 0; j < 4; ++j) pa(static_cast<Eigen::Index>(i), j) = feats[i][j] / measured[i];
    }
    const Eigen::VectorXd p =
        bounded_least_squares(pa, Eigen::VectorXd::Ones(pa.rows()), Eigen::VectorXd::Zero(4));
    c.static_w = p(0);
    c.gpu_dynamic_w = p(1);
    c.memory_dynamic_w = p(2);
    c.cpu_dynamic_w = p(3);
  }
  return evaluate_analytic(device, anchors, workloads, c, sources);
}

CalibrationResult fit_analytic(const DeviceSpec& device, const std::vector<Anchor>& anchors,
                               const WorkloadCatalog& catalog,
                               const std::vector<std::string>& sources,
                               const AnalyticCoefficients& priors) {
  const WorkloadLookup lookup = [&](const std::string& name) -> const Workload& {
    return catalog.get(name);
  };
  return fit_analytic(device, anchors, lookup, sources, priors);
}

// --- Output -----------------------------------------------------------------------------------

namespace {

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

std::string to_yaml(const CalibrationResult& r) {
  std::ostringstream o;
  o << "# Analytic performance/power model calibration for " << r.device << ".\n"
    << "# Generated by `fulcrum calibrate` (models::fit_analytic + models::to_yaml); do not edit.\n"
    << "# Regenerate and read the equations and assumptions in docs/MODEL.md.\n"
    << "version: 1\n"
    << "model: analytic\n"
    << "device: " << r.device << "\n"
    << "sources: [";
  for (std::size_t i = 0; i < r.sources.size(); ++i) o << (i ? ", " : "") << r.sources[i];
  o << "]\n"
    << "fit:\n"
    << "  time_anchors: " << r.time_anchors << "\n"
    << "  power_anchors: " << r.power_anchors << "\n"
    << "  time_anchors_excluded: " << r.time_anchors_excluded << "\n"
    << "  time_mape_pct: " << fixed(r.time_mape_pct, 2) << "\n"
    << "  time_mape_all_pct: " << fixed(r.time_mape_all_pct, 2) << "\n"
    << "  power_mape_pct: " << fixed(r.power_mape_pct, 2) << "\n"
    << "  time_mape_pct_by_workload:\n";
  for (const auto& [name, mape] : r.time_mape_pct_by_workload) {
    o << "    " << name << ": " << fixed(mape, 2) << "\n";
  }
  o << "coefficients:\n";
  for (const CoefficientField& f : coefficient_fields()) {
    o << "  " << f.name << ": {value: " << exact(r.coefficients.*(f.member))
      << ", unit: " << quoted(f.unit) << ", source: " << quoted(f.origin) << "}\n";
  }
  o << "anchors:   # measured vs predicted; error = (predicted - measured) / measured\n";
  for (const AnchorResidual& a : r.residuals) {
    o << "  - {source: " << quoted(a.anchor.source) << ", workload: " << a.anchor.workload
      << ", phase: " << to_string(a.anchor.phase) << ", batch_size: " << a.anchor.batch_size
      << ", mode: " << quoted(a.anchor.mode_label);
    if (a.anchor.time_ms) {
      o << ", time_ms: " << exact(*a.anchor.time_ms)
        << ", predicted_time_ms: " << fixed(*a.predicted_time_ms, 3)
        << ", time_error_pct: " << fixed(*a.time_error_pct, 1);
      if (a.time_excluded) o << ", time_excluded: " << quoted(*a.time_excluded);
    }
    if (a.anchor.power_w) {
      o << ", power_w: " << exact(*a.anchor.power_w)
        << ", predicted_power_w: " << fixed(*a.predicted_power_w, 2)
        << ", power_error_pct: " << fixed(*a.power_error_pct, 1);
      if (a.anchor.power_excluded) o << ", power_excluded: " << quoted(*a.anchor.power_excluded);
    }
    o << "}\n";
  }
  return o.str();
}

std::string to_table(const CalibrationResult& r) {
  std::ostringstream o;
  char line[256];
  std::snprintf(line, sizeof line, "%-18s %-9s %5s %-26s %10s %10s %7s %8s %8s %7s\n", "workload",
                "phase", "batch", "mode", "time_ms", "pred_ms", "err_%", "power_w", "pred_w",
                "err_%");
  o << line;
  for (const AnchorResidual& a : r.residuals) {
    auto num = [](const std::optional<double>& v, int digits) {
      return v ? fixed(*v, digits) : std::string("-");
    };
    std::string terr = num(a.time_error_pct, 1);
    if (a.time_excluded) terr += "*";
    std::string perr = num(a.power_error_pct, 1);
    if (a.anchor.power_excluded) perr += "*";
    std::snprintf(line, sizeof line, "%-18s %-9s %5d %-26s %10s %10s %7s %8s %8s %7s\n",
                  a.anchor.workload.c_str(), to_string(a.anchor.phase), a.anchor.batch_size,
                  a.anchor.mode_label.c_str(), num(a.anchor.time_ms, 3).c_str(),
                  num(a.predicted_time_ms, 3).c_str(), terr.c_str(),
                  num(a.anchor.power_w, 2).c_str(), num(a.predicted_power_w, 2).c_str(),
                  perr.c_str());
    o << line;
  }
  o << "time MAPE " << fixed(r.time_mape_pct, 2) << "% over " << r.time_anchors
    << " anchors; power MAPE " << fixed(r.power_mape_pct, 2) << "% over " << r.power_anchors
    << " anchors (* = excluded from the power fit)\n";
  for (const auto& [name, mape] : r.time_mape_pct_by_workload) {
    o << "  time MAPE " << name << ": " << fixed(mape, 2) << "%\n";
  }
  return o.str();
}

}  // namespace fulcrum::models
