#include "sim/app/validate.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/minibatch_profiler.hpp"
#include "backends/hardware/noisy_backend.hpp"
#include "backends/hardware/power_meter.hpp"
#include "backends/simulated_backend.hpp"
#include "models/error.hpp"
#include "sim/app/profiling.hpp"
#include "sim/app/run_meter.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/output_path.hpp"
#include "sim/report/result_folder.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim::app {

namespace fs = std::filesystem;

namespace {

// The (workload, phase, batch size) points a scenario runs: its training minibatch and each
// stream's batch, plus batch 1 for a stream that may dispatch partial batches (max_wait_ms).
std::vector<backends::ProfilePoint> points_of(const ResolvedScenario& r) {
  std::vector<backends::ProfilePoint> points;
  const auto add = [&points](const backends::ProfilePoint& p) {
    for (const auto& q : points) {
      if (q.workload == p.workload && q.phase == p.phase && q.batch_size == p.batch_size) return;
    }
    points.push_back(p);
  };
  if (r.scenario.training) {
    add({r.training_workload, models::Phase::training, r.scenario.training->batch_size});
  }
  for (std::size_t i = 0; i < r.scenario.inference.size(); ++i) {
    const InferenceStreamSpec& s = r.scenario.inference[i];
    if (s.max_wait_ms && s.batch_size > 1)
      add({r.inference_workloads[i], models::Phase::inference, 1});
    add({r.inference_workloads[i], models::Phase::inference, s.batch_size});
  }
  return points;
}

}  // namespace

ValidateReport validate(const ValidateRequest& request, std::ostream& notes, ProgressFn progress) {
  const std::string& backend_name = request.plan.backend.name;
  const bool hardware = backends::is_measured_backend(backend_name);
  const double noise = request.noise;
  const SettleOptions& settle = request.settle;
  const bool quiet = request.quiet;
  // Loaded once to learn what to profile; every bad input is reported here, before anything runs.
  // The plan simulates (sim); the measured run is derived from it on request.plan.backend.
  PlanRequest base = request.plan;
  base.backend = {};
  const RunPlan plan = RunPlan::load(base);
  const ResolvedScenario& resolved = plan.resolved();
  const models::DeviceSpec& device = *resolved.device;
  const fs::path out_dir =
      request.out_dir ? *request.out_dir : fs::path("out") / ("validate-" + resolved.scenario.name);
  check_output_folder(out_dir, "--out", {request.plan.scenario_path});
  // The bundle is claimed, staged and published as a run's folder is (locked, swapped whole).
  ResultFolder::Options bundle_options;
  bundle_options.layout = &ResultLayout::validation_bundle();
  ResultFolder bundle(out_dir, std::move(bundle_options));
  fs::create_directories(bundle.staging_dir() / "inputs");
  const ClockOptions& clock_options = request.clocks;
  const std::unique_ptr<backends::ClockControl> clocks =
      make_clock_control(clock_options, hardware, notes);
  std::optional<backends::ClockGuard> guard;
  if (clocks) guard.emplace(*clocks, restore_failure_printer(notes));
  const auto check_point = [&bundle] {
    if (const std::optional<int> s = pending_interrupt()) throw bundle.interrupted(*s);
  };
  // An interrupt inside a nested run names the bundle, not the run's folder inside its staging.
  const auto in_bundle = [&bundle](auto&& run) {
    try {
      return run();
    } catch (const Interrupted& e) {
      throw bundle.interrupted(e.signal());
    }
  };

  // 1. Profile on the device (for sim: the analytic model with noise, as fast as it can).
  std::unique_ptr<backends::Backend> device_backend;
  if (hardware) {
    device_backend =
        backends::make_backend(backend_name, {.device = &device,
                                              .real_time = true,
                                              .cuda_graphs = request.plan.backend.cuda_graphs,
                                              .layer_timing = request.plan.backend.layer_timing});
  } else {
    device_backend = std::make_unique<backends::NoisyBackend>(
        std::make_unique<backends::SimulatedBackend>(device, plan.perf_model()),
        backends::NoisyBackend::Options{.sigma = noise, .seed = resolved.scenario.seed});
  }
  const std::vector<models::PowerMode> modes =
      measurable_modes({resolved.mode}, hardware, clocks.get(), device, notes);
  if (modes.front() != resolved.mode && !quiet) {
    notes << "fulcrum: the scenario asks for " << power_mode_label(resolved.mode)
          << "; the measured run runs at the current clocks, so the comparison mixes modes\n";
  }
  const std::unique_ptr<backends::PowerMeter> profile_meter =
      make_profile_meter(hardware, clock_options, device, notes);
  backends::MinibatchProfiler profiler(*device_backend, clocks.get(),
                                       {.repeats = request.repeats,
                                        .discard = request.discard,
                                        .settle = settle.settle,
                                        .meter = profile_meter.get(),
                                        .window = settle.window,
                                        .check_point = check_point});
  if (!quiet) notes << "fulcrum: validate " << resolved.scenario.name << ": 1/3 profiling\n";
  const std::vector<backends::ProfileMeasurement> rows =
      measure_points(profiler, points_of(resolved), modes, quiet ? nullptr : &notes);
  // A real device's baseload, so that the simulation's idle power is measured too: metered once
  // the power has settled after the profile's load (the profile's comments say how long).
  const std::vector<IdleMeasurement> idle =
      hardware ? measure_idle(*device_backend, {modes.back()}, quiet ? nullptr : &notes)
               : std::vector<IdleMeasurement>{};
  const fs::path profile_csv = bundle.staging_dir() / "inputs/profile.csv";
  write_file_atomically(
      profile_csv,
      profile_csv_text(
          rows, device.rails,
          {"fulcrum validate: profile of " + resolved.scenario.name + " on backend " +
               backend_name +
               (hardware ? "" : " (simulated device, noise sigma " + fixed(noise, 3) + ")"),
           "method: discard " + std::to_string(request.discard) +
               (device_backend->runs_in_real_time()
                    ? ", settle " + fixed(settle.settle_s, 1) + " s back to back"
                    : std::string()) +
               ", median of " + std::to_string(request.repeats) +
               (profile_meter ? "; power: " + profile_meter->name() +
                                    " energy over windows of >= " + fixed(settle.window_s, 2) + " s"
                              : std::string())},
          "random", idle));
  if (request.plan.backend.layer_timing) {
    write_file_atomically(layer_times_path(profile_csv), layer_times_csv_text(rows));
  }
  fs::copy_file(request.plan.scenario_path, bundle.staging_dir() / "inputs/scenario.yaml");
  write_file_atomically(bundle.staging_dir() / "inputs/command.txt", request.command_line + "\n");

  // 2. Simulate with the table.
  if (!quiet)
    notes << "fulcrum: validate " << resolved.scenario.name
          << ": 2/3 simulating with the profile\n";
  const TablePerfModel table{{fs::absolute(profile_csv).string()}};
  const ScenarioRun sim_run = in_bundle([&] {
    return plan.with_perf_model(table).run(
        std::optional<fs::path>(bundle.staging_dir() / "simulated"));
  });

  // 3. Run for real, in wall-clock time.
  if (!quiet) {
    notes << "fulcrum: validate " << resolved.scenario.name << ": 3/3 running "
          << resolved.scenario.duration_s << " s in real time on " << backend_name << "\n";
  }
  RunPlan measured = plan.with_backend({.name = backend_name,
                                        .real_time = true,
                                        .cuda_graphs = request.plan.backend.cuda_graphs,
                                        .layer_timing = request.plan.backend.layer_timing});
  if (!hardware) {
    auto emulated = std::make_unique<backends::NoisyBackend>(
        std::make_unique<backends::SimulatedBackend>(device, measured.backend_model()),
        backends::NoisyBackend::Options{.sigma = noise,
                                        .seed = resolved.scenario.seed + 1,
                                        .real_time = true,
                                        .slicing = emulated_slicing(resolved)});
    measured = std::move(measured).with_backend(std::move(emulated), "sim");
  }
  // The policies of the measured run decide with the same predictions as the simulated one (the
  // profile), not the scenario's own model: a windowed policy sizes its windows from them. The
  // emulated device above keeps executing the scenario's own model.
  measured = std::move(measured).with_runtime_model(table);
  std::optional<RunMeter> run_meter;  // the meter over the run, on hardware
  if (hardware) {
    // The measured run's baseload, metered now (after the power settles; the GPU has been idle
    // since the profile's own idle row) rather than when the run starts, so that the whole-run
    // meter below spans the run and not the idle settling. The run itself then prepares and
    // warms up every item it can execute before its clock starts (Runtime, distinct_items), so
    // that no arrival waits for buffers, cuDNN's algorithm choice or a warm-up.
    measure_idle(measured.backend(), {modes.back()}, quiet ? nullptr : &notes);
    run_meter.emplace(measured,
                      backends::PowerMeterOptions{.sysfs_root = clock_options.sysfs_root,
                                                  .summed_rails = device.rails},
                      &notes);
  }
  const std::optional<backends::EnergyReading> no_reading;
  const std::optional<backends::EnergyReading>& whole_run =
      run_meter ? run_meter->reading() : no_reading;
  const ScenarioRun real_run = in_bundle([&] {
    return std::move(measured).run(std::optional<fs::path>(bundle.staging_dir() / "measured"), {},
                                   progress);
  });

  // The clocks as the measured run had them: read before they are restored.
  const std::string device_text =
      device_json(device, backend_name, hardware, clocks.get(), clock_options, noise, whole_run);
  if (guard) guard->finish();
  std::optional<DeviceMeterReading> device_meter;
  if (whole_run && run_meter && run_meter->measures()) {
    device_meter = DeviceMeterReading{whole_run->duration_s, whole_run->module_energy_j,
                                      whole_run->average_power_w()};
  }
  const Comparison comparison = compare_runs(sim_run.result, real_run.result, device_meter);
  write_file_atomically(bundle.staging_dir() / "comparison.json", comparison_json(comparison));
  write_file_atomically(bundle.staging_dir() / "comparison.md",
                        comparison_markdown(comparison, resolved.scenario.name, backend_name));
  write_file_atomically(bundle.staging_dir() / "device.json", device_text);
  bundle.publish();
  return ValidateReport{comparison, resolved.scenario.name, backend_name, out_dir};
}

}  // namespace fulcrum::sim::app
