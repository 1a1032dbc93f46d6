// `fulcrum calibrate`: fits the analytic performance model to reference measurements.
#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/error.hpp"
#include "models/perf/cross_mode_fit.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/config/cross_mode_loader.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/output_path.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

// Where --out puts the calibration: a .yaml file as given, else <device><suffix>.yaml in the
// folder.
std::filesystem::path output_path(std::filesystem::path path, const std::string& device,
                                  const std::string& suffix) {
  if (path.extension() != ".yaml") path /= device + suffix + ".yaml";
  return path;
}

// --out checked before any work: a .yaml file by check_output_file, a folder by
// check_output_folder and then the file it gets.
void check_out(const std::filesystem::path& out, const std::string& device,
               const std::string& suffix, const std::vector<std::filesystem::path>& inputs) {
  if (out.extension() != ".yaml") check_output_folder(out, "--out", inputs);
  check_output_file(output_path(out, device, suffix), "--out", inputs);
}

void write_atomically(std::filesystem::path path, const std::string& device,
                      const std::string& suffix, const std::string& text, std::ostream& err,
                      bool quiet) {
  path = output_path(path, device, suffix);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  AtomicFile file(path);  // a failed write never leaves a half calibration under the real name
  file.write(text);
  file.publish();
  if (!quiet) err << "fulcrum: wrote " << path.string() << "\n";
}

bool same_point(const models::ModeRow& a, const models::ModeRow& b) {
  return a.workload == b.workload && a.phase == b.phase && a.batch_size == b.batch_size &&
         a.mode.cores == b.mode.cores && a.mode.cpu_khz == b.mode.cpu_khz &&
         a.mode.gpu_hz == b.mode.gpu_hz && a.mode.emc_hz == b.mode.emc_hz;
}

// The protocol: `count` random held-out rows per (workload, phase), the new model and the
// MAXN-fitted analytic model side by side.
std::string protocol_table(const models::DeviceSpec& device,
                           const models::CrossModeCalibration& cal,
                           const std::vector<models::ModeRow>& rows, std::uint64_t seed) {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  const models::AnalyticModel old(
      load_calibration(calibration_path(default_data_dir(), device.name)));
  std::set<models::WorkloadKey> keys;
  for (const auto& r : rows) keys.insert({r.workload, r.phase});
  std::string out =
      "Issue protocol (120 random held-out modes per training workload, 100 per inference "
      "workload):\n  workload phase                     old time %  old power %  new time %  new "
      "power %\n";
  for (const auto& key : keys) {
    const std::size_t count = key.second == models::Phase::training ? 120 : 100;
    const auto idx = models::sample_rows(rows, count, seed, [&](const models::ModeRow& r) {
      return r.workload == key.first && r.phase == key.second;
    });
    const auto sample = models::select(rows, idx);
    std::vector<double> ot, op;
    for (const auto& r : sample) {
      const models::Prediction p =
          old.predict({device, r.mode, catalog.get(r.workload), r.phase, r.batch_size});
      ot.push_back((p.time_ms * 1e-3 - r.time_s) / r.time_s * 100);
      op.push_back((p.power.module_w() - r.power_w) / r.power_w * 100);
    }
    const models::ErrorStats o = models::error_stats(ot, op);
    const models::ErrorStats n = models::evaluate_cross_mode(device, cal, sample, catalog).all;
    char line[200];
    std::snprintf(line, sizeof line, "  %-36s %10s %12s %11s %12s\n",
                  (key.first + " " + models::to_string(key.second)).c_str(),
                  fixed(o.time_mape_pct, 1).c_str(), fixed(o.power_mape_pct, 1).c_str(),
                  fixed(n.time_mape_pct, 1).c_str(), fixed(n.power_mape_pct, 1).c_str());
    out += line;
  }
  return out;
}

int calibrate_modes(const po::variables_map& vm, const models::DeviceSpec& device,
                    const std::string& reference, std::ostream& out, std::ostream& err) {
  const bool quiet = vm.count("quiet") > 0;
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  // Option errors before the (seconds-long) work.
  if ((vm.count("fit") || vm.count("fit-sample")) && !vm.count("workload")) {
    throw InputError(std::nullopt, "fulcrum calibrate", "--fit and --fit-sample need --workload W");
  }
  if (vm.count("holdout") && !(vm["holdout"].as<double>() > 0 && vm["holdout"].as<double>() < 1)) {
    throw InputError(std::nullopt, "fulcrum calibrate", "--holdout must be in (0, 1)");
  }
  if (const std::string phase = vm["phase"].as<std::string>();
      phase != "training" && phase != "inference") {
    throw InputError(std::nullopt, "fulcrum calibrate", "--phase must be training or inference");
  }
  if (vm.count("fit") && vm.count("fit-sample")) {
    throw InputError(std::nullopt, "--fit-sample", "give either --fit or --fit-sample, not both");
  }
  if (vm.count("at") && !vm.count("fit") && !vm.count("fit-sample")) {
    throw InputError(std::nullopt, "--at", "only with --fit or --fit-sample");
  }
  const std::uint64_t seed = vm.count("seed") ? parse_seed(vm["seed"].as<std::string>()) : 1;
  // Every input is read and checked before the (minutes-long) fit: the profile CSVs, --out.
  std::vector<std::filesystem::path> inputs;
  for (const char* key : {"fit", "at"}) {
    if (vm.count(key)) inputs.emplace_back(vm[key].as<std::string>());
  }
  if (vm.count("out")) {
    check_out(vm["out"].as<std::string>(), device.name, "-modes", inputs);
  }
  std::optional<std::string> workload;
  if (vm.count("workload")) {
    workload = models::canonical_workload_name(vm["workload"].as<std::string>());
    try {
      catalog.get(*workload);
    } catch (const InputError& e) {
      throw InputError(std::nullopt, "--workload", e.problem());
    }
  }
  std::optional<models::ProfileTable> fit_table, at_table;
  if (vm.count("fit")) fit_table = models::read_profile_csv(vm["fit"].as<std::string>());
  if (vm.count("at")) at_table = models::read_profile_csv(vm["at"].as<std::string>());
  const std::vector<models::ModeRow> all = read_cross_mode_reference(reference, device);
  if (vm.count("fit") || vm.count("fit-sample")) {
    const std::string w = *workload;
    std::vector<models::ModeRow> profile;
    std::vector<models::ModeRow> at_rows;
    if (fit_table) profile = models::mode_rows(*fit_table, device, w);
    if (at_table) at_rows = models::mode_rows(*at_table, device, w);
    if (fit_table && profile.empty()) {
      throw InputError(std::nullopt, "--fit",
                       "no rows of workload " + w + " in " + fit_table->source);
    }
    if (at_table && at_rows.empty()) {
      throw InputError(std::nullopt, "--at",
                       "no rows of workload " + w + " in " + at_table->source);
    }
    if (vm.count("fit-sample")) {
      const std::string phase = vm["phase"].as<std::string>();
      const models::Phase ph =
          phase == "training" ? models::Phase::training : models::Phase::inference;
      std::size_t available = 0;
      for (const auto& r : all) available += r.workload == w && r.phase == ph ? 1 : 0;
      const std::size_t k = vm["fit-sample"].as<std::size_t>();
      // At least one row to fit and, without --at, one left to report on.
      const std::size_t most = at_table ? available : (available > 0 ? available - 1 : 0);
      if (k < 1 || k > most) {
        throw InputError(std::nullopt, "--fit-sample",
                         "expected 1 to " + std::to_string(most) + " (the reference has " +
                             std::to_string(available) + " " + phase + " rows of " + w + "), got " +
                             std::to_string(k));
      }
    }
    // The device's coefficients from every reference row of other workloads: W is new to it.
    std::vector<models::ModeRow> device_rows;
    for (const auto& r : all) {
      if (r.workload != w) device_rows.push_back(r);
    }
    const models::CrossModeFit device_fit = models::fit_cross_mode(device, device_rows, catalog);
    if (!fit_table) {
      const std::string phase = vm["phase"].as<std::string>();
      const models::Phase ph =
          phase == "training" ? models::Phase::training : models::Phase::inference;
      profile = models::select(all, models::sample_rows(all, vm["fit-sample"].as<std::size_t>(),
                                                        seed, [&](const models::ModeRow& r) {
                                                          return r.workload == w && r.phase == ph;
                                                        }));
    }
    if (profile.empty()) {
      throw InputError(std::nullopt, "fulcrum calibrate", "no profiled rows of workload " + w);
    }
    const models::WorkloadKey key{w, profile.front().phase};
    models::CrossModeCalibration cal = device_fit.calibration;
    cal.workloads.erase(key);
    cal.workloads[key] = models::fit_workload(device, cal.device, key, profile, catalog);
    std::vector<models::ModeRow> rest;
    if (at_table) {
      rest = at_rows;
    } else {
      for (const auto& r : all) {
        if (r.workload != w || r.phase != key.second) continue;
        bool profiled = false;
        for (const auto& p : profile) profiled = profiled || same_point(p, r);
        if (!profiled) rest.push_back(r);
      }
    }
    if (rest.empty()) {
      throw InputError(std::nullopt, "--fit",
                       "no reference rows of " + w + " are left to report on");
    }
    out << "new workload " << w << " " << models::to_string(key.second) << ": device fitted on "
        << device_rows.size() << " rows of other workloads, workload fitted on " << profile.size()
        << " profiled rows\n";
    out << models::to_table(models::evaluate_cross_mode(device, cal, rest, catalog),
                            "MAPE on " + std::to_string(rest.size()) + " other rows:");
    if (vm.count("out")) {
      write_atomically(
          vm["out"].as<std::string>(), device.name, "-modes",
          cross_mode_calibration_text(cal, device_rows, "fulcrum calibrate --modes --fit"), err,
          quiet);
    }
    return 0;
  }
  if (vm.count("holdout")) {
    const double holdout = vm["holdout"].as<double>();
    const auto [fit_idx, rest_idx] = models::split_modes(all, holdout, seed);
    const auto fit_rows = models::select(all, fit_idx);
    const auto rest = models::select(all, rest_idx);
    const models::CrossModeFit fit = models::fit_cross_mode(device, fit_rows, catalog);
    out << "fitted on " << fit_rows.size() << " rows (" << fixed((1 - holdout) * 100, 0)
        << "% of the modes, seed " << seed << "), " << fit.iterations << " iterations\n";
    out << models::to_table(models::evaluate_cross_mode(device, fit.calibration, rest, catalog),
                            "held-out MAPE on " + std::to_string(rest.size()) + " rows:");
    out << protocol_table(device, fit.calibration, rest, seed);
    return 0;
  }
  const models::CrossModeFit fit = models::fit_cross_mode(device, all, catalog);
  if (!quiet) {
    out << "fitted on all " << all.size() << " rows, " << fit.iterations
        << " iterations (in-sample errors; --holdout gives held-out ones)\n";
    out << models::to_table(models::evaluate_cross_mode(device, fit.calibration, all, catalog),
                            "in-sample MAPE:");
  }
  if (vm.count("out")) {
    write_atomically(vm["out"].as<std::string>(), device.name, "-modes",
                     cross_mode_calibration_text(
                         fit.calibration, all,
                         "fulcrum calibrate --modes --reference $FULCRUM_REFERENCE_DIR --out "
                         "models/data/calibration/" +
                             device.name + "-modes.yaml"),
                     err, quiet);
  }
  return 0;
}

}  // namespace

int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string reference_help =
      "folder with the reference measurements (orin-agx-inference-maxn.csv, training-anchors.csv),"
      " read in place; default $FULCRUM_REFERENCE_DIR, else the build's " +
      build_reference_dir();
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "device", po::value<std::string>()->default_value("orin-agx-64gb"), "device to calibrate")(
      "reference", po::value<std::string>(), reference_help.c_str())(
      "out", po::value<std::string>(),
      "write the fitted calibration YAML here (a .yaml file, or a folder that gets <device>.yaml)")(
      "quiet,q", "do not print the fit table")(
      "modes", "fit the cross-mode model (analytic-modes) to the measured power modes")(
      "holdout", po::value<double>(),
      "with --modes: fit on a random share of the modes, report "
      "MAPE on this held-out share per workload, phase and region")(
      "seed", po::value<std::string>(), "seed of the random split and samples (default 1)")(
      "fit", po::value<std::string>(),
      "with --modes: profile CSV of a new workload; fits only "
      "its parameters (the device from the other workloads)")(
      "fit-sample", po::value<std::size_t>(),
      "with --modes: like --fit, with this many random "
      "reference rows of --workload in --phase")("workload", po::value<std::string>(),
                                                 "the new workload of --fit / --fit-sample")(
      "phase", po::value<std::string>()->default_value("training"), "phase of --fit-sample")(
      "at", po::value<std::string>(),
      "with --fit: CSV of rows to report MAPE on (default: the "
      "workload's other reference rows)");
  const po::variables_map vm = parse_verb("calibrate", args, options);
  if (vm.count("help")) {
    out << verb_usage(
        "calibrate [--device NAME] [--reference DIR] [--out PATH]\n"
        "       fulcrum calibrate --modes [--holdout F --seed S] [--fit CSV --workload W [--at "
        "CSV]]",
        "Fits the analytic performance model's coefficients (least squares) to the\n"
        "published measurements, prints every anchor with its error and the MAPE, and\n"
        "writes the calibration file that `run` uses (models/data/calibration/).",
        options);
    return 0;
  }
  if (!vm.count("modes")) {
    // These shape a --modes fit; without --modes they would be ignored.
    for (const char* key : {"holdout", "fit", "fit-sample", "workload", "at", "seed"}) {
      if (vm.count(key)) {
        throw InputError(std::nullopt, std::string("--") + key, "only with --modes");
      }
    }
    if (!vm["phase"].defaulted()) throw InputError(std::nullopt, "--phase", "only with --modes");
  }
  DataDir reference = default_reference_dir();
  if (vm.count("reference")) reference = {vm["reference"].as<std::string>(), "from --reference"};
  if (std::error_code ec; !std::filesystem::is_directory(reference.path, ec)) {
    throw InputError(std::nullopt, "fulcrum calibrate",
                     "reference folder '" + reference.path + "' not found (" + reference.chosen_by +
                         "); pass --reference DIR naming the folder with the reference "
                         "measurements");
  }
  const models::DeviceCatalog catalog = devices_from(default_data_dir());
  const models::DeviceSpec& device = catalog.get(vm["device"].as<std::string>());
  if (vm.count("modes")) return calibrate_modes(vm, device, reference.path, out, err);
  if (vm.count("out")) {
    check_out(vm["out"].as<std::string>(), device.name, "", {});
  }
  const CalibrationReport report = calibrate_from_reference(reference.path, device);
  if (!vm.count("quiet")) out << report.table;
  if (vm.count("out")) {
    std::filesystem::path path(vm["out"].as<std::string>());
    if (path.extension() != ".yaml") path /= device.name + ".yaml";
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    AtomicFile file(path);  // a failed write never leaves a half calibration under the real name
    file.write(report.yaml);
    file.publish();
    if (!vm.count("quiet")) err << "fulcrum: wrote " << path.string() << "\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
