// What `fulcrum profile` and `fulcrum validate` share: parsing --modes, measuring a list of
// (workload, phase, batch size) points over modes with a MinibatchProfiler (a progress line per
// point), and writing the profile CSV the `table` model reads, in the measurement column format
// (model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,
// minibatch_time_ms,power_w, then one <RAIL>_w column per rail when the backend reports rails).
//
//   std::vector<PowerMode> modes = parse_modes("MAXN,MODE_30W", device);
//   auto rows = measure_points(profiler, points, modes, &std::cerr);
//   write_profile_csv("profile.csv", rows, device.rails, {"measured on my Orin"}, "random");
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/hardware/clock_control.hpp"
#include "backends/hardware/minibatch_profiler.hpp"
#include "backends/hardware/power_meter.hpp"
#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"

namespace fulcrum::sim::app {

// A comma-separated list of modes: preset names ("MAXN"), named grids ("grid:powertrain-4368"),
// and custom modes "CORES/CPU_MHZ/GPU_MHZ/EMC_MHZ" ("8/1497.6/828.75/2133", snapped to the
// tables). Duplicates are dropped, order kept. InputError (key "--modes") naming the bad item.
std::vector<models::PowerMode> parse_modes(const std::string& text,
                                           const models::DeviceSpec& device);

// A comma-separated list of positive integers (key names the option in errors).
std::vector<int> parse_int_list(const std::string& text, const std::string& key);
// A comma-separated list of words.
std::vector<std::string> parse_word_list(const std::string& text);

// Measures every point at every mode (modes outermost, so the clocks change once per mode), and
// writes one progress line per point to `progress` when not null.
std::vector<backends::ProfileMeasurement> measure_points(
    backends::MinibatchProfiler& profiler, const std::vector<backends::ProfilePoint>& points,
    const std::vector<models::PowerMode>& modes, std::ostream* progress);

// The device's power with nothing running in one mode: a profile's `idle` row, which the table
// model takes as the baseload (instead of a share of the least loaded row).
struct IdleMeasurement {
  models::PowerMode mode;
  models::RailPower power;  // the device's rails order
  // How a hardware backend metered it (after the power settled, how long, whether it did);
  // absent for a prediction.
  std::optional<backends::IdleMetering> metering = {};
};

// The idle power of `backend` in each mode (a real-time backend measures it, waiting until the
// power has settled; the clocks must be in that mode, as after measure_points for its last mode).
// Where the backend metered it, one line per mode on `notes` (when not null) says how.
std::vector<IdleMeasurement> measure_idle(backends::Backend& backend,
                                          const std::vector<models::PowerMode>& modes,
                                          std::ostream* notes = nullptr);

// The CSV text: `comments` as leading "# " lines (then one per metered idle measurement, saying
// how it was metered), the header, one row per measurement, then one `idle` row (batch size 0,
// no time) per idle measurement. Rail columns only when every
// measurement has one power per rail.
std::string profile_csv_text(const std::vector<backends::ProfileMeasurement>& rows,
                             const std::vector<std::string>& rails,
                             const std::vector<std::string>& comments, const std::string& dataset,
                             const std::vector<IdleMeasurement>& idle = {});

// The per-layer times of each measurement (ProfileMeasurement::layer_times, --profile-layers):
// "model,phase,minibatch_size,gpu_freq_hz,layer,forward_ms,backward_ms", a row per layer, in
// layer order; rows without layer times are left out. Layer names are the workload's own (no
// commas or quotes in the catalog).
std::string layer_times_csv_text(const std::vector<backends::ProfileMeasurement>& rows);

// Where the layer times of a profile written to `profile_csv` go: "p.csv" -> "p-layers.csv".
std::filesystem::path layer_times_path(const std::filesystem::path& profile_csv);

// Writes text to `path` all at once (a temporary beside it, renamed): never half a file.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// The clock options both verbs take (--clocks, --allow-clock-changes, --sysfs-root,
// --clock-snapshot), and what they choose.
struct ClockOptions {
  std::string clocks = "auto";  // auto | jetson | none
  bool allow_changes = false;
  std::string sysfs_root = "/";
  std::string snapshot_file = {};  // empty: backends::default_snapshot_file()
};

// --settle-s and --window-s of profile and validate (ProfilerOptions::settle and ::window).
struct SettleOptions {
  double settle_s = 5, window_s = 0.25;
  std::chrono::nanoseconds settle{0}, window{0};
};

// The meter the profiler reads each point's power from (ProfilerOptions::meter) on a hardware
// backend: the INA3221 rails or NVML, as make_power_meter chooses for the device. Null for the
// sim backend, or where no meter opens (a note says so; the backend's per-item energies are used).
std::unique_ptr<backends::PowerMeter> make_profile_meter(bool hardware, const ClockOptions& options,
                                                         const models::DeviceSpec& device,
                                                         std::ostream& notes);

// The clock control for a run: none for `none`, and for `auto` on a simulated backend (it takes
// the mode from each work item); Jetson sysfs for `jetson`, and for `auto` on a hardware backend
// where the tree has Jetson clocks; else read-only. Messages for the user (a snapshot restored
// from a dead run, or one left that needs --allow-clock-changes) go to `notes`.
std::unique_ptr<backends::ClockControl> make_clock_control(const ClockOptions& options,
                                                           bool hardware_backend,
                                                           std::ostream& notes);

// What a ClockGuard calls when it cannot restore the clocks: one line on `err` saying so and how
// they will be restored (the snapshot file stays for the next run with --allow-clock-changes).
std::function<void(const std::string&)> restore_failure_printer(std::ostream& err);

// The modes a profile can measure: all of `requested` when the backend takes the mode from the
// work item (simulated) or the clocks can change; otherwise only the mode the clocks are in now
// (read back and snapped to the device's tables, else the device's default mode), and `notes`
// says so, with the writes a --allow-clock-changes run would make.
std::vector<models::PowerMode> measurable_modes(const std::vector<models::PowerMode>& requested,
                                                bool hardware_backend,
                                                backends::ClockControl* clocks,
                                                const models::DeviceSpec& device,
                                                std::ostream& notes);

// device.json of a run on `backend_name`: on hardware, what this host's meter and clocks say --
// the GPU's name and driver (from NVML where it answers, else the catalog's device), SMs, the
// clocks read back through `clocks` (may be null), the power meter and its sampling interval, and
// `whole_run`, the meter over the whole measured run, when one was taken. For the simulated
// device, the same keys as the simulation knows them, with the emulation's `noise` sigma.
std::string device_json(const models::DeviceSpec& device, const std::string& backend_name,
                        bool hardware, const backends::ClockControl* clocks,
                        const ClockOptions& clock_options, double noise,
                        const std::optional<backends::EnergyReading>& whole_run);

}  // namespace fulcrum::sim::app
