// `fulcrum devices [NAME]`: the device catalog, or one device's frequency tables and presets.
#include <boost/program_options.hpp>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/device/power_mode.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "sim/cli/scenario_run.hpp"
#include "sim/cli/text_table.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

std::string join_mhz(const std::vector<double>& values, double per_mhz) {
  std::string s;
  for (double v : values) s += (s.empty() ? "" : ", ") + models::format_mhz(v / per_mhz);
  return s;
}

void print_device(const models::DeviceSpec& d, std::ostream& out) {
  out << d.name << " (" << d.soc << ")\n";
  if (!d.source.empty()) out << "  source: " << d.source << "\n";
  out << "  CPU: " << d.cpu_cores << " x " << d.cpu_arch << " in " << d.cpu_clusters
      << " clusters\n"
      << "  GPU: " << d.gpu_arch << ", " << d.gpu_tpcs << " TPCs, " << d.gpu_sms << " SMs, "
      << d.cuda_cores << " CUDA cores, " << d.tensor_cores << " tensor cores\n"
      << "  memory: " << models::format_mhz(d.memory_gb) << " GB " << d.memory_type << ", "
      << d.memory_bus_bits << "-bit\n";
  if (d.module_peak_w) out << "  module peak power: " << *d.module_peak_w << " W\n";
  std::string rails;
  for (const auto& r : d.rails) rails += (rails.empty() ? "" : ", ") + r;
  out << "  power rails: " << rails << "\n\n";
  out << "  CPU frequencies (MHz, " << d.cpu_khz.size() << "): " << join_mhz(d.cpu_khz, 1e3)
      << "\n";
  out << "  GPU frequencies (MHz, " << d.gpu_hz.size() << "): " << join_mhz(d.gpu_hz, 1e6) << "\n";
  out << "  EMC frequencies (MHz, " << d.emc_hz.size() << "): " << join_mhz(d.emc_hz, 1e6) << "\n";
  out << "  modes: " << d.cpu_cores << " x " << d.cpu_khz.size() << " x " << d.gpu_hz.size()
      << " x " << d.emc_hz.size() << " = "
      << (d.cpu_cores * d.cpu_khz.size() * d.gpu_hz.size() * d.emc_hz.size()) << "\n\n";
  TextTable presets(
      {"preset", "cores", "CPU max MHz", "GPU max MHz", "EMC max MHz", "TPCs on", "resolved mode"});
  auto cap = [](const std::optional<double>& v, double per_mhz) {
    return v ? models::format_mhz(*v / per_mhz) : std::string("uncapped");
  };
  for (const models::Preset& p : d.presets) {
    const models::PowerMode m = models::resolve_preset(d, p.name);
    presets.add({p.name + (p.name == d.default_preset ? " (default)" : ""), std::to_string(p.cores),
                 cap(p.cpu_max_khz, 1e3), cap(p.gpu_max_hz, 1e6), cap(p.emc_max_hz, 1e6),
                 std::to_string(m.gpu_tpcs), power_mode_label(m)});
  }
  out << presets.str();
  if (!d.grids.empty()) {
    out << "\n";
    TextTable grids({"mode grid", "cores", "CPU freqs", "GPU freqs", "EMC freqs", "modes"});
    for (const models::ModeGrid& g : d.grids) {
      grids.add({g.name, std::to_string(g.cores.size()), std::to_string(g.cpu_khz.size()),
                 std::to_string(g.gpu_hz.size()), std::to_string(g.emc_hz.size()),
                 std::to_string(g.size())});
    }
    out << grids.str();
  }
  if (!d.note.empty()) out << "\n  note: " << d.note << "\n";
}

}  // namespace

int cmd_devices(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("name", po::value<std::vector<std::string>>(), "device");
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("name", -1);
  const po::variables_map vm = parse_verb("devices", args, all, positional);
  if (vm.count("help")) {
    out << verb_usage("devices [NAME]",
                      "Without NAME: one line per device of the catalog. With NAME: that device's\n"
                      "CPU, GPU and memory frequency tables, its nvpmodel presets and mode grids.",
                      options);
    return 0;
  }
  const models::DeviceCatalog catalog = devices_from(default_data_dir());
  if (vm.count("name")) {
    const auto& names = vm["name"].as<std::vector<std::string>>();
    if (names.size() != 1)
      throw InputError(std::nullopt, "fulcrum devices", "expected at most one NAME");
    print_device(catalog.get(names[0]), out);
    return 0;
  }
  TextTable t({"device", "SoC", "CPU cores", "CPU max MHz", "GPU max MHz", "EMC max MHz",
               "CUDA cores", "memory GB", "modes", "presets"});
  for (const models::DeviceSpec& d : catalog.devices()) {
    std::string presets;
    for (const auto& p : d.presets) presets += (presets.empty() ? "" : ", ") + p.name;
    const std::size_t modes = static_cast<std::size_t>(d.cpu_cores) * d.cpu_khz.size() *
                              d.gpu_hz.size() * d.emc_hz.size();
    t.add({d.name, d.soc, std::to_string(d.cpu_cores),
           d.cpu_khz.empty() ? "-" : models::format_mhz(d.cpu_khz.back() / 1e3),
           d.gpu_hz.empty() ? "-" : models::format_mhz(d.gpu_hz.back() / 1e6),
           d.emc_hz.empty() ? "-" : models::format_mhz(d.emc_hz.back() / 1e6),
           std::to_string(d.cuda_cores), models::format_mhz(d.memory_gb), std::to_string(modes),
           presets});
  }
  out << t.str();
  return 0;
}

}  // namespace fulcrum::sim
