// `fulcrum devices [NAME]`: the device catalog, or one device's frequency tables and presets.
#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/catalogs.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/catalog_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_devices(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "probe", "describe the GPU at hand (CUDA runtime, NVML) as a catalog device file")(
      "name", po::value<std::string>()->default_value("probed-gpu"),
      "--probe: the catalog name of the device (and its file name)")(
      "out", po::value<std::string>(), "--probe: write the device file here (default: stdout)")(
      "json", "print the catalog (or the device NAME) as JSON on stdout");
  const auto [vm, names] = parse_verb("devices", args, options, "device");
  if (vm.count("help")) {
    out << verb_usage("devices [NAME] | devices --probe [--name NAME] [--out FILE]",
                      "Without NAME: one line per device of the catalog. With NAME: that device's\n"
                      "CPU, GPU and memory frequency tables, its nvpmodel presets and mode grids.\n"
                      "--probe: the GPU at hand as a device file for models/data/devices/ (or a\n"
                      "folder named by $FULCRUM_DATA_DIR), so that `profile` and `validate` can\n"
                      "run scenarios on it (needs the cuda backend).",
                      options);
    return 0;
  }
  if (vm.count("out") && !vm.count("probe")) {
    throw InputError(std::nullopt, "--out", "only with --probe");
  }
  if (vm.count("probe")) {
    app::ProbeRequest request{.name = vm["name"].as<std::string>()};
    if (vm.count("out")) request.out = vm["out"].as<std::string>();
    const ProbeReport report = app::probe_device(request, err);
    if (!report.written) out << report.yaml;
    return 0;
  }
  app::DevicesRequest request;
  if (!names.empty()) request.name = only_operand(names, "devices", "expected at most one NAME");
  const DevicesReport report = app::devices(request);
  out << (vm.count("json") ? devices_json(report) : devices_text(report));
  return 0;
}

}  // namespace fulcrum::sim
