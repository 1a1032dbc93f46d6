#include "sim/app/profiling.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "backends/hardware/jetson_clock_control.hpp"
#include "backends/hardware/power_meter.hpp"
#include "models/device/mode_space.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "models/perf/profile_csv.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim::app {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, separator)) {
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    parts.push_back(first == std::string::npos ? "" : item.substr(first, last - first + 1));
  }
  return parts;
}

double parse_mhz(const std::string& text, const std::string& item) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw InputError(std::nullopt, "--modes",
                   "'" + item + "': expected CORES/CPU_MHZ/GPU_MHZ/EMC_MHZ, found '" + text + "'");
}

}  // namespace

std::vector<std::string> parse_word_list(const std::string& text) {
  std::vector<std::string> words;
  for (const std::string& w : split(text, ',')) {
    if (!w.empty()) words.push_back(w);
  }
  return words;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& key) {
  std::vector<int> values;
  for (const std::string& w : split(text, ',')) {
    int v = 0;
    try {
      std::size_t used = 0;
      v = std::stoi(w, &used);
      if (used != w.size()) v = 0;
    } catch (const std::exception&) {
      v = 0;
    }
    if (v < 1) throw InputError(std::nullopt, key, "expected positive integers, found '" + w + "'");
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  if (values.empty()) throw InputError(std::nullopt, key, "expected at least one value");
  return values;
}

std::vector<models::PowerMode> parse_modes(const std::string& text,
                                           const models::DeviceSpec& device) {
  std::vector<models::PowerMode> modes;
  const auto add = [&modes](const models::PowerMode& m) {
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  };
  for (const std::string& item : parse_word_list(text)) {
    try {
      if (item.rfind("grid:", 0) == 0) {
        for (const models::PowerMode& m : models::enumerate_grid(device, item.substr(5))) add(m);
      } else if (item.find('/') != std::string::npos) {
        const std::vector<std::string> parts = split(item, '/');
        if (parts.size() != 4) {
          throw InputError("'" + item + "': expected CORES/CPU_MHZ/GPU_MHZ/EMC_MHZ");
        }
        add(models::resolve_request(device, {.cores = static_cast<int>(parse_mhz(parts[0], item)),
                                             .cpu_mhz = parse_mhz(parts[1], item),
                                             .gpu_mhz = parse_mhz(parts[2], item),
                                             .emc_mhz = parse_mhz(parts[3], item)}));
      } else {
        add(models::resolve_preset(device, item));
      }
    } catch (const InputError& e) {
      if (e.key_path() == "--modes") throw;
      throw InputError(std::nullopt, "--modes", e.problem());
    }
  }
  if (modes.empty()) throw InputError(std::nullopt, "--modes", "expected at least one mode");
  return modes;
}

std::vector<backends::ProfileMeasurement> measure_points(
    backends::MinibatchProfiler& profiler, const std::vector<backends::ProfilePoint>& points,
    const std::vector<models::PowerMode>& modes, std::ostream* progress) {
  std::vector<backends::ProfileMeasurement> rows;
  const std::size_t total = points.size() * modes.size();
  for (const models::PowerMode& mode : modes) {
    for (const backends::ProfilePoint& p : points) {
      rows.push_back(profiler.measure(p, mode));
      if (progress != nullptr) {
        const backends::ProfileMeasurement& m = rows.back();
        std::string line = "fulcrum: profile [" + std::to_string(rows.size()) + "/" +
                           std::to_string(total) + "] " + m.workload + " " +
                           models::to_string(m.phase) + " batch " + std::to_string(m.batch_size) +
                           " at " + power_mode_label(mode) + ": ";
        *progress << line << fixed(m.time_ms, 2) << " ms, " << fixed(m.power_w, 2) << " W\n"
                  << std::flush;
      }
    }
  }
  return rows;
}

std::vector<IdleMeasurement> measure_idle(backends::Backend& backend,
                                          const std::vector<models::PowerMode>& modes,
                                          std::ostream* notes) {
  std::vector<IdleMeasurement> idle;
  for (const models::PowerMode& m : modes) {
    idle.push_back({m, backend.idle_power(m), backend.idle_metering()});
    if (notes != nullptr && idle.back().metering) {
      *notes << "fulcrum: " << (idle.back().metering->settled ? "" : "warning: ")
             << idle.back().metering->note << "\n";
    }
  }
  return idle;
}

std::string layer_times_csv_text(const std::vector<backends::ProfileMeasurement>& rows) {
  std::string out = "model,phase,minibatch_size,gpu_freq_hz,layer,forward_ms,backward_ms\n";
  for (const backends::ProfileMeasurement& r : rows) {
    for (const backends::LayerTime& t : r.layer_times) {
      out += r.workload + "," + (r.phase == models::Phase::training ? "train" : "infer") + ",";
      append_integer(out, static_cast<std::int64_t>(r.batch_size));
      out += ",";
      append_csv_number(out, r.mode.gpu_hz);
      out += "," + t.layer + ",";
      append_csv_number(out, t.forward_ms);
      out += ",";
      append_csv_number(out, t.backward_ms);
      out += "\n";
    }
  }
  return out;
}

std::filesystem::path layer_times_path(const std::filesystem::path& profile_csv) {
  std::filesystem::path p = profile_csv;
  p.replace_filename(profile_csv.stem().string() + "-layers" + profile_csv.extension().string());
  return p;
}

std::string profile_csv_text(const std::vector<backends::ProfileMeasurement>& rows,
                             const std::vector<std::string>& rails,
                             const std::vector<std::string>& comments, const std::string& dataset,
                             const std::vector<IdleMeasurement>& idle) {
  // The format is models/perf's (one writer beside its reader); this only maps measurements to
  // its rows.
  const bool with_rails =
      !rails.empty() &&
      std::all_of(rows.begin(), rows.end(),
                  [&](const auto& r) { return r.rail_power_w.size() == rails.size(); }) &&
      std::all_of(idle.begin(), idle.end(),
                  [&](const auto& i) { return i.power.power_w.size() == rails.size(); });
  models::ProfileTable table;
  if (with_rails) table.rail_names = rails;
  const auto with_mode = [](models::ProfileRow& row, const models::PowerMode& m) {
    row.cores = m.cores;
    row.cpu_khz = m.cpu_khz;
    row.gpu_hz = m.gpu_hz;
    row.emc_hz = m.emc_hz;
  };
  for (const backends::ProfileMeasurement& r : rows) {
    models::ProfileRow row;
    row.workload = r.workload;
    with_mode(row, r.mode);
    row.phase = r.phase == models::Phase::training ? models::ProfilePhase::training
                                                   : models::ProfilePhase::inference;
    row.batch_size = r.batch_size;
    row.time_ms = r.time_ms;
    row.power_w = r.power_w;
    if (with_rails) row.rail_power_w.assign(r.rail_power_w.begin(), r.rail_power_w.end());
    table.rows.push_back(std::move(row));
  }
  for (const IdleMeasurement& i : idle) {
    models::ProfileRow row;
    with_mode(row, i.mode);
    row.phase = models::ProfilePhase::idle;
    row.power_w = i.power.module_w();
    if (with_rails) row.rail_power_w.assign(i.power.power_w.begin(), i.power.power_w.end());
    table.rows.push_back(std::move(row));
  }
  std::vector<std::string> lines = comments;
  for (const IdleMeasurement& i : idle) {
    if (i.metering)
      lines.push_back("idle at " + power_mode_label(i.mode) + ": " + i.metering->note);
  }
  return models::profile_csv_text(table, dataset, lines);
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  // Like `run --out`, a folder that does not exist yet is made (a failure shows in AtomicFile's
  // one-line error).
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  AtomicFile f(path);
  f.write(text);
  f.close();
  f.publish();
}

std::unique_ptr<backends::PowerMeter> make_profile_meter(bool hardware, const ClockOptions& options,
                                                         const models::DeviceSpec& device,
                                                         std::ostream& notes) {
  if (!hardware) return nullptr;
  try {
    std::unique_ptr<backends::PowerMeter> meter = backends::make_power_meter(
        {.sysfs_root = options.sysfs_root, .summed_rails = device.rails});
    if (meter->measures()) return meter;
    notes << "fulcrum: no power meter found: each point's power is the backend's own figure\n";
  } catch (const Error& e) {
    notes << "fulcrum: no power meter for profiling (" << e.what()
          << "): each point's power is the backend's own figure\n";
  }
  return nullptr;
}

std::unique_ptr<backends::ClockControl> make_clock_control(const ClockOptions& options,
                                                           bool hardware_backend,
                                                           std::ostream& notes) {
  if (options.clocks == "none" || (options.clocks == "auto" && !hardware_backend)) return nullptr;
  if (options.clocks == "jetson" || backends::has_jetson_clocks(options.sysfs_root)) {
    auto c = std::make_unique<backends::JetsonClockControl>(
        backends::JetsonClockOptions{.sysfs_root = options.sysfs_root,
                                     .allow_changes = options.allow_changes,
                                     .snapshot_file = options.snapshot_file});
    if (c->recovered()) {
      notes << "fulcrum: restored the clocks from " << c->recovered()->string()
            << ", left by a run that did not finish\n";
    }
    if (c->unrestored()) {
      notes << "fulcrum: " << c->unrestored()->string()
            << " holds the clocks of a run that did not finish; run again with "
               "--allow-clock-changes to restore them\n";
    }
    return c;
  }
  return std::make_unique<backends::ReadOnlyClockControl>("read-only", [] {
    backends::ClockReading r;
    r.notes.push_back("no clock control on this device: clocks are neither read nor changed");
    return r;
  });
}

std::function<void(const std::string&)> restore_failure_printer(std::ostream& err) {
  return [&err](const std::string& what) {
    err << "fulcrum: could not restore the clocks: " << what
        << "; the snapshot file stays, and the next run with --allow-clock-changes restores it "
           "(a reboot does too)\n";
  };
}

std::vector<models::PowerMode> measurable_modes(const std::vector<models::PowerMode>& requested,
                                                bool hardware_backend,
                                                backends::ClockControl* clocks,
                                                const models::DeviceSpec& device,
                                                std::ostream& notes) {
  if (hardware_backend) {
    for (const models::PowerMode& m : requested) {
      if (m.gpu_tpcs > 0 && m.gpu_tpcs < device.gpu_tpcs) {
        notes << "fulcrum: " << power_mode_label(m) << " gates TPCs (" << m.gpu_tpcs << " of "
              << device.gpu_tpcs << " on), which only nvpmodel sets: select that preset with "
              << "nvpmodel -m first, or the measurement runs with every TPC on\n";
      }
    }
  }
  if (!hardware_backend || (clocks != nullptr && clocks->can_change())) return requested;
  models::PowerMode current = models::default_mode(device);
  std::string how = "the device's default mode (clocks not read)";
  if (clocks != nullptr) {
    if (const std::optional<models::PowerMode> read = clocks->read().mode()) {
      try {
        current = models::resolve_request(device, {.cores = read->cores,
                                                   .cpu_mhz = read->cpu_khz / 1e3,
                                                   .gpu_mhz = read->gpu_hz / 1e6,
                                                   .emc_mhz = read->emc_hz / 1e6});
        how = "the clocks read back";
      } catch (const InputError&) {
        // clocks outside the device's tables: keep the default and say so below
      }
    }
  }
  notes << "fulcrum: clocks cannot change here (" << (clocks ? clocks->name() : "no clock control")
        << (clocks && !clocks->can_change() ? "; pass --allow-clock-changes on a Jetson" : "")
        << "): profiling the current mode only, " << power_mode_label(current) << " from " << how
        << "\n";
  if (clocks != nullptr) {
    for (const models::PowerMode& m : requested) {
      const std::vector<backends::ClockWrite> writes = clocks->plan(m);
      if (writes.empty()) continue;
      notes << "fulcrum: dry run: " << power_mode_label(m) << " would write";
      for (const backends::ClockWrite& w : writes) notes << " " << w.path << "=" << w.value;
      notes << "\n";
    }
  }
  return {current};
}

std::string device_json(const models::DeviceSpec& device, const std::string& backend_name,
                        bool hardware, const backends::ClockControl* clocks,
                        const ClockOptions& clock_options, double noise,
                        const std::optional<backends::EnergyReading>& whole_run) {
  JsonWriter w;
  w.begin_object();
  w.key("backend").value(backend_name);
  w.key("device").value(device.name);
  if (!hardware) {
    w.key("gpu_name").value("simulated " + device.name + " (" + device.gpu_arch + ")");
    w.key("driver").null();
    w.key("sm_count").value(device.gpu_sms);
    w.key("clocks_read_back").null();
    w.key("power_meter").value("simulated: the analytic model's rail powers");
    w.key("sampling_interval_ms").null();
    w.key("noise_sigma").value(noise);
    w.end_object();
    return w.take();
  }
  // What this host's meter and clocks say (the backend keeps its own meter; this is the same
  // choice make_power_meter makes for it).
  std::unique_ptr<backends::PowerMeter> meter;
  try {
    meter = backends::make_power_meter(
        {.sysfs_root = clock_options.sysfs_root, .summed_rails = device.rails});
  } catch (const Error& e) {
    meter = std::make_unique<backends::NullPowerMeter>();
  }
  // On a data-centre GPU NVML names the GPU and the driver; elsewhere the catalog's device.
  const std::optional<backends::MeteredDeviceInfo> info = meter->description();
  w.key("gpu_name").value(info && !info->name.empty() ? info->name : device.name);
  if (info && !info->driver_version.empty()) {
    w.key("driver").value(info->driver_version);
  } else {
    w.key("driver").null();
  }
  if (info) {
    w.key("nvml_sm_clock_mhz")
        .value(info->sm_clock_mhz ? std::optional<double>(*info->sm_clock_mhz) : std::nullopt);
    w.key("nvml_mem_clock_mhz")
        .value(info->mem_clock_mhz ? std::optional<double>(*info->mem_clock_mhz) : std::nullopt);
    w.key("nvml_power_limit_w").value(info->power_limit_w);
  }
  w.key("sm_count").value(device.gpu_sms);
  w.key("clocks_read_back");
  if (clocks != nullptr) {
    const backends::ClockReading r = clocks->read();
    w.begin_object();
    w.key("control").value(clocks->name());
    w.key("online_cores")
        .value(r.online_cores ? std::optional<double>(*r.online_cores) : std::nullopt);
    w.key("cpu_khz").value(r.cpu_khz);
    w.key("gpu_hz").value(r.gpu_hz);
    w.key("emc_hz").value(r.emc_hz);
    w.key("notes").begin_array();
    for (const std::string& n : r.notes) w.value(n);
    w.end_array();
    w.end_object();
  } else {
    w.null();
  }
  w.key("power_meter").value(meter->name());
  w.key("sampling_interval_ms")
      .value(std::chrono::duration<double, std::milli>(meter->sampling_interval()).count());
  // The meter over the whole measured run, idle gaps included: the energy the device really
  // drew, beside the run's own figure (per-item energies plus idle power over the gaps).
  w.key("whole_run_meter");
  if (whole_run && meter->measures()) {
    w.begin_object();
    w.key("duration_s").value(whole_run->duration_s);
    w.key("energy_j").value(whole_run->module_energy_j);
    w.key("avg_power_w").value(whole_run->average_power_w());
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();
  return w.take();
}

}  // namespace fulcrum::sim::app
