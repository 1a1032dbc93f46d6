#include "backends/hardware/power_meter.hpp"

#include <cassert>

#include "backends/hardware/hwmon_power_meter.hpp"
#include "backends/hardware/nvml_power_meter.hpp"
#include "models/error.hpp"

namespace fulcrum::backends {

double trapezoid_energy_j(std::span<const double> time_s, std::span<const double> power_w) {
  assert(time_s.size() == power_w.size());
  double energy_j = 0;
  for (std::size_t k = 1; k < time_s.size(); ++k) {
    energy_j += 0.5 * (power_w[k] + power_w[k - 1]) * (time_s[k] - time_s[k - 1]);
  }
  return energy_j;
}

void NullPowerMeter::start() {
  if (started_) throw Error("power meter none: start() while a window is open");
  started_ = std::chrono::steady_clock::now();
}

EnergyReading NullPowerMeter::stop() {
  if (!started_) throw Error("power meter none: stop() without start()");
  EnergyReading r;
  r.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *started_).count();
  started_.reset();
  return r;
}

PowerMeterKind parse_power_meter_kind(const std::string& name) {
  for (PowerMeterKind k : {PowerMeterKind::automatic, PowerMeterKind::ina3221, PowerMeterKind::nvml,
                           PowerMeterKind::none}) {
    if (name == to_string(k)) return k;
  }
  throw InputError(std::nullopt, "--power-meter",
                   "unknown power meter \"" + name + "\" (automatic, ina3221, nvml, none)");
}

const char* to_string(PowerMeterKind kind) {
  switch (kind) {
    case PowerMeterKind::automatic:
      return "automatic";
    case PowerMeterKind::ina3221:
      return "ina3221";
    case PowerMeterKind::nvml:
      return "nvml";
    case PowerMeterKind::none:
      return "none";
  }
  return "?";
}

std::unique_ptr<PowerMeter> make_power_meter(const PowerMeterOptions& options) {
  switch (options.kind) {
    case PowerMeterKind::ina3221:
      return std::make_unique<HwmonPowerMeter>(options);
    case PowerMeterKind::nvml:
      return std::make_unique<NvmlPowerMeter>(options);
    case PowerMeterKind::none:
      return std::make_unique<NullPowerMeter>();
    case PowerMeterKind::automatic:
      break;
  }
  if (!find_ina3221_rails(options.sysfs_root).empty()) {
    return std::make_unique<HwmonPowerMeter>(options);
  }
  try {
    return std::make_unique<NvmlPowerMeter>(options);
  } catch (const Error&) {
    return std::make_unique<NullPowerMeter>();
  }
}

}  // namespace fulcrum::backends
