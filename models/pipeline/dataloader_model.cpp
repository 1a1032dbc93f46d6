#include "models/pipeline/dataloader_model.hpp"

#include <algorithm>

#include "models/error.hpp"
#include "models/perf/analytic_model.hpp"

namespace fulcrum::models {

const SampleFormat& DataloaderModel::format_of(std::string_view dataset) const {
  if (const auto o = dataset_overrides.find(dataset); o != dataset_overrides.end()) {
    return o->second;
  }
  const auto it = dataset_formats.find(dataset);
  if (it != dataset_formats.end()) {
    for (const SampleFormat& f : formats)
      if (f.name == it->second) return f;
  }
  throw InputError("no sample format for dataset '" + std::string(dataset) +
                   "' in the dataloader model (models/data/pipeline/dataloader.yaml)");
}

namespace {

// Per-clock speed of the device's CPU against the reference core (1 when not listed).
double arch_speed_of(const DataloaderModel& model, const DeviceSpec& device) {
  if (const auto it = model.arch_speed.find(device.cpu_arch); it != model.arch_speed.end()) {
    return it->second;
  }
  return 1.0;
}

}  // namespace

double preprocess_ms_per_sample(const DataloaderModel& model, const SampleFormat& format,
                                const DeviceSpec& device, const PowerMode& mode) {
  const double speed = arch_speed_of(model, device);
  const double cpu_ms = format.cpu_ms_at_ref * (model.ref_cpu_khz / mode.cpu_khz) / speed;
  const double bandwidth_b_s =
      device.memory_bandwidth_gbps(mode.emc_hz) * 1e9 * model.memory_efficiency;
  const double memory_ms =
      bandwidth_b_s > 0 ? format.memory_mb_touched * 1e6 / bandwidth_b_s * 1e3 : 0.0;
  return cpu_ms + memory_ms;
}

double worker_batch_ms(const DataloaderModel& model, const DeviceSpec& device,
                       const PowerMode& mode) {
  return model.worker_batch_ms_at_ref * (model.ref_cpu_khz / mode.cpu_khz) /
         arch_speed_of(model, device);
}

double host_intake_ms(const DataloaderModel& model, double input_bytes, const DeviceSpec& device,
                      const PowerMode& mode) {
  if (!(model.host_copy_gb_s > 0) || !(input_bytes > 0)) return 0.0;
  return input_bytes / (model.host_copy_gb_s * 1e9) * 1e3 * (model.ref_cpu_khz / mode.cpu_khz) /
         arch_speed_of(model, device);
}

CacheEstimate cache_capacity(const DataloaderModel& model, double ram_gb,
                             double training_parameters,
                             const std::vector<double>& inference_parameters) {
  CacheEstimate c;
  c.ram_gb = ram_gb;
  c.os_gb = model.os_gb;
  c.processes_gb = model.training_process_gb;
  double parameters = training_parameters * model.gpu_bytes_per_parameter;
  for (double p : inference_parameters) {
    c.processes_gb += model.inference_process_gb;
    parameters += p * 4;  // fp32 weights only
  }
  c.gpu_gb = parameters / 1e9;
  c.capacity_bytes = std::max(0.0, (ram_gb - c.os_gb - c.processes_gb - c.gpu_gb) * 1e9);
  return c;
}

double busy_core_power_w(const DataloaderModel& model, const DeviceSpec& device,
                         const PowerMode& mode) {
  if (device.cpu_khz.empty()) return model.core_active_w;
  const double f_min = device.cpu_khz.front();
  const double f_max = device.cpu_khz.back();
  const double v = voltage_ratio(mode.cpu_khz, f_min, f_max, model.cpu_v_min_ratio);
  return model.core_active_w * (mode.cpu_khz / f_max) * v * v;
}

}  // namespace fulcrum::models
