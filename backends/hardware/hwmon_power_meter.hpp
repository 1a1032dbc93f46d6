// HwmonPowerMeter: the INA3221 power monitors of a Jetson, read through Linux hwmon as L4T exposes
// them (<root>/sys/class/hwmon/hwmonN/ with name "ina3221", and per channel N: inN_label,
// inN_input in mV, currN_input in mA). A thread samples every rail at the sampling interval
// (>= 100 Hz by default) between start() and stop(); energies are the trapezoid integral of the
// samples. Channels labelled "NC" or "sum of ..." and channels without a current are skipped.
//
//   HwmonPowerMeter meter({.sysfs_root = "/", .summed_rails = device.rails});
//   meter.start(); ...; EnergyReading r = meter.stop();
#pragma once

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "backends/hardware/power_meter.hpp"

namespace fulcrum::backends {

// One rail of an INA3221: where its voltage and current are read.
struct HwmonRail {
  std::string label;                 // "VDD_GPU_SOC"
  std::filesystem::path voltage_mv;  // .../inN_input
  std::filesystem::path current_ma;  // .../currN_input
};

// The INA3221 rails under `sysfs_root` (every hwmon device named "ina3221", in hwmon order, then
// channel order); empty when there is none.
std::vector<HwmonRail> find_ina3221_rails(const std::filesystem::path& sysfs_root);

class HwmonPowerMeter final : public PowerMeter {
 public:
  // Error when no INA3221 rail is found, or a summed rail is not among them.
  explicit HwmonPowerMeter(const PowerMeterOptions& options);
  ~HwmonPowerMeter() override;  // stops the sampling thread if a window is open

  std::string name() const override { return name_; }
  std::chrono::nanoseconds sampling_interval() const override { return interval_; }
  const std::vector<std::string>& rail_names() const override { return rail_names_; }
  void start() override;
  EnergyReading stop() override;

  // One reading of every rail now, in W (rail_names() order). Error for an unreadable file.
  std::vector<double> read_power_w() const;

 private:
  void sample_loop();
  void take_sample();
  void push_sample(double time_s, std::vector<double> power_w);

  std::vector<HwmonRail> rails_;
  std::vector<std::string> rail_names_;
  std::vector<bool> summed_;
  std::string name_;
  std::chrono::nanoseconds interval_;

  std::mutex mutex_;  // guards series_ and error_ against the sampling thread
  PowerSeries series_;
  std::string error_;  // the sampling thread's failure, rethrown by stop()
  std::chrono::steady_clock::time_point started_;
  std::atomic<bool> running_{false};
  std::thread sampler_;
};

}  // namespace fulcrum::backends
