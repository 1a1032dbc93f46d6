// `fulcrum devices [NAME]`: the device catalog, or one device's frequency tables and presets.
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/power_meter.hpp"
#include "models/device/device_catalog.hpp"
#include "models/device/power_mode.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "sim/app/profiling.hpp"
#include "sim/cli/text_table.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/report/catalog_json.hpp"
#include "sim/report/output_path.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;
using namespace app;  // the profiling helpers

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

// The host CPU's current frequency in kHz as /proc/cpuinfo reports it ("cpu MHz"), if any.
std::optional<double> host_cpu_khz() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::stod(line.substr(colon + 1)) * 1e3;
    }
  }
  return std::nullopt;
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

// The GPU at hand as a catalog device file (models/data/devices/NAME.yaml): what the CUDA runtime
// reports, NVML's power limit and a 1 s idle power reading, the host's CPU. One power mode,
// CURRENT: Fulcrum never changes a data-centre GPU's clocks.
std::string probe_yaml(const std::string& name, std::ostream& err) {
  const backends::GpuDescription g = backends::probe_gpu(0);
  std::optional<backends::MeteredDeviceInfo> info;
  std::optional<double> idle_w;
  try {
    const std::unique_ptr<backends::PowerMeter> meter =
        backends::make_power_meter({.kind = backends::PowerMeterKind::nvml});
    info = meter->description();
    meter->start();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    idle_w = meter->stop().average_power_w();
  } catch (const std::exception& e) {
    err << "fulcrum: devices --probe: no NVML readings (" << e.what() << ")\n";
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double cpu_khz = host_cpu_khz().value_or(1e6);
  const double sm_hz =
      g.sm_clock_hz.value_or(info && info->sm_clock_mhz ? *info->sm_clock_mhz * 1e6 : 1e9);
  // The runtime reports the memory clock per data line pair; DeviceSpec counts bandwidth as
  // f x 2 (DDR) x bus bytes, so the same clock goes in.
  const double mem_hz = g.memory_clock_hz.value_or(1e9);
  std::ostringstream y;
  y << "# Probed by `fulcrum devices --probe` (CUDA runtime " << g.cuda_runtime << ", driver API "
    << g.cuda_driver << (info ? ", driver " + info->driver_version : std::string()) << ").\n";
  y << "name: " << name << "\n";
  y << "soc: \"" << g.name << "\"\n";
  y << "source: >-\n  fulcrum devices --probe: cudaGetDeviceProperties and the runtime's peak "
       "clocks; "
       "CUDA cores = SMs x FP32 lanes per SM of compute capability "
    << g.sm_version / 10 << "." << g.sm_version % 10
    << " (CUDA C++ Programming Guide); power from NVML; CPU from /proc/cpuinfo.\n";
  y << "note: >-\n  A data-centre GPU: one power mode, CURRENT (the clocks as found, never "
       "changed). "
       "tpcs is the SM count / 2, at most 32 (the catalog's TPC mask width; no TPC is ever "
       "gated here). GPU clocks read back by NVML at probe time: SM "
    << (info && info->sm_clock_mhz ? number(*info->sm_clock_mhz) : std::string("?"))
    << " MHz, memory "
    << (info && info->mem_clock_mhz ? number(*info->mem_clock_mhz) : std::string("?"))
    << " MHz.\n\n";
  y << "cpu: {arch: host, cores: " << cores << ", clusters: 1}\n";
  y << "cpu_khz: [" << number(std::round(cpu_khz)) << "]\n";
  y << "gpu: {arch: sm" << g.sm_version << ", sm_version: " << g.sm_version
    << ", tpcs: " << std::clamp(g.sms / 2, 1, 32) << ", sms: " << g.sms
    << ", cuda_cores: " << g.cuda_cores << ", tensor_cores: " << g.tensor_cores
    << ", l2_kb: " << number(g.l2_bytes / 1024) << "}\n";
  y << "gpu_hz: [" << number(sm_hz) << "]\n";
  y << "emc_hz: [" << number(mem_hz) << "]\n";
  y << "memory: {type: device, gb: " << number(std::round(g.memory_bytes / 1e9))
    << ", bus_bits: " << g.memory_bus_bits << "}\n\n";
  y << "power:\n  rails: [GPU]\n";
  if (info && info->power_limit_w) {
    y << "  module_peak_w:\n    value: " << number(*info->power_limit_w)
      << "\n    source: NVML power limit (nvmlDeviceGetPowerManagementLimit), read by fulcrum "
         "devices --probe\n";
  }
  if (idle_w) {
    y << "  idle_w:\n    value: " << fixed(*idle_w, 1)
      << "\n    source: NVML energy counter over 1 s with nothing running, measured by fulcrum "
         "devices --probe\n";
  }
  y << "\npresets:\n  CURRENT: {cores: " << cores << "}\ndefault_preset: CURRENT\n";
  return y.str();
}

}  // namespace

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
    if (vm.count("out")) check_output_file(vm["out"].as<std::string>(), "--out");
    const std::string text = probe_yaml(vm["name"].as<std::string>(), err);
    if (vm.count("out")) {
      write_file_atomically(vm["out"].as<std::string>(), text);
    } else {
      out << text;
    }
    return 0;
  }
  const models::DeviceCatalog catalog = devices_from(default_data_dir());
  if (vm.count("json")) {
    std::vector<const models::DeviceSpec*> chosen;
    if (!names.empty()) {
      chosen.push_back(&catalog.get(only_operand(names, "devices", "expected at most one NAME")));
    } else {
      for (const models::DeviceSpec& d : catalog.devices()) chosen.push_back(&d);
    }
    out << devices_json(chosen);
    return 0;
  }
  if (!names.empty()) {
    print_device(catalog.get(only_operand(names, "devices", "expected at most one NAME")), out);
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
