#include "sim/app/catalogs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <variant>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/power_meter.hpp"
#include "models/workload/dataset_catalog.hpp"
#include "models/workload/graph_workload.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/app/available.hpp"
#include "sim/app/profiling.hpp"
#include "sim/config/cross_mode_loader.hpp"
#include "sim/config/input_text.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/output_path.hpp"

namespace fulcrum::sim::app {

namespace {

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

DevicesReport devices(const DevicesRequest& request) {
  const models::DeviceCatalog catalog = devices_from(request.data_dir);
  DevicesReport report;
  if (request.name) {
    report.one = true;
    report.devices.push_back(catalog.get(*request.name));
    const DefaultModel m = default_perf_model(request.data_dir, report.devices.back());
    report.default_model = m.name;
    report.default_model_reason = m.reason;
    if (std::holds_alternative<AnalyticModesPerfModel>(m.choice)) {
      const models::CrossModeCalibration c = load_cross_mode_calibration(
          cross_mode_calibration_path(request.data_dir, report.devices.back().name));
      for (const auto& [key, w] : c.workloads) {
        (void)w;
        report.fitted_workloads.push_back(key.first + " " + models::to_string(key.second));
      }
      if (c.zero_shot_check) {
        for (const models::Phase p : {models::Phase::training, models::Phase::inference}) {
          const std::string clause = models::zero_shot_check_clause(*c.zero_shot_check, p);
          if (!clause.empty()) report.zero_shot_check.push_back(clause);
          const std::string few = models::few_shot_check_clause(*c.zero_shot_check, p);
          if (!few.empty()) report.few_shot_check.push_back(few);
        }
      }
    }
  } else {
    for (const models::DeviceSpec& d : catalog.devices()) report.devices.push_back(d);
  }
  return report;
}

ProbeReport probe_device(const ProbeRequest& request, std::ostream& notes) {
  if (request.out) check_output_file(*request.out, "--out");
  ProbeReport report;
  report.yaml = probe_yaml(request.name, notes);
  if (request.out) {
    write_file_atomically(*request.out, report.yaml);
    report.written = request.out;
  }
  return report;
}

WorkloadsReport workloads(const WorkloadsRequest& request) {
  add_data_workloads(request.data_dir);
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  std::vector<std::string> names;
  for (const std::string& file : request.files) {
    if (!names_workload_file(file)) {
      throw InputError(std::nullopt, "fulcrum workloads",
                       "expected workload files (.yaml or .yml), got '" + printable(file) +
                           "' (the catalog's workloads are listed without arguments)");
    }
    names.push_back(add_workload_file(file));
  }
  if (request.files.empty()) names = catalog.names();
  WorkloadsReport report;
  for (const std::string& name : names) {
    const models::Workload& w = catalog.get(name);
    const models::PhaseCost inference = w.cost(models::Phase::inference, 1);
    const models::PhaseCost training = w.cost(models::Phase::training, 1);
    WorkloadRow row{
        name,           w.task(),          w.parameters(),  w.forward_flops_per_sample(),
        training.flops, inference.kernels, training.kernels};
    row.source = catalog.source(name);
    if (const models::GraphWorkload* g = w.graph()) {
      row.phases.clear();
      for (models::Phase p : g->use().phases) row.phases.emplace_back(models::to_string(p));
    }
    report.workloads.push_back(std::move(row));
  }
  // Given files, the report shows only them; the datasets belong to the catalog listing.
  if (!request.files.empty()) return report;
  for (const std::string& name : models::dataset_names()) {
    const models::DatasetSpec& s = models::dataset(name);
    report.datasets.push_back({name, s.samples, s.bytes, s.note});
  }
  return report;
}

}  // namespace fulcrum::sim::app
