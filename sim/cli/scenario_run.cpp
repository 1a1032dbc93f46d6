#include "sim/cli/scenario_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "backends/backend_factory.hpp"
#include "models/error.hpp"
#include "sim/cli/version.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/output_writer.hpp"
#include "sim/report/publication_step.hpp"
#include "sim/report/run_json.hpp"
#include "sim/report/summary.hpp"
#include "sim/runtime/runner.hpp"

namespace fulcrum::sim {

namespace {

// A run needs one device: read only its file when it exists (parsing the whole catalog is a
// noticeable share of a short run), else the whole folder, whose names the "unknown device"
// error lists.
models::DeviceCatalog devices_for(const std::string& data_dir, const std::string& model) {
  const std::filesystem::path dir = std::filesystem::path(data_dir) / "devices";
  const bool plain_name =
      !model.empty() && model.find_first_of("/\\") == std::string::npos && model.front() != '.';
  std::error_code ec;
  if (plain_name && std::filesystem::is_regular_file(dir / (model + ".yaml"), ec)) {
    models::DeviceCatalog one;
    one.add(load_device_file((dir / (model + ".yaml")).string()));
    return one;
  }
  return load_device_catalog(dir.string());
}

}  // namespace

backends::TimeSlicer::Options emulated_slicing(const ResolvedScenario& resolved) {
  const GpuSharing& g = resolved.scenario.gpu_sharing;
  const auto ns = [](double us) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(us * 1e3)));
  };
  return {.timeslice = std::max(ns(g.timeslice_us), std::chrono::nanoseconds(1)),
          .context_switch = ns(g.context_switch_us)};
}

RunMeter::RunMeter(PreparedRun& run, const backends::PowerMeterOptions& options,
                   std::ostream* notes) {
  try {
    meter_ = backends::make_power_meter(options);
  } catch (const Error& e) {
    if (notes != nullptr) *notes << "fulcrum: no meter over the whole run (" << e.what() << ")\n";
    return;
  }
  run.on_clock_start = [this] { meter_->start(); };
  run.on_clock_end = [this] { reading_ = meter_->stop(); };
}

PreparedRun prepare_run(const std::string& scenario_path, const RunOptions& options) {
  PreparedRun p;
  LoadedScenario loaded = load_scenario_with_sources(scenario_path, options.overrides);
  p.devices = std::make_unique<models::DeviceCatalog>(
      devices_for(options.data_dir, loaded.scenario.device.model));
  p.resolved = resolve(loaded, *p.devices);
  if (options.seed) p.resolved.scenario.seed = *options.seed;
  const auto& training = p.resolved.scenario.training;
  try {
    p.perf_model =
        load_perf_model(p.resolved.scenario.device.perf_model, options.data_dir, *p.resolved.device,
                        training && training->data_pipeline == DataPipelineKind::dataloader);
  } catch (const InputError& e) {
    // A model the device cannot have (analytic-modes elsewhere than on Orin AGX): at the key.
    const auto at = loaded.sources.find("device.perf_model");
    if (e.where() || !at) throw;
    throw e.located(*at, "device.perf_model");
  }
  // Every item the run will start must be predictable, checked now: a table without rows for a
  // workload is bad input, located at the scenario key, before anything runs or is written.
  check_predictable(loaded, p.resolved, *p.perf_model);
  if (auto pipeline = load_pipeline(loaded, p.resolved, options.data_dir)) {
    p.pipeline = std::make_unique<models::PipelineData>(std::move(*pipeline));
  }
  p.warnings = loaded.warnings;
  p.backend_name = options.backend;
  p.backend = backends::make_backend(options.backend, {.device = p.resolved.device,
                                                       .perf_model = p.perf_model.get(),
                                                       .real_time = options.real_time,
                                                       .cuda_graphs = options.cuda_graphs,
                                                       .layer_timing = options.layer_timing,
                                                       .slicing = emulated_slicing(p.resolved)});
  return p;
}

RunResult simulate(PreparedRun& prepared, RunObserver* observer, ProgressFn progress) {
  RunSetup setup = prepared.resolved.setup();
  setup.perf_model = prepared.perf_model.get();
  setup.pipeline = prepared.pipeline.get();
  setup.on_clock_start = prepared.on_clock_start;
  setup.on_clock_end = prepared.on_clock_end;
  return run(setup, *prepared.backend, observer, std::move(progress));
}

ScenarioRun run_prepared(PreparedRun prepared, ResultFolder& folder,
                         const std::vector<std::string>& command_line, ProgressFn progress,
                         const ExtraOutputs& extra) {
  ScenarioRun r{std::move(prepared), {}, {}, {}, 0};
  const Scenario& scenario = r.prepared.resolved.scenario;
  const auto start = std::chrono::steady_clock::now();
  // The interrupt check rides on the progress steps (kProgressSteps per run, never per event).
  ProgressFn checked = [&progress](Time reached, Time end) {
    throw_if_interrupted();
    if (progress) progress(reached, end);
  };
  try {
    OutputWriter writer(folder.staging_dir(), scenario, r.prepared.resolved.device->rails);
    r.result = simulate(r.prepared, &writer, std::move(checked));
    writer.finish(r.result);
    r.summary_json = summary_json(r.result, scenario);
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    RunInfo info;
    info.wall_s = r.wall_s;
    info.events_processed = r.result.events_processed;
    info.backend = r.prepared.backend_name;
    info.lateness = r.result.lateness;
    info.fulcrum_version = kFulcrumVersion;
    info.command_line = command_line;
    write_run_json(folder.staging_dir(), info);
    publication_step("wrote run.json");
    for (const auto& path : writer.outputs())
      r.outputs.push_back(folder.target() / path.filename());
    r.outputs.push_back(folder.target() / "run.json");
    if (extra) {
      for (const std::string& name : extra(folder.staging_dir())) {
        r.outputs.push_back(folder.target() / name);
      }
    }
  } catch (const Interrupted& e) {
    // Re-thrown with the folder named: only here is it known what the interrupt left.
    throw folder.interrupted(e.signal());
  }
  folder.publish();
  return r;
}

ScenarioRun run_prepared(PreparedRun prepared, const std::optional<std::filesystem::path>& out_dir,
                         const std::vector<std::string>& command_line, ProgressFn progress) {
  if (out_dir) {
    ResultFolder folder(*out_dir);
    return run_prepared(std::move(prepared), folder, command_line, std::move(progress));
  }
  ScenarioRun r{std::move(prepared), {}, {}, {}, 0};
  const auto start = std::chrono::steady_clock::now();
  r.result = simulate(r.prepared, nullptr, std::move(progress));
  r.summary_json = summary_json(r.result, r.prepared.resolved.scenario);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

ScenarioRun run_scenario_file(const std::string& scenario_path, const RunOptions& options,
                              const std::vector<std::string>& command_line) {
  return run_prepared(prepare_run(scenario_path, options), options.out_dir, command_line);
}

}  // namespace fulcrum::sim
