#include "backends/hardware/nvml_power_meter.hpp"

#include <dlfcn.h>

#include "models/error.hpp"

namespace fulcrum::backends {

namespace {

// The few NVML entry points used, declared here from NVML's documented C signatures so that the
// build needs no NVML header: nvmlReturn_t is an int (0 = success), nvmlDevice_t an opaque
// pointer.
using NvmlDevice = struct NvmlDeviceOpaque*;
using InitFn = int (*)();
using ShutdownFn = int (*)();
using ErrorStringFn = const char* (*)(int);
using HandleByIndexFn = int (*)(unsigned, NvmlDevice*);
using EnergyFn = int (*)(NvmlDevice, unsigned long long*);  // mJ since the driver loaded
using PowerFn = int (*)(NvmlDevice, unsigned*);             // mW
using NameFn = int (*)(NvmlDevice, char*, unsigned);
using DriverVersionFn = int (*)(char*, unsigned);
using ClockFn = int (*)(NvmlDevice, int, unsigned*);  // clock type 1 = SM, 2 = memory; MHz
using PowerLimitFn = int (*)(NvmlDevice, unsigned*);  // mW

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;

}  // namespace

struct NvmlPowerMeter::Library {
  std::string path;
  void* handle = nullptr;
  bool initialised = false;
  NvmlDevice device = nullptr;
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  ErrorStringFn error_string = nullptr;
  HandleByIndexFn handle_by_index = nullptr;
  EnergyFn energy = nullptr;
  PowerFn power = nullptr;
  NameFn name = nullptr;
  DriverVersionFn driver_version = nullptr;
  ClockFn clock = nullptr;
  PowerLimitFn power_limit = nullptr;

  ~Library() {
    if (initialised && shutdown != nullptr) shutdown();
    if (handle != nullptr) dlclose(handle);
  }

  template <typename Fn>
  Fn symbol(const char* name, bool required) const {
    void* s = dlsym(handle, name);
    if (s == nullptr && required) {
      throw Error("power meter nvml: " + path + " has no " + name);
    }
    return reinterpret_cast<Fn>(s);
  }

  // Throws, naming the call and NVML's text for `status`, unless it is success.
  void check(int status, const char* call) const {
    if (status == kNvmlSuccess) return;
    const char* text = error_string != nullptr ? error_string(status) : nullptr;
    throw Error("power meter nvml: " + std::string(call) +
                " failed: " + (text != nullptr ? text : "NVML error " + std::to_string(status)));
  }
};

NvmlPowerMeter::NvmlPowerMeter(const PowerMeterOptions& options)
    : lib_(std::make_unique<Library>()), interval_(options.sampling_interval) {
  if (interval_ <= std::chrono::nanoseconds(0)) {
    throw InputError(std::nullopt, "--sampling-interval-ms", "must be > 0");
  }
  Library& l = *lib_;
  l.path = options.nvml_library;
  l.handle = dlopen(l.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (l.handle == nullptr) {
    const char* why = dlerror();
    throw Error("power meter nvml: cannot load " + l.path + " (" +
                (why != nullptr ? why : "unknown reason") +
                "); NVML comes with the NVIDIA driver, which this machine may not have");
  }
  l.init = l.symbol<InitFn>("nvmlInit_v2", true);
  l.shutdown = l.symbol<ShutdownFn>("nvmlShutdown", true);
  l.error_string = l.symbol<ErrorStringFn>("nvmlErrorString", false);
  l.handle_by_index = l.symbol<HandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2", true);
  l.energy = l.symbol<EnergyFn>("nvmlDeviceGetTotalEnergyConsumption", false);
  l.power = l.symbol<PowerFn>("nvmlDeviceGetPowerUsage", true);
  l.name = l.symbol<NameFn>("nvmlDeviceGetName", false);
  l.driver_version = l.symbol<DriverVersionFn>("nvmlSystemGetDriverVersion", false);
  l.clock = l.symbol<ClockFn>("nvmlDeviceGetClockInfo", false);
  l.power_limit = l.symbol<PowerLimitFn>("nvmlDeviceGetPowerManagementLimit", false);
  l.check(l.init(), "nvmlInit_v2");
  l.initialised = true;
  l.check(l.handle_by_index(options.nvml_device, &l.device),
          ("nvmlDeviceGetHandleByIndex_v2(" + std::to_string(options.nvml_device) + ")").c_str());
  // A GPU without an energy counter (before Volta) is metered by integrating the power series.
  unsigned long long mj = 0;
  if (l.energy != nullptr && l.energy(l.device, &mj) != kNvmlSuccess) l.energy = nullptr;
  read_power_w();  // fails here, not in the first window, when power cannot be read
  name_ = "nvml (" + info().name + ", GPU " + std::to_string(options.nvml_device) +
          (l.energy != nullptr ? ", energy counter" : ", integrated power") + ")";
}

NvmlPowerMeter::~NvmlPowerMeter() {
  running_ = false;
  if (sampler_.joinable()) sampler_.join();
}

NvmlDeviceInfo NvmlPowerMeter::info() const {
  const Library& l = *lib_;
  NvmlDeviceInfo i;
  char text[96] = {};
  if (l.name != nullptr && l.name(l.device, text, sizeof text) == kNvmlSuccess) i.name = text;
  char version[96] = {};
  if (l.driver_version != nullptr && l.driver_version(version, sizeof version) == kNvmlSuccess) {
    i.driver_version = version;
  }
  unsigned v = 0;
  if (l.clock != nullptr && l.clock(l.device, kNvmlClockSm, &v) == kNvmlSuccess) i.sm_clock_mhz = v;
  if (l.clock != nullptr && l.clock(l.device, kNvmlClockMem, &v) == kNvmlSuccess)
    i.mem_clock_mhz = v;
  if (l.power_limit != nullptr && l.power_limit(l.device, &v) == kNvmlSuccess) {
    i.power_limit_w = v / 1e3;
  }
  return i;
}

double NvmlPowerMeter::read_power_w() const {
  unsigned mw = 0;
  lib_->check(lib_->power(lib_->device, &mw), "nvmlDeviceGetPowerUsage");
  return mw / 1e3;
}

double NvmlPowerMeter::read_energy_j() const {
  if (lib_->energy == nullptr) throw Error("power meter nvml: this GPU has no energy counter");
  unsigned long long mj = 0;
  lib_->check(lib_->energy(lib_->device, &mj), "nvmlDeviceGetTotalEnergyConsumption");
  return static_cast<double>(mj) / 1e3;
}

void NvmlPowerMeter::sample_loop() {
  auto next = started_ + interval_;
  while (running_) {
    std::this_thread::sleep_until(next);
    next += interval_;
    try {
      const double w = read_power_w();
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      const std::lock_guard lock(mutex_);
      series_.time_s.push_back(t);
      series_.rail_power_w.push_back({w});
      series_.module_power_w.push_back(w);
    } catch (const std::exception& e) {
      const std::lock_guard lock(mutex_);
      error_ = e.what();
      return;
    }
  }
}

void NvmlPowerMeter::start() {
  if (running_) throw Error("power meter " + name_ + ": start() while a window is open");
  series_ = {};
  error_.clear();
  const double w = read_power_w();
  if (lib_->energy != nullptr) start_energy_j_ = read_energy_j();
  started_ = std::chrono::steady_clock::now();
  series_.time_s.push_back(0);
  series_.rail_power_w.push_back({w});
  series_.module_power_w.push_back(w);
  running_ = true;
  sampler_ = std::thread([this] { sample_loop(); });
}

EnergyReading NvmlPowerMeter::stop() {
  if (!running_) throw Error("power meter " + name_ + ": stop() without start()");
  running_ = false;
  sampler_.join();  // first, so that every sample of the series lies inside the window
  if (!error_.empty()) throw Error(error_);
  const double end_energy_j = lib_->energy != nullptr ? read_energy_j() : 0;
  const auto end = std::chrono::steady_clock::now();
  EnergyReading r;
  r.duration_s = std::chrono::duration<double>(end - started_).count();
  const double w = read_power_w();
  series_.time_s.push_back(r.duration_s);
  series_.rail_power_w.push_back({w});
  series_.module_power_w.push_back(w);
  r.series = std::move(series_);
  series_ = {};
  r.module_energy_j = lib_->energy != nullptr
                          ? end_energy_j - start_energy_j_
                          : trapezoid_energy_j(r.series.time_s, r.series.module_power_w);
  r.rail_energy_j = {r.module_energy_j};
  return r;
}

}  // namespace fulcrum::backends
