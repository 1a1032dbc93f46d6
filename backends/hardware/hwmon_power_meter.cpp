#include "backends/hardware/hwmon_power_meter.hpp"

#include <algorithm>

#include "backends/hardware/sysfs_file.hpp"
#include "models/error.hpp"

namespace fulcrum::backends {

namespace fs = std::filesystem;

namespace {

// hwmon10 after hwmon9: the number, not the text, orders the devices.
int hwmon_number(const fs::path& dir) {
  const std::string name = dir.filename().string();
  try {
    return std::stoi(name.substr(5));
  } catch (const std::exception&) {
    return -1;
  }
}

bool is_rail_label(const std::string& label) {
  if (label.empty() || label == "NC") return false;
  return label.rfind("sum", 0) != 0 && label.rfind("Sum", 0) != 0;
}

double elapsed_s(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

std::vector<HwmonRail> find_ina3221_rails(const fs::path& sysfs_root) {
  const fs::path hwmon = sysfs_root / "sys/class/hwmon";
  std::error_code ec;
  if (!fs::is_directory(hwmon, ec)) return {};
  std::vector<fs::path> devices;
  for (const fs::directory_entry& e : fs::directory_iterator(hwmon, ec)) {
    if (e.path().filename().string().rfind("hwmon", 0) != 0) continue;
    if (read_sysfs(e.path() / "name").value_or("") == "ina3221") devices.push_back(e.path());
  }
  std::sort(devices.begin(), devices.end(),
            [](const fs::path& a, const fs::path& b) { return hwmon_number(a) < hwmon_number(b); });
  std::vector<HwmonRail> rails;
  for (const fs::path& dev : devices) {
    for (int channel = 1; channel <= 8; ++channel) {
      const std::string n = std::to_string(channel);
      const std::optional<std::string> label = read_sysfs(dev / ("in" + n + "_label"));
      if (!label || !is_rail_label(*label)) continue;
      HwmonRail rail{*label, dev / ("in" + n + "_input"), dev / ("curr" + n + "_input")};
      if (!fs::exists(rail.voltage_mv, ec) || !fs::exists(rail.current_ma, ec)) continue;
      rails.push_back(std::move(rail));
    }
  }
  return rails;
}

HwmonPowerMeter::HwmonPowerMeter(const PowerMeterOptions& options)
    : rails_(find_ina3221_rails(options.sysfs_root)), interval_(options.sampling_interval) {
  if (rails_.empty()) {
    throw Error("power meter ina3221: no INA3221 rail under " +
                (fs::path(options.sysfs_root) / "sys/class/hwmon").string());
  }
  if (interval_ <= std::chrono::nanoseconds(0)) {
    throw InputError(std::nullopt, "--sampling-interval-ms", "must be > 0");
  }
  for (const HwmonRail& r : rails_) rail_names_.push_back(r.label);
  for (const std::string& s : options.summed_rails) {
    if (std::find(rail_names_.begin(), rail_names_.end(), s) == rail_names_.end()) {
      std::string message = "power meter ina3221: rail " + s;
      message += " of the device is not among the rails found (";
      for (std::size_t i = 0; i < rail_names_.size(); ++i) {
        message += (i > 0 ? ", " : "");
        message += rail_names_[i];
      }
      throw Error(message + ")");
    }
  }
  for (const std::string& n : rail_names_) {
    summed_.push_back(options.summed_rails.empty() ||
                      std::find(options.summed_rails.begin(), options.summed_rails.end(), n) !=
                          options.summed_rails.end());
  }
  name_ = "ina3221 (" + rails_.front().voltage_mv.parent_path().string() + ")";
}

HwmonPowerMeter::~HwmonPowerMeter() {
  running_ = false;
  if (sampler_.joinable()) sampler_.join();
}

std::vector<double> HwmonPowerMeter::read_power_w() const {
  std::vector<double> power_w;
  power_w.reserve(rails_.size());
  for (const HwmonRail& r : rails_) {
    power_w.push_back(require_sysfs_number(r.voltage_mv) * require_sysfs_number(r.current_ma) /
                      1e6);
  }
  return power_w;
}

void HwmonPowerMeter::take_sample() {
  std::vector<double> power_w = read_power_w();
  push_sample(elapsed_s(started_), std::move(power_w));
}

void HwmonPowerMeter::push_sample(double time_s, std::vector<double> power_w) {
  double module_w = 0;
  for (std::size_t i = 0; i < power_w.size(); ++i) {
    if (summed_[i]) module_w += power_w[i];
  }
  const std::lock_guard lock(mutex_);
  series_.time_s.push_back(time_s);
  series_.rail_power_w.push_back(std::move(power_w));
  series_.module_power_w.push_back(module_w);
}

void HwmonPowerMeter::sample_loop() {
  auto next = started_ + interval_;
  while (running_) {
    std::this_thread::sleep_until(next);
    next += interval_;
    try {
      take_sample();
    } catch (const std::exception& e) {
      const std::lock_guard lock(mutex_);
      error_ = e.what();
      return;
    }
  }
}

void HwmonPowerMeter::start() {
  if (running_) throw Error("power meter " + name_ + ": start() while a window is open");
  series_ = {};
  error_.clear();
  std::vector<double> first = read_power_w();  // errors surface here, not in the thread
  started_ = std::chrono::steady_clock::now();
  push_sample(0, std::move(first));  // the window opens with a sample at t = 0
  running_ = true;
  sampler_ = std::thread([this] { sample_loop(); });
}

EnergyReading HwmonPowerMeter::stop() {
  if (!running_) throw Error("power meter " + name_ + ": stop() without start()");
  running_ = false;
  sampler_.join();
  if (!error_.empty()) throw Error("power meter " + name_ + ": " + error_);
  take_sample();  // and closes with one at its end
  EnergyReading r;
  r.series = std::move(series_);
  series_ = {};
  r.duration_s = r.series.time_s.back();
  std::vector<double> rail(r.series.time_s.size());
  for (std::size_t i = 0; i < rail_names_.size(); ++i) {
    for (std::size_t k = 0; k < rail.size(); ++k) rail[k] = r.series.rail_power_w[k][i];
    r.rail_energy_j.push_back(trapezoid_energy_j(r.series.time_s, rail));
  }
  r.module_energy_j = trapezoid_energy_j(r.series.time_s, r.series.module_power_w);
  return r;
}

}  // namespace fulcrum::backends
