// `fulcrum predict`: fits a time and power predictor to the profiled modes of one workload
// (--fit) and predicts every row of another profile (--at), printing the MAPE on the held-out rows
// and writing the predictions as a profile CSV (docs/PREDICT.md).
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "models/error.hpp"
#include "models/learn/mode_predictor.hpp"
#include "models/perf/cross_mode_fit.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/random/rng_streams.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/cross_mode_loader.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/report/atomic_file.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

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
                                         const models::ProfileRow* like) {
  std::vector<models::ProfileRow> rows;
  for (const models::ProfileRow& r : table.rows) {
    if (r.workload && models::canonical_workload_name(*r.workload) != workload) continue;
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
    throw InputError(SourceLocation{table.source, 0, 0}, "",
                     "no rows for workload '" + workload + "'");
  }
  return rows;
}

// The workload: --workload when given, else the one the --fit file names.
std::string choose_workload(const po::variables_map& vm, const models::ProfileTable& fit) {
  if (vm.count("workload")) {
    const std::string name = vm["workload"].as<std::string>();
    if (auto w = known_workload(name)) return *w;
    throw InputError(std::nullopt, "--workload",
                     "unknown workload '" + name + "' (known: " + known_list() + ")");
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
  if (auto w = known_workload(*first->workload)) return *w;
  fail_at(*first, "workload",
          "unknown workload '" + *first->workload + "' (known: " + known_list() + ")");
}

models::PowerMode mode_of(const models::ProfileRow& r, int tpcs) {
  return {r.cores, r.cpu_khz, r.gpu_hz, r.emc_hz, tpcs};
}

// `v` with 9 significant digits (a prediction far below a millisecond stays positive).
std::string significant(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string s = "fulcrum predict";
  for (const std::string& a : args) s += " " + a;
  return s;
}

}  // namespace

int cmd_predict(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "predictor", po::value<std::string>()->default_value("powertrain"),
      "analytic (the calibrated analytic model; ignores the fitted rows), analytic-modes (the "
      "cross-mode model; fits the workload's own parameters to the fit rows), nn (PowerTrain's "
      "MLPs "
      "trained from scratch on the fit rows) or powertrain (transfer from the reference weights)")(
      "fit", po::value<std::string>(), "profile CSV of the workload's measured modes (required)")(
      "at", po::value<std::string>(), "profile CSV whose every row is predicted (required)")(
      "out", po::value<std::string>(), "write the predictions here, as a profile CSV")(
      "workload", po::value<std::string>(),
      "the workload (a catalog name or alias); default: the one the --fit file names")(
      "sample", po::value<int>(), "K: fit on K rows drawn at random (by --seed) from --fit")(
      "seed", po::value<std::string>()->default_value("1"), "seed of the sample and the training")(
      "weights", po::value<std::string>(),
      "powertrain: the reference weights (default: the committed resnet18 reference)")(
      "save-weights", po::value<std::string>(), "nn: write the trained networks here")(
      "min-steps", po::value<int>(),
      "nn, powertrain: at least N optimiser steps per network, adding epochs beyond the 100 "
      "when the fit rows are few (default 0: exactly 100 epochs; docs/PREDICT.md)")(
      "device", po::value<std::string>()->default_value("orin-agx-64gb"),
      "analytic: the catalog device the rows were measured on");
  const po::variables_map vm = parse_verb("predict", args, options);
  if (vm.count("help")) {
    out << verb_usage(
        "predict --fit PROFILE.csv --at PROFILE.csv [--predictor "
        "analytic|analytic-modes|nn|powertrain]\n"
        "                [--workload NAME] [--sample K] [--seed N] [--out FILE]",
        "Fits a predictor of minibatch time and power to the measured modes of one workload\n"
        "(--fit, profile or measurement layout, models/data/profiles/README.md), predicts every\n"
        "row of --at and prints the time and power MAPE over the rows whose mode was not fitted\n"
        "(held out). See docs/PREDICT.md.",
        options);
    return 0;
  }
  for (const char* required : {"fit", "at"}) {
    if (!vm.count(required)) {
      throw InputError(std::nullopt, std::string("--") + required,
                       "missing (see fulcrum predict --help)");
    }
  }
  const std::string predictor = vm["predictor"].as<std::string>();
  if (predictor != "analytic" && predictor != "analytic-modes" && predictor != "nn" &&
      predictor != "powertrain") {
    throw InputError(std::nullopt, "--predictor",
                     "unknown predictor '" + predictor +
                         "' (expected analytic, analytic-modes, nn or powertrain)");
  }
  if (vm.count("save-weights") && predictor != "nn") {
    throw InputError(std::nullopt, "--save-weights", "only the nn predictor trains from scratch");
  }
  const std::uint64_t seed = parse_seed(vm["seed"].as<std::string>());
  const std::string data_dir = default_data_dir();

  // Read and check everything before fitting or writing anything.
  const models::ProfileTable fit_table = models::read_profile_csv(vm["fit"].as<std::string>());
  const models::ProfileTable at_table = models::read_profile_csv(vm["at"].as<std::string>());
  const std::string workload = choose_workload(vm, fit_table);
  std::vector<models::ProfileRow> fit_rows = rows_for(fit_table, workload, nullptr);
  const std::vector<models::ProfileRow> at_rows =
      rows_for(at_table, workload, predictor == "analytic" ? nullptr : &fit_rows.front());
  const std::size_t fit_available = fit_rows.size();
  if (vm.count("sample")) {
    const int k = vm["sample"].as<int>();
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
  const models::DeviceCatalog devices = devices_from(data_dir);
  const models::DeviceSpec& device = devices.get(vm["device"].as<std::string>());

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
      cal.workloads[key] =
          models::fit_workload(device, cal.device, key, of_phase, models::workload_catalog());
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
    if (vm.count("min-steps")) fit_options.train.min_steps = vm["min-steps"].as<int>();
    if (predictor == "nn") {
      mlp = std::make_unique<models::MlpModePredictor>(
          models::fit_mode_predictor(measured, fit_options, seed));
    } else {
      const std::string weights = vm.count("weights")
                                      ? vm["weights"].as<std::string>()
                                      : data_dir + "/" + models::kPowertrainReferenceWeights;
      mlp = std::make_unique<models::MlpModePredictor>(models::transfer_mode_predictor(
          models::load_mode_predictor(weights), measured, fit_options, seed));
    }
    predicted = mlp->predict_all(at_modes);
  }

  // MAPE over the held-out rows: those whose mode was not fitted.
  std::vector<double> pt, mt, pp, mp;
  for (std::size_t i = 0; i < at_rows.size(); ++i) {
    if (fitted.count(key_of(at_rows[i]))) continue;
    pt.push_back(predicted[i].time_s);
    mt.push_back(*at_rows[i].time_ms / 1e3);
    pp.push_back(predicted[i].power_w);
    mp.push_back(at_rows[i].power_w);
  }
  out << "predictor " << predictor << ", workload " << workload << " ("
      << models::to_string(fit_rows.front().phase) << ", batch size " << fit_rows.front().batch_size
      << "), seed " << seed << "\n";
  out << "fit: " << fit_rows.size() << " of " << fit_available << " rows of " << fit_table.source
      << (predictor == "analytic" ? " (not used by analytic)" : "") << "\n";
  out << "at: " << at_rows.size() << " rows of " << at_table.source << ", " << pt.size()
      << " held out (mode not fitted)\n";
  if (pt.empty()) {
    out << "MAPE: no held-out rows\n";
  } else {
    out << "time MAPE " << fixed(models::mape_percent(pt, mt), 2) << " %, power MAPE "
        << fixed(models::mape_percent(pp, mp), 2) << " % (held-out rows)\n";
  }

  if (vm.count("out")) {
    // What the profile reader would refuse is never written: a prediction that is not finite
    // (a degenerate fit) or outside a profile column's range. Nothing is written then.
    for (std::size_t i = 0; i < at_rows.size(); ++i) {
      const double time_ms = predicted[i].time_s * 1e3;
      const double power_w = predicted[i].power_w;
      if (!models::kProfileTimeMs.contains(time_ms) || !models::kProfilePowerW.contains(power_w)) {
        throw InputError(at_rows[i].where, "--out",
                         "the prediction for this row (" + significant(time_ms) + " ms, " +
                             significant(power_w) + " W) is outside a profile's ranges (" +
                             models::kProfileTimeMs.bounds() + ", " +
                             models::kProfilePowerW.bounds() + "); nothing was written");
      }
    }
    std::ostringstream csv;
    csv << "# predictions of fulcrum predict --predictor " << predictor << " --seed " << seed
        << " for " << workload << ", fitted to " << fit_rows.size() << " rows of "
        << fit_table.source << "\n";
    csv << "workload,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n";
    for (std::size_t i = 0; i < at_rows.size(); ++i) {
      const models::ProfileRow& r = at_rows[i];
      csv << workload << ',' << r.cores << ',' << fixed(r.cpu_khz, 0) << ',' << fixed(r.gpu_hz, 0)
          << ',' << fixed(r.emc_hz, 0) << ',' << models::to_string(r.phase) << ',' << r.batch_size
          << ',' << significant(predicted[i].time_s * 1e3) << ','
          << significant(predicted[i].power_w) << '\n';
    }
    AtomicFile file(vm["out"].as<std::string>());
    file.write(csv.str());
    file.publish();
  }
  if (vm.count("save-weights")) {
    const std::vector<std::string> header = {
        "Time and power MLPs (PowerTrain architecture) of " + workload + " " +
            models::to_string(fit_rows.front().phase) + " at batch size " +
            std::to_string(fit_rows.front().batch_size) + "; format: docs/PREDICT.md",
        "command: " + command_line(args), "seed: " + std::to_string(seed),
        "data: " + std::filesystem::path(fit_table.source).filename().string() + ", " +
            std::to_string(fit_rows.size()) + " rows of " + workload,
        "date: " + utc_now()};
    std::ostringstream text;
    models::write_mode_predictor(text, *mlp, header);
    AtomicFile file(vm["save-weights"].as<std::string>());
    file.write(text.str());
    file.publish();
    err << "fulcrum: wrote " << vm["save-weights"].as<std::string>() << "\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
