// `fulcrum calibrate`: fits the analytic performance model to reference measurements.
#include <boost/program_options.hpp>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/calibrate.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/report/calibrate_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

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
      "quiet,q", "do not print the fit table or progress lines")(
      "modes", "fit the cross-mode model (analytic-modes) to the measured power modes")(
      "holdout", po::value<double>(),
      "with --modes: fit on a random share of the modes, report "
      "MAPE on this held-out share per workload, phase and region (and again without the rows "
      "their own GPU-clock sweep contradicts)")("seed", po::value<std::string>(),
                                                "seed of the random split and samples (default 1)")(
      "zero-shot", po::value<double>(),
      "with --modes: leave each workload out (or only --workload), fit the device on this share "
      "of the other workloads' modes, predict every row of it from its layer graph alone; with "
      "--out (every workload), also fit on every row and write the calibration with this check "
      "(zero_shot_check, quoted by runs and devices NAME)")(
      "jobs,j", po::value<std::string>(),
      "with --modes: threads of the fits (default 0: every core), with --zero-shot first one "
      "per workload left out; the same output for every count")(
      "fit", po::value<std::string>(),
      "with --modes: profile CSV of a new workload; fits only "
      "its parameters (the device from the other workloads)")(
      "fit-sample", po::value<std::size_t>(),
      "with --modes: like --fit, with this many random "
      "reference rows of --workload in --phase")(
      "workload", po::value<std::string>(),
      "the new workload of --fit / --fit-sample: a catalog name or a workload file (.yaml)")(
      "phase", po::value<std::string>()->default_value("training"), "phase of --fit-sample")(
      "at", po::value<std::string>(),
      "with --fit: CSV of rows to report MAPE on (default: the "
      "workload's other reference rows)")(
      "json", "print what was fitted and written as JSON on stdout (no table)");
  const po::variables_map vm = parse_verb("calibrate", args, options);
  if (vm.count("help")) {
    out << verb_usage(
        "calibrate [--device NAME] [--reference DIR] [--out PATH]\n"
        "       fulcrum calibrate --modes [--jobs N] [--holdout F --seed S]\n"
        "                         [--fit CSV --workload W [--at CSV]]\n"
        "       fulcrum calibrate --modes [--jobs N] --zero-shot F [--workload W | --out PATH]",
        "Fits the analytic performance model's coefficients (least squares) to the\n"
        "published measurements, prints every anchor with its error and the MAPE, and\n"
        "writes the calibration file that `run` uses (models/data/calibration/).",
        options);
    return 0;
  }
  if (!vm.count("modes")) {
    // These shape a --modes fit; without --modes they would be ignored.
    for (const char* key :
         {"holdout", "zero-shot", "fit", "fit-sample", "workload", "at", "seed", "jobs"}) {
      if (vm.count(key)) {
        throw InputError(std::nullopt, std::string("--") + key, "only with --modes");
      }
    }
    if (!vm["phase"].defaulted()) throw InputError(std::nullopt, "--phase", "only with --modes");
  }
  app::CalibrateRequest request;
  request.device = vm["device"].as<std::string>();
  request.reference = default_reference_dir();
  if (vm.count("reference")) {
    request.reference = {vm["reference"].as<std::string>(), "from --reference"};
  }
  if (vm.count("out")) request.out = vm["out"].as<std::string>();
  request.quiet = vm.count("quiet") > 0 || vm.count("json") > 0;
  request.modes = vm.count("modes") > 0;
  if (vm.count("holdout")) request.holdout = vm["holdout"].as<double>();
  if (vm.count("zero-shot")) request.zero_shot = vm["zero-shot"].as<double>();
  if (vm.count("jobs")) {
    request.jobs = parse_thread_count(vm["jobs"].as<std::string>(), "--jobs");
  }
  if (!request.quiet) {
    request.progress = [&err](const std::string& line) { err << "fulcrum: " << line << "\n"; };
  }
  if (vm.count("seed")) request.seed = parse_seed(vm["seed"].as<std::string>());
  if (vm.count("fit")) request.fit = vm["fit"].as<std::string>();
  if (vm.count("fit-sample")) request.fit_sample = vm["fit-sample"].as<std::size_t>();
  if (vm.count("workload")) request.workload = vm["workload"].as<std::string>();
  if (vm.count("at")) request.at = vm["at"].as<std::string>();
  request.phase = vm["phase"].as<std::string>();

  const CalibrateReport report = app::calibrate(request);
  if (vm.count("json")) {
    out << calibrate_json(report);
    return 0;
  }
  out << report.text;
  if (report.written && !vm.count("quiet")) {
    err << "fulcrum: wrote " << report.written->string() << "\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
