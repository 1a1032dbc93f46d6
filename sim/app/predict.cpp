#include "sim/app/predict.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "models/error.hpp"
#include "models/learn/mode_predictor.hpp"
#include "models/perf/cross_mode_fit.hpp"
#include "models/perf/cross_mode_model.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/random/rng_streams.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/config/cross_mode_loader.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/output_path.hpp"

namespace fulcrum::sim::app {

namespace {

// What the predictions file starts with: a later predict may replace only such a file.
constexpr const char* kPredictionsSignature = "# predictions of fulcrum predict";

using ModeKey = std::tuple<int, double, double, double>;

ModeKey key_of(const models::ProfileRow& r) { return {r.cores, r.cpu_khz, r.gpu_hz, r.emc_hz}; }

// The catalog name of a workload as a file or the user spells it, if the catalog knows it.
std::optional<std::string> known_workload(const std::string& name) {
  const std::string canonical(models::canonical_workload_name(name));
  if (models::workload_catalog().find(canonical) == nullptr) return std::nullopt;
  return canonical;
}

std::string known_list() {
  std::string s;
  for (const std::string& n : models::workload_catalog().names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

[[noreturn]] void fail_at(const models::ProfileRow& r, const std::string& key,
                          const std::string& problem) {
  throw InputError(r.where, key, problem);
}

// The rows of `table` for `workload` (all rows when the file has no workload column), checked to
// be of one phase and batch size (that of `like` when given). Idle rows are refused.
std::vector<models::ProfileRow> rows_for(const models::ProfileTable& table,
                                         const std::string& workload,
                                         const models::ProfileRow* like,
                                         const PredictRequest& request) {
  std::vector<models::ProfileRow> rows;
  for (const models::ProfileRow& r : table.rows) {
    if (r.workload && models::canonical_workload_name(*r.workload) != workload) continue;
    if (request.phase && r.phase != models::ProfilePhase::idle &&
        models::to_string(r.phase) != *request.phase) {
      continue;
    }
    if (request.batch_size && r.phase != models::ProfilePhase::idle &&
        r.batch_size != *request.batch_size) {
      continue;
    }
    if (r.phase == models::ProfilePhase::idle)
      fail_at(r, "phase", "idle rows have no minibatch time to predict");
    const models::ProfileRow& first = like != nullptr ? *like : rows.empty() ? r : rows.front();
    if (r.phase != first.phase || r.batch_size != first.batch_size) {
      fail_at(r, "phase",
              std::string("expected ") + models::to_string(first.phase) + " rows of batch size " +
                  std::to_string(first.batch_size) + " like line " +
                  std::to_string(first.where.line) + " of " + first.where.file + ", found " +
                  models::to_string(r.phase) + " batch size " + std::to_string(r.batch_size));
    }
    rows.push_back(r);
  }
  if (rows.empty()) {
    std::string which = "workload '" + workload + "'";
    if (request.phase) which += ", phase " + *request.phase;
    if (request.batch_size) which += ", batch size " + std::to_string(*request.batch_size);
    throw InputError(SourceLocation{table.source, 0, 0}, "", "no rows for " + which);
  }
  return rows;
}

// The workload: `named` when given, else the one the --fit file names.
std::string choose_workload(const std::optional<std::string>& named,
                            const models::ProfileTable& fit) {
  if (named) {
    if (auto w = known_workload(workload_name(*named))) return *w;
    throw InputError(std::nullopt, "--workload",
                     "unknown workload '" + *named + "' (known: " + known_list() + ")");
  }
  const models::ProfileRow* first = nullptr;
  for (const models::ProfileRow& r : fit.rows) {
    if (!r.workload) {
      throw InputError(SourceLocation{fit.source, r.where.line, 1}, "--workload",
                       "the file has no workload (model) column; name the workload with "
                       "--workload");
    }
    if (first == nullptr) {
      first = &r;
    } else if (*r.workload != *first->workload) {
      fail_at(r, "workload",
              "rows of several workloads ('" + *first->workload + "' on line " +
                  std::to_string(first->where.line) + ", '" + *r.workload +
                  "' here); choose one with --workload");
    }
  }
  if (first == nullptr) {
    throw InputError(SourceLocation{fit.source, 0, 0}, "", "no rows to fit");
  }
  if (auto w = known_workload(*first->workload)) return *w;
  fail_at(*first, "workload",
          "unknown workload '" + *first->workload + "' (known: " + known_list() + ")");
}

models::PowerMode mode_of(const models::ProfileRow& r, int tpcs) {
  return {r.cores, r.cpu_khz, r.gpu_hz, r.emc_hz, tpcs};
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

PredictReport predict(const PredictRequest& request) {
  const std::string& predictor = request.predictor;
  if (predictor != "analytic" && predictor != "analytic-modes" && predictor != "nn" &&
      predictor != "powertrain") {
    throw InputError(std::nullopt, "--predictor",
                     "unknown predictor '" + predictor +
                         "' (expected analytic, analytic-modes, nn or powertrain)");
  }
  if (request.save_weights && predictor != "nn") {
    throw InputError(std::nullopt, "--save-weights", "only the nn predictor trains from scratch");
  }
  if (request.phase && *request.phase != "training" && *request.phase != "inference") {
    throw InputError(std::nullopt, "--phase",
                     "expected training or inference, got '" + *request.phase + "'");
  }
  if (request.batch_size && *request.batch_size < 1) {
    throw InputError(std::nullopt, "--batch-size",
                     "must be >= 1, got " + std::to_string(*request.batch_size));
  }
  const std::uint64_t seed = request.seed;
  const std::string& data_dir = request.data_dir;
  const std::string weights = request.weights
                                  ? request.weights->string()
                                  : data_dir + "/" + models::kPowertrainReferenceWeights;

  // The outputs first: each a regular file or absent, never one of the inputs.
  std::vector<std::filesystem::path> inputs{request.fit_csv, request.at_csv};
  if (predictor == "powertrain") inputs.emplace_back(weights);
  if (request.out_csv) {
    check_output_file(*request.out_csv, "--out", inputs, kPredictionsSignature);
  }
  if (request.save_weights) check_output_file(*request.save_weights, "--save-weights", inputs);
  if (request.out_csv && request.save_weights) {
    check_distinct_outputs(
        {{"--out", *request.out_csv}, {"--save-weights", *request.save_weights}});
  }

  // Read and check everything before fitting or writing anything.
  const models::ProfileTable fit_table = models::read_profile_csv(request.fit_csv.string());
  const models::ProfileTable at_table = models::read_profile_csv(request.at_csv.string());
  const std::string workload = choose_workload(request.workload, fit_table);
  std::vector<models::ProfileRow> fit_rows = rows_for(fit_table, workload, nullptr, request);
  const std::vector<models::ProfileRow> at_rows =
      rows_for(at_table, workload, predictor == "analytic" ? nullptr : &fit_rows.front(), request);
  const std::size_t fit_available = fit_rows.size();
  if (request.sample) {
    const int k = *request.sample;
    if (k < 1 || static_cast<std::size_t>(k) > fit_rows.size()) {
      throw InputError(std::nullopt, "--sample",
                       "expected 1 to " + std::to_string(fit_rows.size()) + " (the fit rows of " +
                           workload + "), got " + std::to_string(k));
    }
    models::Rng rng = models::RngStreams(seed).stream("predict/sample");
    const std::vector<int> order = models::permutation(static_cast<int>(fit_rows.size()), rng);
    std::vector<models::ProfileRow> sample;
    sample.reserve(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i)
      sample.push_back(fit_rows[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]);
    fit_rows = std::move(sample);
  }
  const models::DeviceCatalog devices =
      load_device_catalog((std::filesystem::path(data_dir) / "devices").string());
  const models::DeviceSpec& device = devices.get(request.device);

  std::vector<models::PowerMode> at_modes;
  at_modes.reserve(at_rows.size());
  for (const models::ProfileRow& r : at_rows) at_modes.push_back(mode_of(r, device.gpu_tpcs));
  std::vector<models::ModeEstimate> predicted;
  std::set<ModeKey> fitted;
  std::unique_ptr<models::MlpModePredictor> mlp;
  if (predictor == "analytic") {
    // The calibrated model, as `run` uses it; the fit rows only choose the workload.
    const std::unique_ptr<models::PerfModel> model =
        load_perf_model(AnalyticPerfModel{}, data_dir, device);
    const models::Workload& w = models::workload_catalog().get(workload);
    for (std::size_t i = 0; i < at_rows.size(); ++i) {
      const models::ProfileRow& r = at_rows[i];
      const models::PerfModelPredictor rows_predictor(*model, device, w,
                                                      r.phase == models::ProfilePhase::training
                                                          ? models::Phase::training
                                                          : models::Phase::inference,
                                                      r.batch_size);
      try {
        predicted.push_back(rows_predictor.predict(at_modes[i]));
      } catch (const InputError& e) {
        throw e.located(r.where, "mode");
      }
    }
  } else if (predictor == "analytic-modes") {
    // The new-workload path of the cross-mode model: the device's coefficients as shipped
    // (<device>-modes.yaml), this workload's parameters fitted to the fit rows, per phase.
    models::CrossModeCalibration cal =
        load_cross_mode_calibration(cross_mode_calibration_path(data_dir, device.name));
    const std::vector<models::ModeRow> rows = models::mode_rows(fit_table, device, workload);
    std::vector<models::ModeRow> chosen;
    for (const models::ProfileRow& r : fit_rows) {
      fitted.insert(key_of(r));
      for (const models::ModeRow& m : rows) {
        if (m.mode == mode_of(r, device.gpu_tpcs) && m.batch_size == r.batch_size &&
            (m.phase == models::Phase::training) == (r.phase == models::ProfilePhase::training)) {
          chosen.push_back(m);
        }
      }
    }
    for (const models::Phase phase : {models::Phase::training, models::Phase::inference}) {
      std::vector<models::ModeRow> of_phase;
      for (const models::ModeRow& m : chosen) {
        if (m.phase == phase) of_phase.push_back(m);
      }
      if (of_phase.empty()) continue;
      const models::WorkloadKey key{of_phase.front().workload, phase};
      // As `calibrate --modes --fit` does: from the workload's zero-shot parameters (its layer
      // graph through the calibration's coefficients; zero_shot_parameters sets its own entry
      // aside), held near them at a cross-validated weight; from the grid alone where the
      // calibration has no other workload of the phase to derive them from.
      std::optional<models::CrossModeWorkload> start;
      try {
        start = models::zero_shot_parameters(device, cal, models::workload_catalog().get(key.first),
                                             phase, models::workload_catalog());
      } catch (const InputError&) {  // no start: the grid alone
      }
      cal.workloads[key] = models::fit_workload(device, cal.device, key, of_phase,
                                                models::workload_catalog(), {}, start);
    }
    const models::CrossModeModel model(device, cal);
    for (std::size_t i = 0; i < at_rows.size(); ++i) {
      const models::ProfileRow& r = at_rows[i];
      const auto e =
          model.predict(workload,
                        r.phase == models::ProfilePhase::training ? models::Phase::training
                                                                  : models::Phase::inference,
                        at_modes[i], r.batch_size);
      predicted.push_back({e.time_s, e.power_w});
    }
  } else {
    std::vector<models::ModeMeasurement> measured;
    for (const models::ProfileRow& r : fit_rows) {
      measured.push_back({mode_of(r, device.gpu_tpcs), *r.time_ms / 1e3, r.power_w});
      fitted.insert(key_of(r));
    }
    models::ModeFitOptions fit_options;
    if (request.min_steps) fit_options.train.min_steps = *request.min_steps;
    if (predictor == "nn") {
      mlp = std::make_unique<models::MlpModePredictor>(
          models::fit_mode_predictor(measured, fit_options, seed));
    } else {
      mlp = std::make_unique<models::MlpModePredictor>(models::transfer_mode_predictor(
          models::load_mode_predictor(weights), measured, fit_options, seed));
    }
    predicted = mlp->predict_all(at_modes);
  }

  PredictReport report;
  report.predictor = predictor;
  report.workload = workload;
  report.phase = models::to_string(fit_rows.front().phase);
  report.batch_size = fit_rows.front().batch_size;
  report.seed = seed;
  report.fit_source = fit_table.source;
  report.at_source = at_table.source;
  report.fit_rows = fit_rows.size();
  report.fit_available = fit_available;
  // MAPE and bias over the held-out rows: those whose mode was not fitted.
  std::vector<double> pt, mt, pp, mp;
  double time_bias = 0, power_bias = 0;
  for (std::size_t i = 0; i < at_rows.size(); ++i) {
    const models::ProfileRow& r = at_rows[i];
    PredictRow row;
    row.cores = r.cores;
    row.cpu_khz = r.cpu_khz;
    row.gpu_hz = r.gpu_hz;
    row.emc_hz = r.emc_hz;
    row.phase = models::to_string(r.phase);
    row.batch_size = r.batch_size;
    row.predicted_time_ms = predicted[i].time_s * 1e3;
    row.measured_time_ms = *r.time_ms;
    row.predicted_power_w = predicted[i].power_w;
    row.measured_power_w = r.power_w;
    row.held_out = fitted.count(key_of(r)) == 0;
    if (!std::isfinite(row.predicted_time_ms) || !std::isfinite(row.predicted_power_w)) {
      throw InputError(r.where, "mode",
                       "the " + predictor + " predictor gives no finite prediction here");
    }
    report.rows.push_back(row);
    if (!row.held_out) continue;
    pt.push_back(predicted[i].time_s);
    mt.push_back(*r.time_ms / 1e3);
    pp.push_back(predicted[i].power_w);
    mp.push_back(r.power_w);
    time_bias += (row.predicted_time_ms - row.measured_time_ms) / row.measured_time_ms * 100;
    power_bias += (row.predicted_power_w - row.measured_power_w) / row.measured_power_w * 100;
  }
  if (!pt.empty()) {
    const auto n = static_cast<double>(pt.size());
    report.errors = PredictErrors{.time_mape_pct = models::mape_percent(pt, mt),
                                  .power_mape_pct = models::mape_percent(pp, mp),
                                  .time_bias_pct = time_bias / n,
                                  .power_bias_pct = power_bias / n};
  }

  if (request.out_csv) {
    // What the profile reader would refuse is never written: a prediction outside a profile
    // column's range. Nothing is written then.
    for (std::size_t i = 0; i < at_rows.size(); ++i) {
      const double time_ms = predicted[i].time_s * 1e3;
      const double power_w = predicted[i].power_w;
      if (!models::kProfileTimeMs.contains(time_ms) || !models::kProfilePowerW.contains(power_w)) {
        throw InputError(at_rows[i].where, "--out",
                         "the prediction for this row (" + significant(time_ms, 4) + " ms, " +
                             significant(power_w, 4) + " W) is outside a profile's ranges (" +
                             models::kProfileTimeMs.bounds() + ", " +
                             models::kProfilePowerW.bounds() + "); nothing was written");
      }
    }
    std::ostringstream csv;
    csv << kPredictionsSignature << " --predictor " << predictor << " --seed " << seed << " for "
        << workload << ", fitted to " << fit_rows.size() << " rows of " << fit_table.source << "\n";
    csv << "workload,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n";
    for (std::size_t i = 0; i < at_rows.size(); ++i) {
      const models::ProfileRow& r = at_rows[i];
      csv << workload << ',' << r.cores << ',' << fixed(r.cpu_khz, 0) << ',' << fixed(r.gpu_hz, 0)
          << ',' << fixed(r.emc_hz, 0) << ',' << models::to_string(r.phase) << ',' << r.batch_size
          << ',' << significant(predicted[i].time_s * 1e3, 9) << ','
          << significant(predicted[i].power_w, 9) << '\n';
    }
    AtomicFile file(*request.out_csv);
    file.write(csv.str());
    file.publish();
    report.written.push_back(request.out_csv->string());
  }
  if (request.save_weights) {
    const std::vector<std::string> header = {
        "Time and power MLPs (PowerTrain architecture) of " + workload + " " +
            models::to_string(fit_rows.front().phase) + " at batch size " +
            std::to_string(fit_rows.front().batch_size) + "; format: docs/PREDICT.md",
        "command: " + request.command_line, "seed: " + std::to_string(seed),
        "data: " + std::filesystem::path(fit_table.source).filename().string() + ", " +
            std::to_string(fit_rows.size()) + " rows of " + workload,
        "date: " + utc_now()};
    std::ostringstream text;
    models::write_mode_predictor(text, *mlp, header);
    AtomicFile file(*request.save_weights);
    file.write(text.str());
    file.publish();
    report.written.push_back(request.save_weights->string());
  }
  return report;
}

}  // namespace fulcrum::sim::app
