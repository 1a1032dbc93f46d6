// NvmlPowerMeter: the power of a data-centre GPU through NVML, with libnvidia-ml loaded by
// dlopen() at run time (no NVML header or library is needed to build). The energy of a window is
// the delta of nvmlDeviceGetTotalEnergyConsumption (mJ since the driver loaded); a thread samples
// nvmlDeviceGetPowerUsage (mW) at the sampling interval for the series. NVML reports one rail,
// "GPU", which is also the module. Read-only: it never changes clocks, power limits or modes.
//
//   NvmlPowerMeter meter({.nvml_device = 0});   // Error when the library or the GPU is missing
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

#include "backends/hardware/power_meter.hpp"

namespace fulcrum::backends {

// What NVML says about one GPU (for device.json and `devices --probe`).
using NvmlDeviceInfo = MeteredDeviceInfo;

class NvmlPowerMeter final : public PowerMeter {
 public:
  // Loads options.nvml_library, initialises NVML and opens GPU options.nvml_device. Error naming
  // the library and dlerror() / the NVML error string when any step fails.
  explicit NvmlPowerMeter(const PowerMeterOptions& options);
  ~NvmlPowerMeter() override;  // stops sampling, shuts NVML down, unloads the library

  std::string name() const override { return name_; }
  std::chrono::nanoseconds sampling_interval() const override { return interval_; }
  const std::vector<std::string>& rail_names() const override { return rail_names_; }
  void start() override;
  EnergyReading stop() override;
  std::optional<MeteredDeviceInfo> description() const override { return info(); }

  NvmlDeviceInfo info() const;
  double read_power_w() const;   // nvmlDeviceGetPowerUsage now, in W
  double read_energy_j() const;  // nvmlDeviceGetTotalEnergyConsumption now, in J

 private:
  struct Library;  // the dlopen handle and function pointers (nvml_power_meter.cpp)
  void sample_loop();

  std::unique_ptr<Library> lib_;
  std::string name_;
  std::vector<std::string> rail_names_{"GPU"};
  std::chrono::nanoseconds interval_;

  std::mutex mutex_;
  PowerSeries series_;
  std::string error_;
  std::chrono::steady_clock::time_point started_;
  double start_energy_j_ = 0;
  std::atomic<bool> running_{false};
  std::thread sampler_;
};

}  // namespace fulcrum::backends
