// `fulcrum calibrate`: fits the analytic performance model to reference measurements.
#include <boost/program_options.hpp>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/error.hpp"
#include "sim/cli/scenario_run.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/report/atomic_file.hpp"

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
      "quiet,q", "do not print the fit table");
  const po::variables_map vm = parse_verb("calibrate", args, options, {});
  if (vm.count("help")) {
    out << verb_usage(
        "calibrate [--device NAME] [--reference DIR] [--out PATH]",
        "Fits the analytic performance model's coefficients (least squares) to the\n"
        "published measurements, prints every anchor with its error and the MAPE, and\n"
        "writes the calibration file that `run` uses (models/data/calibration/).",
        options);
    return 0;
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
