// Fitting the cross-mode model (models/perf/cross_mode_model.hpp) to measured modes:
// Levenberg-Marquardt (Eigen) on log-time errors and relative power errors under a Huber loss,
// the device's coefficients and every workload's parameters together (fit_cross_mode), or one new
// workload's parameters with the device fixed (fit_workload); held-out evaluation by workload,
// phase and region of the mode space; the calibration file's text.
//
//   std::vector<ModeRow> rows = mode_rows(read_profile_csv(csv), orin);
//   auto [fit, rest] = split_modes(rows, 0.5, 1);
//   CrossModeFit f = fit_cross_mode(orin, select(rows, fit), workload_catalog());
//   ModeErrors e = evaluate_cross_mode(orin, f.calibration, select(rows, rest),
//   workload_catalog());
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/perf/cross_mode_model.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"

namespace fulcrum::models {

// One measured minibatch: workload (catalog name), phase, mode, batch size, time and power.
struct ModeRow {
  std::string workload;
  Phase phase = Phase::inference;
  PowerMode mode;
  int batch_size = 0;
  double time_s = 0;
  double power_w = 0;
};

// The busy rows of a profile or measurement file (idle rows skipped), workload names canonical,
// modes with all TPCs. InputError for a row without a workload when `workload` is empty.
std::vector<ModeRow> mode_rows(const ProfileTable& table, const DeviceSpec& device,
                               const std::string& workload = "");

std::vector<ModeRow> select(const std::vector<ModeRow>& rows,
                            const std::vector<std::size_t>& indices);

// Splits the distinct modes (cores, CPU, GPU, EMC) of `rows` at random (seeded): a mode and all
// its rows (every workload, phase and batch size) go to the held-out side with probability
// `holdout`. Returns (fit indices, held-out indices), each ascending.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_modes(
    const std::vector<ModeRow>& rows, double holdout, std::uint64_t seed);

// `count` row indices drawn without replacement (seeded) among those where `keep` holds.
std::vector<std::size_t> sample_rows(const std::vector<ModeRow>& rows, std::size_t count,
                                     std::uint64_t seed,
                                     const std::function<bool(const ModeRow&)>& keep);

struct CrossModeFitOptions {
  int max_iterations = 300;
  double huber = 0.10;  // residuals beyond 10% weigh linearly, not quadratically (glitches)
  // Weight of the priors that keep each workload's GPU activity and kernel scale near 1 (they
  // trade with the device's gpu_dynamic_w and kernel_gpu_kcycles, which alone would leave both
  // undetermined).
  double activity_prior = 0.3;
  // fit_workload only: also fit the workload's kernel_cycles and overlap_host, each held toward
  // the device's values (1 and overlap_host) by extras_prior on its transformed value.
  // The prior's strength is chosen among 3, 0.3 and 0.03 by 5-fold cross-validation inside the
  // profiled rows (from 10 rows on; extras_prior below that).
  bool workload_extras = true;
  double extras_prior = 0.3;
  // fit_workload only: learn ResidualCorrections of time and power from the profiled rows.
  bool residual_correction = true;
  // fit_workload only: keep the start's form (library_launches_apart: zero-shot parameters count
  // a recurrence's chain and its library's launches apart) instead of letting the fitted
  // kernel_scale carry them.
  bool keep_start_form = false;
  // fit_workload with a start only (few-shot: the zero-shot parameters): the weight of a prior
  // holding the workload's five physical parameters (eff_compute, eff_memory, gpu_activity,
  // kernel_scale, preprocess_ms) near the start's, in the fit's encoded scale (logit or log);
  // 0: none. From 10 rows on, chosen among start_prior_choices by 5-fold cross-validation inside
  // the profiled rows (0 among them: the rows alone), unless it is 0.
  double start_prior = 0.3;
  std::vector<double> start_prior_choices = {0, 0.1, 0.3, 1};
  // Threads that compute the Jacobian's columns (0: one per core). Each column is computed as it
  // is on one thread, so the fit is the same bytes for every count.
  unsigned threads = 1;
};

struct CrossModeFit {
  CrossModeCalibration calibration;
  int iterations = 0;
  double cost = 0;  // final Huber cost
  std::size_t rows = 0;
};

// Fits the device's coefficients and the parameters of every (workload, phase) in `rows`.
// Deterministic. InputError when rows are empty or name a workload the catalog lacks.
CrossModeFit fit_cross_mode(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                            const WorkloadCatalog& catalog, const CrossModeFitOptions& options = {},
                            const CrossModeDevice& start = {});

// The new-workload path: only (workload, phase)'s parameters, from its profiled rows, with the
// device's coefficients fixed. Every row must be of that workload and phase. The fit runs from a
// small grid of starts and from `start` when given (few-shot: the zero-shot parameters) and keeps
// the lowest cost (`start` on ties); with `start` and options.start_prior, a prior holds the five
// parameters near it (its weight by 5-fold cross-validation inside the rows from 10 rows on, among
// options.start_prior_choices; 0 among them: the rows alone). With options.workload_extras also
// the workload's own kernel_cycles and overlap_host (prior strength by 5-fold cross-validation
// inside the rows); with options.residual_correction then the time and power
// ResidualCorrections of the fitted model's log residuals on the rows (hyper-parameters by
// leave-one-out inside the rows; none where that does not beat the physical model).
// Deterministic.
CrossModeWorkload fit_workload(const DeviceSpec& device, const CrossModeDevice& coefficients,
                               const WorkloadKey& key, const std::vector<ModeRow>& rows,
                               const WorkloadCatalog& catalog,
                               const CrossModeFitOptions& options = {},
                               const std::optional<CrossModeWorkload>& start = std::nullopt);

// The residual correction fit_workload learns: kernel ridge regression of log residuals `y` at
// positions `z` (residual_position with the regime: all kResidualDims axes), length scale, linear
// term, ridge and whether outlying rows are pulled in (robust: beyond 2.5 robust standard
// deviations of the leave-one-out residuals) chosen by the closed-form leave-one-out mean
// absolute error; none when that error does not beat the residuals' own mean absolute value.
std::optional<ResidualCorrection> fit_residual_correction(
    const std::vector<std::array<double, kResidualDims>>& z, const std::vector<double>& y);

// Mean absolute percentage errors of a group of rows.
struct ErrorStats {
  std::size_t rows = 0;
  double time_mape_pct = 0;
  double power_mape_pct = 0;
  double time_bias_pct = 0;  // mean signed error: > 0 predicted slower than measured
  double power_bias_pct = 0;
};

struct GroupErrors {
  std::string group;  // "resnet18 training", "gpu low", ...
  ErrorStats stats;
};

struct ModeErrors {
  ErrorStats all;
  std::vector<GroupErrors> by_workload;  // "<workload> <phase>", sorted
  // Per region: GPU clock tercile of the table (low/mid/high), CPU clock tercile, EMC clock,
  // online cores; each also split by phase so a region's systematic error shows per phase.
  std::vector<GroupErrors> by_region;
  std::vector<double> time_error_pct;  // per row, signed, in the order of the rows
  std::vector<double> power_error_pct;
};

ModeErrors evaluate_cross_mode(const DeviceSpec& device, const CrossModeCalibration& calibration,
                               const std::vector<ModeRow>& rows, const WorkloadCatalog& catalog);

// ModeErrors of given signed per-row errors, grouped by workload and region as
// evaluate_cross_mode groups them.
ModeErrors grouped_errors(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                          std::vector<double> time_error_pct, std::vector<double> power_error_pct);

// A model-free yardstick for held-out errors: each row of `rows` predicted by the k nearest rows
// of `fit` with its workload, phase and batch size (distance over the ranks of cores, CPU, GPU
// and EMC clock among the values those rows take: one grid step is 1 in each), inverse-distance
// weighted on log time and log power; with local_linear, a weighted least-squares plane of log
// time and log power in (cores, ln f_cpu, ln f_gpu, ln f_emc) through those k rows instead. What
// these cannot reach, a smooth function of the mode's four settings fitted to the same rows is
// unlikely to (docs/MODEL.md). Error when a row's key has no fitted rows.
ModeErrors nearest_neighbour_errors(const DeviceSpec& device, const std::vector<ModeRow>& fit,
                                    const std::vector<ModeRow>& rows, std::size_t k,
                                    bool local_linear = false);

// Rows a higher GPU clock made faster than the clock ratio allows: in each GPU-clock sweep of
// `rows` (the same workload, phase, batch size, cores, CPU and EMC clock, by ascending GPU
// clock), a row whose time is under `tolerance` x the previous row's time x f_previous / f. With
// the other clocks fixed a minibatch shortens at most as 1 / f_gpu, so such a row was not
// measured at the mode it names (docs/MODEL.md: 2 cores at the top GPU clock). A flag per row.
std::vector<bool> faster_than_gpu_clock_allows(const std::vector<ModeRow>& rows,
                                               double tolerance = 0.8);

// `errors` of `rows` (evaluate_cross_mode's) regrouped without the rows `drop` flags (a flag per
// row of `rows`).
ModeErrors errors_without(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                          const ModeErrors& errors, const std::vector<bool>& drop);

// The device's per-op-class coefficients (GraphCoefficients) fitted to the rows of the calibrated
// workloads, every workload's parameters then following from its layer graph alone
// (graph_parameters) and its own preprocess_ms kept: Levenberg-Marquardt on the same residuals
// and Huber loss as fit_cross_mode, at most `per_workload` rows of each (workload, phase) (evenly
// spaced, so each weighs alike), a weak prior (weight 0.3) holding every log coefficient near the
// geometric mean of the calibrated parameters (a class no workload has stays there, but for the
// grouped convolutions' compute, which then takes depthwise_flop_cost). Deterministic.
GraphCoefficients fit_graph_coefficients(const DeviceSpec& device,
                                         const CrossModeCalibration& calibration,
                                         const std::vector<ModeRow>& rows,
                                         const WorkloadCatalog& catalog,
                                         std::size_t per_workload = 300);

// Zero-shot, leave one workload out: for each workload W of `rows` (by name, both phases), the
// device's coefficients and the other workloads' parameters are fitted without any row of W
// (on the other workloads' rows of a seeded share `device_modes` of the modes; 1: all), then the
// graph coefficients (fit_graph_coefficients) on the same rows, and every row of W is predicted
// from W's layer graph alone (zero_shot_parameters). Few-shot, for each k of `few_shot_k`: k rows
// of W drawn at random (draws 1..`draws`, seeded) refine W's parameters from the zero-shot start
// (fit_workload, the device fixed), MAPE on W's other rows, median over the draws. With
// `own_fit`, W's five parameters (those zero-shot derives) are also fitted on every row of W
// with the same device, in the zero-shot parameters' form (fit_workload keeping the start's form,
// without W's own kernel cycles, launch overlap or residual correction): about the best any
// zero-shot parameters could do with that device, the protocol's floor.
// One entry per (W, phase), in the order of the keys; its errors have per-region groups.
struct FewShotPoint {
  int k = 0;                 // profiled rows of W
  double time_mape_pct = 0;  // median over the draws, on W's other rows
  double power_mape_pct = 0;
};
struct ZeroShotResult {
  WorkloadKey key;
  ModeErrors errors;
  std::vector<FewShotPoint> few_shot;  // for each k of `few_shot_k`
  std::optional<ErrorStats> own_fit;   // with `own_fit`: W's five parameters fitted on its rows
};
struct ZeroShotOptions {
  double device_modes = 1.0;      // seeded share of the modes the device is fitted on, (0, 1]
  std::uint64_t seed = 1;         // of that share and of the few-shot draws
  std::vector<std::string> only;  // the workloads to leave out (empty: every one of `rows`)
  std::vector<int> few_shot_k;    // profiled rows per few-shot point (empty: none)
  int draws = 10;                 // few-shot draws per k
  bool own_fit = false;           // also fit W's five parameters on all its rows (ZeroShotResult)
  // Workloads left out at once, each on its own thread (0: one per core, at most one per
  // workload); threads beyond one per workload go to each leave-out's device fit (its Jacobian's
  // columns) and few-shot draws. Each fit and draw is computed as it is alone, so the results are
  // the same bytes for every count.
  unsigned threads = 1;
  // Called after each workload left out is done (from the thread that did it, one call at a
  // time), with the count done so far and the total.
  std::function<void(const std::string& left_out, std::size_t done, std::size_t total)> progress =
      {};
};
std::vector<ZeroShotResult> zero_shot_leave_one_out(const DeviceSpec& device,
                                                    const std::vector<ModeRow>& rows,
                                                    const WorkloadCatalog& catalog,
                                                    const ZeroShotOptions& options);
// The same, one workload at a time (`only` empty: every one).
std::vector<ZeroShotResult> zero_shot_leave_one_out(
    const DeviceSpec& device, const std::vector<ModeRow>& rows, const WorkloadCatalog& catalog,
    double device_modes = 1.0, std::uint64_t seed = 1, const std::string& only = "",
    const std::vector<int>& few_shot_k = {}, int draws = 10);

// The results as the calibration file records them (CrossModeCalibration::zero_shot_check).
ZeroShotCheck zero_shot_check_of(const std::vector<ZeroShotResult>& results,
                                 const ZeroShotOptions& options);

// Error statistics of given predictions (for other models evaluated on the same rows).
ErrorStats error_stats(const std::vector<double>& time_error_pct,
                       const std::vector<double>& power_error_pct);

// The calibration file: `header` lines (each written as a `# ` comment), then device
// coefficients with unit and origin, then every workload's parameters. 9 significant digits.
std::string cross_mode_yaml(const CrossModeCalibration& calibration,
                            const std::vector<std::string>& header);

// Human-readable table of ModeErrors.
std::string to_table(const ModeErrors& errors, const std::string& title);

// One serialised device coefficient: key, unit, origin, member.
struct CrossModeField {
  const char* name;
  const char* unit;
  const char* origin;  // "fitted: ..." or "prior: ..."
  double CrossModeDevice::*member;
  char kind;  // how the fit varies it: 'p' positive, 's' share in (0, 1), 'e' exponent > 1,
              // 'x' fixed (a prior or a condition of the measurements)
};
const std::vector<CrossModeField>& cross_mode_fields();
// Whether a field is a power parameter, one that cross_mode_time_terms does not read (base,
// static, dynamic and stall power, the voltage curves, the base power's rail split).
bool cross_mode_power_field(const CrossModeField& field);

}  // namespace fulcrum::models
