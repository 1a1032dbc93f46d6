#include "models/perf/analytic_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

bool contains(const std::string& haystack, const char* needle) {
  return haystack.find(needle) != std::string::npos;
}

// Active CUDA cores in a mode: cores per TPC x powered TPCs (all cores when TPCs are unknown).
double active_cuda_cores(const DeviceSpec& device, const PowerMode& mode) {
  if (device.gpu_tpcs <= 0) return device.cuda_cores;
  const int tpcs = std::min(mode.gpu_tpcs, device.gpu_tpcs);
  return static_cast<double>(device.cuda_cores_per_tpc()) * tpcs;
}

double table_max(const std::vector<double>& table, double fallback) {
  return table.empty() ? fallback : table.back();
}
double table_min(const std::vector<double>& table, double fallback) {
  return table.empty() ? fallback : table.front();
}

double efficiency(const AnalyticCoefficients& c, ComputeClass k) {
  switch (k) {
    case ComputeClass::general:
      return c.eff_compute;
    case ComputeClass::matmul:
      return c.eff_matmul;
    case ComputeClass::grouped:
      return c.eff_grouped;
  }
  return c.eff_compute;
}

}  // namespace

ComputeClass compute_class(const LayerWork& layer) {
  // No default: a new OpKind must be placed here before the model compiles.
  switch (layer.kind) {
    case OpKind::linear:
    case OpKind::matmul:
    case OpKind::lstm:
    case OpKind::embedding:
      return ComputeClass::matmul;
    case OpKind::conv:
      return layer.grouped ? ComputeClass::grouped : ComputeClass::general;
    case OpKind::input:
    case OpKind::bn:
    case OpKind::layernorm:
    case OpKind::act:
    case OpKind::pool:
    case OpKind::add:
    case OpKind::mul:
    case OpKind::concat:
    case OpKind::upsample:
    case OpKind::softmax:
    case OpKind::view:
      return ComputeClass::general;
  }
  return ComputeClass::general;
}

double dram_bytes(const DeviceSpec& device, const LayerWork& layer) {
  if (layer.reread_bytes <= 0) return layer.bytes;
  const bool fits = device.gpu_l2_kb && layer.reread_footprint_bytes <= *device.gpu_l2_kb * 1024.0;
  return fits ? layer.bytes : layer.bytes + layer.reread_bytes;
}

double host_scale(const PowerMode& mode, double cpu_ref_khz) {
  if (!(mode.cpu_khz > 0)) throw InputError("power mode has no CPU frequency");
  return cpu_ref_khz / mode.cpu_khz;
}

double voltage_ratio(double f, double f_min, double f_max, double v_min_ratio) {
  if (!(f_max > f_min)) return 1.0;
  const double x = std::clamp((f - f_min) / (f_max - f_min), 0.0, 1.0);
  return v_min_ratio + (1.0 - v_min_ratio) * x;
}

std::vector<LayerFeatures> layer_features(const DeviceSpec& device, const PowerMode& mode,
                                          const std::vector<LayerWork>& layers,
                                          double cpu_ref_khz) {
  const double cores = active_cuda_cores(device, mode);
  if (!(cores > 0)) throw InputError("power mode " + mode.label() + " has no active GPU cores");
  if (!(mode.gpu_hz > 0)) throw InputError("power mode has no GPU frequency");
  const double bandwidth_bps = device.memory_bandwidth_gbps(mode.emc_hz) * 1e9;
  if (!(bandwidth_bps > 0)) {
    throw InputError("device " + device.name + " has no memory bandwidth at EMC " +
                     std::to_string(mode.emc_hz) + " Hz (memory bus width or EMC missing)");
  }
  const double peak_flops = cores * 2.0 * mode.gpu_hz;
  const double launch_scale = host_scale(mode, cpu_ref_khz);

  std::vector<LayerFeatures> out;
  out.reserve(layers.size());
  for (const LayerWork& l : layers) {
    out.push_back({l.flops / peak_flops * 1e3, dram_bytes(device, l) / bandwidth_bps * 1e3,
                   l.kernels * launch_scale, compute_class(l)});
  }
  return out;
}

AnalyticModel::AnalyticModel(AnalyticCoefficients coefficients) : c_(std::move(coefficients)) {
  if (!(c_.eff_compute > 0) || !(c_.eff_matmul > 0) || !(c_.eff_grouped > 0) ||
      !(c_.eff_memory > 0)) {
    throw InputError("analytic model efficiencies must be > 0");
  }
  if (c_.launch_us < 0 || c_.overhead_ms < 0 || c_.launch_overlap < 0 || c_.launch_overlap > 1) {
    throw InputError("analytic model launch terms must be >= 0 and launch_overlap in [0, 1]");
  }
  if (!(c_.cpu_ref_khz > 0)) throw InputError("analytic model cpu_ref_khz must be > 0");
}

TimeBreakdown AnalyticModel::time(const DeviceSpec& device, const PowerMode& mode,
                                  const std::vector<LayerWork>& layers, double host_share) const {
  if (!(host_share > 0 && host_share <= 1)) {
    throw InputError("the host thread's core share must be in (0, 1], got " +
                     std::to_string(host_share));
  }
  const auto features = layer_features(device, mode, layers, c_.cpu_ref_khz);
  TimeBreakdown t;
  const double launch_ms = c_.launch_us * 1e-3;
  const double stretch = 1.0 / host_share;  // wall time per core-time of the host thread
  for (std::size_t i = 0; i < features.size(); ++i) {
    const LayerFeatures& f = features[i];
    const double eff = efficiency(c_, f.compute_class);
    const double compute = f.compute_ms / eff;
    const double memory = f.memory_ms / c_.eff_memory;
    const double gpu = std::max(compute, memory);
    const double host = f.launches * launch_ms;
    const double host_wall = host * stretch;
    t.total_ms += std::max(gpu, host_wall) + c_.launch_overlap * std::min(gpu, host_wall);
    t.gpu_ms += gpu;
    t.compute_ms += compute;
    t.launch_ms += host;
    t.dram_bytes += dram_bytes(device, layers[i]);
  }
  const double overhead = c_.overhead_ms * host_scale(mode, c_.cpu_ref_khz);
  t.total_ms += overhead * stretch;
  t.host_ms = t.launch_ms + overhead;
  return t;
}

RailMap rail_map(const DeviceSpec& device) {
  RailMap m;
  if (device.rails.empty()) return m;
  const std::size_t last = device.rails.size() - 1;
  auto find = [&](std::initializer_list<const char*> keys) -> std::optional<std::size_t> {
    for (const char* k : keys) {
      for (std::size_t i = 0; i < device.rails.size(); ++i) {
        if (contains(device.rails[i], k)) return i;
      }
    }
    return std::nullopt;
  };
  const auto sys = find({"SYS", "5V", "VDD_IN", "VIN"});
  m.sys = sys.value_or(last);
  m.gpu_soc = find({"GPU", "SOC"}).value_or(m.sys);
  m.cpu = find({"CPU"}).value_or(m.sys);
  return m;
}

namespace {

// How the calibration device's power magnitudes carry over to the device being predicted.
struct DeviceScales {
  double static_w = 0;   // module idle power at the device's maximum clocks, W
  double dynamic = 1;    // activity-driven power relative to the calibration device
  double gpu_cores = 1;  // active CUDA cores as a share of the calibration device's (on it) or
                         // of the device's own (elsewhere)
};

// On the calibration device: the fitted magnitudes. On another: its own envelope figures, the
// idle power as static power and the headroom above it (module_peak_w - idle_w) shared out as on
// the calibration device, so that a load that keeps the calibration device within its maximum
// keeps every device within its own (docs/MODEL.md, "Other devices").
DeviceScales device_scales(const AnalyticCoefficients& c, const DeviceSpec& device,
                           const PowerMode& mode) {
  DeviceScales s;
  const double cores = active_cuda_cores(device, mode);
  if (device.name == c.device) {
    s.static_w = c.static_w;
    s.gpu_cores = cores / c.ref_cuda_cores;
    return s;
  }
  if (!device.idle_w || !device.module_peak_w) {
    throw InputError("device " + device.name +
                     " has no published idle and maximum module power (power.idle_w and "
                     "power.module_peak_w in its data file): the analytic model, calibrated on " +
                     c.device + ", needs both to scale power to it");
  }
  const double ref_headroom_w = c.ref_module_peak_w - c.static_w;
  const double headroom_w = *device.module_peak_w - *device.idle_w;
  if (!(ref_headroom_w > 0) || !(headroom_w > 0)) {
    throw InputError("device " + device.name + ": maximum module power must exceed idle power (" +
                     c.device + " calibration and " + device.name + " data file)");
  }
  s.static_w = *device.idle_w;
  s.dynamic = headroom_w / ref_headroom_w;
  s.gpu_cores = device.cuda_cores > 0 ? cores / device.cuda_cores : 1.0;
  return s;
}

RailPower make_rails(const DeviceSpec& device, double gpu_soc_w, double cpu_w, double sys_w) {
  RailPower p;
  if (device.rails.empty()) {
    p.power_w = {gpu_soc_w + cpu_w + sys_w};
    return p;
  }
  p.power_w.assign(device.rails.size(), 0.0);
  const RailMap m = rail_map(device);
  p.power_w[m.gpu_soc] += gpu_soc_w;
  p.power_w[m.cpu] += cpu_w;
  p.power_w[m.sys] += sys_w;
  return p;
}

struct StaticParts {
  double gpu_soc_w = 0;
  double cpu_w = 0;
  double sys_w = 0;
};

StaticParts static_parts(const AnalyticCoefficients& c, const DeviceSpec& device,
                         const PowerMode& mode) {
  const DeviceScales s = device_scales(c, device, mode);
  const double p0 = s.static_w;
  const double a = c.static_scalable_share;
  const double tpc_frac = device.gpu_tpcs > 0
                              ? std::min(1.0, static_cast<double>(mode.gpu_tpcs) / device.gpu_tpcs)
                              : 1.0;
  const double core_frac = device.cpu_cores > 0
                               ? std::min(1.0, static_cast<double>(mode.cores) / device.cpu_cores)
                               : 1.0;
  const double vg = voltage_ratio(mode.gpu_hz, table_min(device.gpu_hz, mode.gpu_hz),
                                  table_max(device.gpu_hz, mode.gpu_hz), c.gpu_v_min_ratio);
  const double vc = voltage_ratio(mode.cpu_khz, table_min(device.cpu_khz, mode.cpu_khz),
                                  table_max(device.cpu_khz, mode.cpu_khz), c.cpu_v_min_ratio);
  const double emc_frac = mode.emc_hz / table_max(device.emc_hz, mode.emc_hz);
  const double sys_share = 1.0 - c.static_gpu_soc_share - c.static_cpu_cv_share;
  StaticParts out;
  out.gpu_soc_w = p0 * c.static_gpu_soc_share * ((1 - a) + a * tpc_frac * vg * vg);
  out.cpu_w = p0 * c.static_cpu_cv_share * ((1 - a) + a * core_frac * vc * vc);
  out.sys_w = p0 * sys_share * ((1 - a) + a * emc_frac);
  return out;
}

}  // namespace

RailPower AnalyticModel::idle_power(const DeviceSpec& device, const PowerMode& mode) const {
  const StaticParts s = static_parts(c_, device, mode);
  return make_rails(device, s.gpu_soc_w, s.cpu_w, s.sys_w);
}

RailPower AnalyticModel::busy_power(const DeviceSpec& device, const PowerMode& mode,
                                    const TimeBreakdown& t) const {
  assert(t.total_ms > 0);
  const StaticParts s = static_parts(c_, device, mode);
  const DeviceScales scale = device_scales(c_, device, mode);
  // Exact on the calibration device (scale 1), so its predictions are the fitted ones.
  const double gpu_dynamic_w = c_.gpu_dynamic_w * scale.dynamic;
  const double cpu_dynamic_w = c_.cpu_dynamic_w * scale.dynamic;
  const double memory_dynamic_w = c_.memory_dynamic_w * scale.dynamic;

  const double u_gpu = std::min(1.0, t.gpu_ms / t.total_ms);
  const double u_host = std::min(1.0, t.host_ms / t.total_ms);
  const double f_gpu_max = table_max(device.gpu_hz, mode.gpu_hz);
  const double f_cpu_max = table_max(device.cpu_khz, mode.cpu_khz);
  const double vg = voltage_ratio(mode.gpu_hz, table_min(device.gpu_hz, mode.gpu_hz), f_gpu_max,
                                  c_.gpu_v_min_ratio);
  const double vc = voltage_ratio(mode.cpu_khz, table_min(device.cpu_khz, mode.cpu_khz), f_cpu_max,
                                  c_.cpu_v_min_ratio);
  // Bytes per second relative to the device's own peak bandwidth.
  const double peak_bps = device.memory_bandwidth_gbps(table_max(device.emc_hz, mode.emc_hz)) * 1e9;
  const double u_mem =
      peak_bps > 0 ? std::min(1.0, t.dram_bytes / (t.total_ms * 1e-3) / peak_bps) : 0.0;

  const double gpu_dyn =
      gpu_dynamic_w * u_gpu * scale.gpu_cores * (mode.gpu_hz / f_gpu_max) * vg * vg;
  const double cpu_dyn = cpu_dynamic_w * u_host * (mode.cpu_khz / f_cpu_max) * vc * vc;
  const double mem_dyn = memory_dynamic_w * u_mem;
  return make_rails(device, s.gpu_soc_w + gpu_dyn, s.cpu_w + cpu_dyn, s.sys_w + mem_dyn);
}

Prediction AnalyticModel::predict(const PerfQuery& q) const {
  if (q.batch_size < 1) {
    throw InputError("batch size must be >= 1, got " + std::to_string(q.batch_size));
  }
  const auto layers = q.workload.layer_work(q.phase, q.batch_size);
  const TimeBreakdown t = time(q.device, q.mode, layers, q.host_share);
  if (!(t.total_ms > 0)) {
    throw InputError("workload " + q.workload.name() + " has no work to time");
  }
  Prediction p;
  p.time_ms = t.total_ms;
  p.power = busy_power(q.device, q.mode, t);
  p.provenance = q.device.name == c_.device ? Provenance::modelled : Provenance::extrapolated;
  return p;
}

}  // namespace fulcrum::models
