// PowerMeter: measures the energy a device draws between start() and stop(), per rail and for the
// module, and keeps the power series it sampled. One interface for every meter: the INA3221 rails
// of a Jetson (hwmon_power_meter.hpp), NVML on a data-centre GPU (nvml_power_meter.hpp), and a
// NullPowerMeter where nothing can be measured. make_power_meter() is the one place that picks one.
//
//   std::unique_ptr<PowerMeter> meter = make_power_meter({.kind = PowerMeterKind::automatic});
//   meter->start();
//   run_one_minibatch();
//   EnergyReading r = meter->stop();   // r.module_energy_j, r.rail_energy_j[i], r.series
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fulcrum::backends {

// Power sampled over one start()..stop() window. time_s[k] is seconds since start(); every
// sample has one power per rail (PowerMeter::rail_names() order) and the module power.
struct PowerSeries {
  std::vector<double> time_s;                     // ascending
  std::vector<std::vector<double>> rail_power_w;  // [sample][rail]
  std::vector<double> module_power_w;             // [sample]
};

// What a meter measured over one start()..stop() window.
struct EnergyReading {
  double duration_s = 0;              // wall time between start() and stop()
  std::vector<double> rail_energy_j;  // one per rail, PowerMeter::rail_names() order
  double module_energy_j = 0;         // the module (the summed rails, or a module counter)
  PowerSeries series;                 // what was sampled (empty for NullPowerMeter)
  double average_power_w() const { return duration_s > 0 ? module_energy_j / duration_s : 0; }
};

// What a meter can say about the device it reads, beside its readings (NVML names the GPU, its
// driver, its current clocks and power limit): for device.json and `devices --probe`.
struct MeteredDeviceInfo {
  std::string name;                       // "NVIDIA H100 80GB HBM3"
  std::string driver_version;             // "580.65.06"
  std::optional<unsigned> sm_clock_mhz;   // current, read back
  std::optional<unsigned> mem_clock_mhz;  // current, read back
  std::optional<double> power_limit_w;
};

class PowerMeter {
 public:
  virtual ~PowerMeter() = default;

  // What the meter is, for device.json and reports: "ina3221 (/sys/class/hwmon/hwmon1)",
  // "nvml (NVIDIA H100 80GB HBM3, GPU 0)", "none".
  virtual std::string name() const = 0;
  // Time between two samples of the power series (0 for NullPowerMeter).
  virtual std::chrono::nanoseconds sampling_interval() const = 0;
  // The rails it reports, in order: the INA3221 labels ("VDD_GPU_SOC", ...), "GPU" for NVML, none
  // for NullPowerMeter.
  virtual const std::vector<std::string>& rail_names() const = 0;
  // Whether the readings are measurements (false only for NullPowerMeter, whose energies are 0).
  virtual bool measures() const { return true; }
  // What the meter's source says about the device (NVML); nullopt where it says nothing (the
  // INA3221 rails, NullPowerMeter). Ask this instead of the meter's concrete class.
  virtual std::optional<MeteredDeviceInfo> description() const { return std::nullopt; }

  // Starts a measuring window (a sampling thread where the meter samples). Error when a window is
  // already open or the meter cannot be read.
  virtual void start() = 0;
  // Ends the window opened by start() and returns what it measured. Error without a start().
  virtual EnergyReading stop() = 0;
};

// The integral of a power series over time by the trapezoid rule, in J. Both spans have the same
// length; times ascend. Fewer than two samples integrate to 0.
double trapezoid_energy_j(std::span<const double> time_s, std::span<const double> power_w);

// The meter that measures nothing: name "none", no rails, energies 0. For a device without a
// readable meter, so that a run still reports durations (and says that power was not measured).
class NullPowerMeter final : public PowerMeter {
 public:
  std::string name() const override { return "none"; }
  std::chrono::nanoseconds sampling_interval() const override { return {}; }
  const std::vector<std::string>& rail_names() const override { return rails_; }
  bool measures() const override { return false; }
  void start() override;
  EnergyReading stop() override;

 private:
  std::vector<std::string> rails_;
  std::optional<std::chrono::steady_clock::time_point> started_;
};

enum class PowerMeterKind {
  automatic,  // ina3221 when hwmon has one, else nvml when the library loads, else none
  ina3221,    // Error when no INA3221 hwmon device is found under sysfs_root
  nvml,       // Error when libnvidia-ml cannot be loaded or has no GPU `nvml_device`
  none,
};

struct PowerMeterOptions {
  PowerMeterKind kind = PowerMeterKind::automatic;
  std::string sysfs_root = "/";  // prefix of /sys (tests point it at a fake tree)
  std::chrono::nanoseconds sampling_interval = std::chrono::milliseconds(10);  // >= 100 Hz
  // INA3221: the rails whose sum is the module (DeviceSpec::rails); empty = every rail found.
  // Rails found but not listed are still reported (sub-rails), just not summed.
  std::vector<std::string> summed_rails = {};
  std::string nvml_library = "libnvidia-ml.so.1";  // dlopen()ed at run time
  unsigned nvml_device = 0;                        // NVML device index
};

// "automatic", "ina3221", "nvml", "none" <-> PowerMeterKind; InputError (key "--power-meter") for
// another name.
PowerMeterKind parse_power_meter_kind(const std::string& name);
const char* to_string(PowerMeterKind kind);

// The meter `options` ask for. With `automatic`, falls back silently (ina3221 -> nvml -> none); a
// named kind that cannot be opened is an Error naming why.
std::unique_ptr<PowerMeter> make_power_meter(const PowerMeterOptions& options);

}  // namespace fulcrum::backends
