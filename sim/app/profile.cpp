#include "sim/app/profile.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/minibatch_profiler.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "models/io/csv_reader.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/app/profiling.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/output_path.hpp"

namespace fulcrum::sim::app {

ProfileReport profile(const ProfileRequest& request, std::ostream& notes) {
  const std::string& backend_name = request.backend.name;
  const bool hardware = backends::is_measured_backend(backend_name);
  const SettleOptions& settle = request.settle;
  const bool quiet = request.quiet;
  const std::string& data_dir = request.data_dir;
  const models::DeviceCatalog devices =
      load_device_catalog((std::filesystem::path(data_dir) / "devices").string());
  const models::DeviceSpec& device = devices.get(request.device);

  // The outputs first: each a regular file or absent, and one that exists is an earlier
  // profile (or layer-times file), never a scenario or anyone's data.
  const std::string out_path = request.out_csv.string();
  check_output_file(out_path, "--out", {}, "# fulcrum profile");
  if (request.backend.layer_timing) {
    check_output_file(app::layer_times_path(out_path), "--out", {}, "model,phase,minibatch_size");
  }
  // What the profile's own reader refuses is refused here, before any measurement.
  const std::string& dataset = request.dataset;
  if (auto problem = models::profile_cell_problem(dataset)) {
    throw InputError(std::nullopt, "--dataset", *problem);
  }
  std::vector<backends::ProfilePoint> points;
  const std::vector<std::string>& phases = request.phases;
  const std::vector<int>& batches = request.batch_sizes;
  for (const int b : batches) {
    if (!models::kProfileBatchSize.contains(b)) {
      throw InputError(std::nullopt, "--batch-sizes",
                       "expected batch sizes in " + models::kProfileBatchSize.bounds() +
                           ", found " + std::to_string(b));
    }
  }
  std::vector<const models::Workload*> seen;
  for (const std::string& named : request.workloads) {
    const std::string name = workload_name(named);  // a workload file is read here
    const models::Workload* w = models::workload_catalog().find(name);
    if (w == nullptr) {
      throw InputError(std::nullopt, "--workloads",
                       "unknown workload '" + name + "'; see fulcrum workloads");
    }
    if (std::find(seen.begin(), seen.end(), w) != seen.end()) {
      throw InputError(std::nullopt, "--workloads",
                       "'" + models::printable_excerpt(name) + "' is listed twice");
    }
    seen.push_back(w);
    for (const std::string& phase : phases) {
      if (phase != "training" && phase != "inference") {
        throw InputError(std::nullopt, "--phases",
                         "expected training or inference, got '" + phase + "'");
      }
      for (int b : batches) {
        points.push_back(
            {w, phase == "training" ? models::Phase::training : models::Phase::inference, b});
      }
    }
  }
  if (points.empty())
    throw InputError(std::nullopt, "--workloads", "expected at least one workload");
  const std::vector<models::PowerMode> requested =
      request.modes ? parse_modes(*request.modes, device)
                    : std::vector<models::PowerMode>{models::default_mode(device)};

  std::unique_ptr<models::PerfModel> model;
  if (!hardware) model = load_perf_model(AnalyticPerfModel{}, data_dir, device);
  const std::unique_ptr<backends::Backend> backend =
      backends::make_backend(backend_name, {.device = &device,
                                            .perf_model = model.get(),
                                            .real_time = request.backend.real_time,
                                            .cuda_graphs = request.backend.cuda_graphs,
                                            .layer_timing = request.backend.layer_timing});
  const ClockOptions& clock_options = request.clocks;
  const std::unique_ptr<backends::ClockControl> clocks =
      make_clock_control(clock_options, hardware, notes);
  const std::unique_ptr<backends::PowerMeter> meter =
      make_profile_meter(hardware, clock_options, device, notes);
  const std::vector<models::PowerMode> modes =
      measurable_modes(requested, hardware, clocks.get(), device, notes);

  std::vector<backends::ProfileMeasurement> rows;
  std::vector<IdleMeasurement> idle;
  {
    std::optional<backends::ClockGuard> guard;
    if (clocks) guard.emplace(*clocks, restore_failure_printer(notes));
    backends::MinibatchProfiler profiler(
        *backend, clocks.get(),
        {.repeats = request.repeats,
         .discard = request.discard,
         .settle = settle.settle,
         .meter = meter.get(),
         .window = settle.window,
         .check_point = [&out_path, restores = clocks && clocks->can_change()] {
           if (const std::optional<int> s = pending_interrupt()) {
             throw Interrupted(*s, "nothing was written to " + out_path +
                                       (restores ? "; the clocks were restored" : ""));
           }
         }});
    if (!quiet) {
      notes << "fulcrum: profiling " << points.size() << " points x " << modes.size()
            << " modes on " << device.name << " (backend " << backend_name
            << (clocks ? ", clocks " + clocks->name() : std::string()) << ")\n";
    }
    rows = measure_points(profiler, points, modes, quiet ? nullptr : &notes);
    // A real device's baseload, in the mode the clocks are in now (the last one; only one
    // where the clocks cannot change).
    // Metered once the power has settled after the last point's load; the CSV's comments and
    // stderr say how long that took, and whether it did.
    if (backend->runs_in_real_time() && hardware) {
      idle = measure_idle(*backend, {modes.back()}, quiet ? nullptr : &notes);
    }
    if (guard) guard->finish();
  }
  std::vector<std::string> comments = {
      "fulcrum profile: device " + device.name + ", backend " + backend_name +
          (backend->runs_in_real_time() ? " (real time)" : " (predictions)") +
          (clocks ? ", clocks " + clocks->name() : std::string()),
      "method: discard " + std::to_string(request.discard) + " minibatch(es), settle " +
          fixed(settle.settle_s, 1) + " s back to back (real-time backends), median of " +
          std::to_string(request.repeats) +
          (meter ? "; power: " + meter->name() + " energy over windows of >= " +
                       fixed(settle.window_s, 2) + " s of back-to-back minibatches"
                 : std::string())};
  write_file_atomically(out_path, profile_csv_text(rows, device.rails, comments, dataset, idle));
  ProfileReport report{rows.size(), request.out_csv, std::nullopt};
  if (request.backend.layer_timing) {
    const std::filesystem::path layers = layer_times_path(out_path);
    write_file_atomically(layers, layer_times_csv_text(rows));
    report.layers_csv = layers;
  }
  return report;
}

}  // namespace fulcrum::sim::app
