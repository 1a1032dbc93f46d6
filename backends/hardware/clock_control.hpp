// ClockControl: reads a device's clocks and, where allowed, sets them to a power mode, and puts
// them back. Implementations: JetsonClockControl (sysfs and the BPMP debugfs, with a snapshot
// restored on exit, on exceptions, on SIGINT/SIGTERM through ClockGuard, and at the next start
// after a crash) and ReadOnlyClockControl (any other GPU: reports, never writes).
//
//   JetsonClockControl clocks({.allow_changes = flags.allow_clock_changes});
//   ClockGuard guard(clocks);                  // restores the snapshot when the scope ends
//   ClockChange c = clocks.set(mode);          // dry run without allow_changes: c.written false
//   for (const ClockWrite& w : c.writes) log(w.path, w.value);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/device/power_mode.hpp"

namespace fulcrum::backends {

// One CPU cluster (a cpufreq policy) as read back.
struct CpuClusterReading {
  std::string name;       // "policy0"
  std::vector<int> cpus;  // related_cpus
  std::optional<double> min_khz, max_khz, cur_khz;
};

// The clocks as read back; a field that could not be read is absent and `notes` says why.
struct ClockReading {
  std::optional<int> online_cores;
  std::vector<CpuClusterReading> clusters;
  std::optional<double> cpu_khz;  // the current frequency of the first cluster with an online cpu
  std::optional<double> gpu_min_hz, gpu_max_hz, gpu_hz;  // devfreq min_freq, max_freq, cur_freq
  std::optional<double> emc_hz;                          // BPMP clk/emc/rate
  std::optional<bool> emc_locked;                        // BPMP clk/emc/mrq_rate_locked
  std::string gpu_devfreq;         // the devfreq node found, e.g. "17000000.ga10b"
  std::vector<std::string> notes;  // what could not be read, and why

  // The reading as a PowerMode (gpu_tpcs left 0) when cores, CPU, GPU and EMC are all known.
  std::optional<models::PowerMode> mode() const;
};

// One write to a clock file. `path` is the absolute path on the device (under the sysfs root).
struct ClockWrite {
  std::string path;
  std::string value;
  bool operator==(const ClockWrite&) const = default;
};

// What set() did: the writes in the order they were (or, in a dry run, would have been) made, and
// the clocks read back afterwards.
struct ClockChange {
  std::vector<ClockWrite> writes;
  bool written = false;  // false: a dry run (changes not allowed, or a read-only control)
  ClockReading after;
};

class ClockControl {
 public:
  virtual ~ClockControl() = default;

  // "jetson sysfs (/)", "read-only (nvml)": for device.json and reports.
  virtual std::string name() const = 0;
  // Whether set() writes: the user allowed clock changes and the control can make them.
  virtual bool can_change() const = 0;
  virtual ClockReading read() const = 0;
  // The writes that would set `mode`, in order (cores online first, frequencies, cores offline;
  // per min/max pair max-then-min when raising, min-then-max when lowering). Empty for a
  // read-only control.
  virtual std::vector<ClockWrite> plan(const models::PowerMode& mode) const = 0;
  // Sets `mode`. When can_change(): snapshots the clocks before the first write (and persists the
  // snapshot), writes plan(mode) and reads every value back (Error naming the file, the value
  // written and the value read when one did not take). Otherwise writes nothing: a dry run.
  virtual ClockChange set(const models::PowerMode& mode) = 0;
  // Puts the clocks back as the snapshot has them and forgets it (and its file); nothing when no
  // write was made. Error when a write fails (the snapshot file is then kept for the next start).
  virtual void restore() = 0;
};

// Restores `control` when the scope ends: normal exit, an exception, or sim::Interrupted thrown
// for SIGINT/SIGTERM at a check point. The destructor never throws: a failure to restore goes to
// `on_failure` (the verbs print it; the snapshot file stays for the next start). finish()
// restores now and throws what restore() throws.
class ClockGuard {
 public:
  explicit ClockGuard(ClockControl& control,
                      std::function<void(const std::string&)> on_failure = {})
      : control_(&control), on_failure_(std::move(on_failure)) {}
  ~ClockGuard();
  ClockGuard(const ClockGuard&) = delete;
  ClockGuard& operator=(const ClockGuard&) = delete;

  void finish();

 private:
  ClockControl* control_;
  std::function<void(const std::string&)> on_failure_;
};

// ClockControl for a device whose clocks Fulcrum never changes (a data-centre GPU, or a Jetson
// without --allow-clock-changes and without sysfs access): read() returns what `reader` reads.
class ReadOnlyClockControl final : public ClockControl {
 public:
  // `name` e.g. "read-only (nvml)"; `reader` is called for every read().
  ReadOnlyClockControl(std::string name, std::function<ClockReading()> reader)
      : name_(std::move(name)), reader_(std::move(reader)) {}

  std::string name() const override { return name_; }
  bool can_change() const override { return false; }
  ClockReading read() const override { return reader_(); }
  std::vector<ClockWrite> plan(const models::PowerMode&) const override { return {}; }
  ClockChange set(const models::PowerMode&) override { return {{}, false, read()}; }
  void restore() override {}

 private:
  std::string name_;
  std::function<ClockReading()> reader_;
};

}  // namespace fulcrum::backends
