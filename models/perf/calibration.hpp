// Calibration of the analytic model: least-squares fit (Eigen) of its time and power
// coefficients to measured anchors, with relative residuals so small and large minibatches
// weigh alike, and the fit written out as the plain-text YAML shipped in models/data/calibration/.
//
//   ReferenceData ref = load_reference_data(dir, orin);
//   CalibrationResult r = fit_analytic(orin, ref.anchors, lookup);   // r.time_mape_pct
//   std::string text = to_yaml(r);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/perf/analytic_model.hpp"
#include "models/perf/reference_anchors.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/workload_catalog.hpp"

namespace fulcrum::models {

// Finds a workload by catalog name; throws InputError for unknown names.
using WorkloadLookup = std::function<const Workload&(const std::string&)>;

// One serialised coefficient: its YAML key, unit and origin, and where it lives in the struct.
// The calibration file lists exactly these, in this order; the loader requires all of them.
struct CoefficientField {
  const char* name;
  const char* unit;
  const char* origin;
  double AnalyticCoefficients::*member;
};
const std::vector<CoefficientField>& coefficient_fields();

// One anchor after the fit.
struct AnchorResidual {
  Anchor anchor;
  std::optional<double> predicted_time_ms;  // present when the anchor has a time
  std::optional<double> time_error_pct;     // (predicted - measured) / measured x 100
  // Why the time was left out of the fit: measured faster than the roofline allows at 100%
  // efficiency, i.e. the workload's FLOPs/bytes cannot describe this measurement.
  std::optional<std::string> time_excluded;
  std::optional<double> predicted_power_w;  // present when the anchor has a power
  std::optional<double> power_error_pct;
};

struct CalibrationResult {
  std::string device;
  AnalyticCoefficients coefficients;
  std::vector<AnchorResidual> residuals;
  double time_mape_pct = 0;      // over time anchors not excluded
  double time_mape_all_pct = 0;  // over all time anchors, excluded ones included
  double power_mape_pct = 0;     // over power anchors not excluded
  std::vector<std::pair<std::string, double>> time_mape_pct_by_workload;  // sorted by name
  std::vector<std::string> sources;  // files the anchors came from
  int time_anchors = 0;              // used in the fit
  int time_anchors_excluded = 0;
  int power_anchors = 0;
};

// Fits eff_compute, eff_matmul, eff_grouped, eff_memory, launch_us, overhead_ms and
// launch_overlap to the time anchors and static_w, gpu_dynamic_w, memory_dynamic_w,
// cpu_dynamic_w to the power anchors that are not excluded. `priors` supplies everything that is
// not fitted (V/f prior, rail split, reference device). The roofline's max() makes time piecewise
// linear in the coefficients: each layer is classified (compute- or memory-bound, launch- or
// GPU-bound), the bounded linear least-squares problem is solved, layers are reclassified, until
// the classification is stable; launch_overlap is chosen on a grid. Deterministic. Throws
// InputError when there are no usable anchors.
CalibrationResult fit_analytic(const DeviceSpec& device, const std::vector<Anchor>& anchors,
                               const WorkloadLookup& workloads,
                               const std::vector<std::string>& sources = {},
                               const AnalyticCoefficients& priors = {});

// The same, looking workloads up in a catalog.
CalibrationResult fit_analytic(const DeviceSpec& device, const std::vector<Anchor>& anchors,
                               const WorkloadCatalog& catalog,
                               const std::vector<std::string>& sources = {},
                               const AnalyticCoefficients& priors = {});

// Evaluates given coefficients on anchors (residuals and MAPE) without fitting.
CalibrationResult evaluate_analytic(const DeviceSpec& device, const std::vector<Anchor>& anchors,
                                    const WorkloadLookup& workloads,
                                    const AnalyticCoefficients& coefficients,
                                    const std::vector<std::string>& sources = {});

// The calibration file: a generated-by header, every coefficient with value, unit and source,
// the fit's MAPE and the per-anchor table. Numbers round-trip exactly (17 significant digits).
std::string to_yaml(const CalibrationResult& result);

// A human-readable table of the fit: anchor, measured, predicted, error; MAPE per workload.
std::string to_table(const CalibrationResult& result);

}  // namespace fulcrum::models
