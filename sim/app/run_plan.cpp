#include "sim/app/run_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>

#include "backends/backend_factory.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "sim/app/version.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/output_writer.hpp"
#include "sim/report/publication_step.hpp"
#include "sim/report/run_json.hpp"
#include "sim/report/summary.hpp"
#include "sim/runtime/runner.hpp"

namespace fulcrum::sim::app {

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

bool simulates_pipeline(const Scenario& scenario) {
  return scenario.training && scenario.training->data_pipeline == DataPipelineKind::dataloader;
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

RunPlan RunPlan::load(const PlanRequest& request) {
  RunPlan p;
  p.scenario_path_ = request.scenario_path;
  p.data_dir_ = request.data_dir;
  add_data_workloads(request.data_dir);  // the plan's data folder's workload files, by name
  LoadedScenario loaded =
      load_scenario_with_sources(request.scenario_path, request.overrides, request.strategy_names);
  if (request.seed) loaded.scenario.seed = *request.seed;
  p.devices_ = std::make_shared<const models::DeviceCatalog>(
      devices_for(request.data_dir, loaded.scenario.device.model));
  p.resolved_ = resolve(loaded, *p.devices_);
  p.sources_ = loaded.sources;
  p.warnings_ = loaded.warnings;
  try {
    p.perf_model_ = load_perf_model(p.resolved_.scenario.device.perf_model, request.data_dir,
                                    *p.resolved_.device, simulates_pipeline(p.resolved_.scenario));
  } catch (const InputError& e) {
    // A model the device cannot have (analytic-modes elsewhere than on Orin AGX): at the key.
    const auto at = loaded.sources.find("device.perf_model");
    if (e.where() || !at) throw;
    throw e.located(*at, "device.perf_model");
  }
  p.backend_model_ = p.perf_model_;
  // Every item the run will start must be predictable, checked now: a table without rows for a
  // workload is bad input, located at the scenario key, before anything runs or is written.
  p.check_items();
  if (auto pipeline = load_pipeline(loaded, p.resolved_, request.data_dir)) {
    p.pipeline_ = std::make_shared<const models::PipelineData>(std::move(*pipeline));
  }
  p.backend_choice_ = request.backend;
  p.make_backend();
  return p;
}

RunPlan RunPlan::derived() const {
  if (custom_backend_) {
    throw Error("a plan whose backend the caller built derives no other plan");
  }
  RunPlan p;
  p.scenario_path_ = scenario_path_;
  p.data_dir_ = data_dir_;
  p.devices_ = devices_;
  p.resolved_ = resolved_;
  p.warnings_ = warnings_;
  // A derived plan's values come from the caller, not the file: its errors name the key only.
  p.perf_model_ = perf_model_;
  p.backend_model_ = backend_model_;
  p.pipeline_ = pipeline_;
  p.backend_choice_ = backend_choice_;
  return p;
}

void RunPlan::make_backend() {
  backend_name_ = backend_choice_.name;
  custom_backend_ = false;
  backend_ =
      backends::make_backend(backend_choice_.name, {.device = resolved_.device,
                                                    .perf_model = backend_model_.get(),
                                                    .real_time = backend_choice_.real_time,
                                                    .cuda_graphs = backend_choice_.cuda_graphs,
                                                    .layer_timing = backend_choice_.layer_timing,
                                                    .slicing = emulated_slicing(resolved_)});
}

void RunPlan::check_items() const {
  check_predictable(LoadedScenario{resolved_.scenario, sources_, warnings_}, resolved_,
                    *perf_model_);
}

RunPlan RunPlan::with_mode(const models::PowerMode& mode) const {
  RunPlan p = derived();
  const models::ModeRequest request{.cores = mode.cores,
                                    .cpu_mhz = mode.cpu_khz / 1e3,
                                    .gpu_mhz = mode.gpu_hz / 1e6,
                                    .emc_mhz = mode.emc_hz / 1e6};
  // The mode must be one of the device's own: its clocks are values of the tables.
  const models::PowerMode snapped = models::resolve_request(device(), request);
  if (snapped.cores != mode.cores || snapped.cpu_khz != mode.cpu_khz ||
      snapped.gpu_hz != mode.gpu_hz || snapped.emc_hz != mode.emc_hz) {
    throw InputError(std::nullopt, "power mode",
                     mode.label() + " is not a mode of " + device().name +
                         " (nearest: " + snapped.label() + ")");
  }
  p.resolved_.scenario.device.preset.reset();
  p.resolved_.scenario.device.custom = request;
  p.resolved_.mode = mode;
  p.check_items();
  p.make_backend();
  return p;
}

RunPlan RunPlan::with_batch_sizes(const BatchSizes& sizes) const {
  RunPlan p = derived();
  Scenario& s = p.resolved_.scenario;
  if (sizes.training) {
    if (!s.training)
      throw InputError(std::nullopt, "training.batch_size", "the run trains nothing");
    if (*sizes.training < 1) {
      throw InputError(std::nullopt, "training.batch_size",
                       "must be >= 1, got " + std::to_string(*sizes.training));
    }
    s.training->batch_size = *sizes.training;
  }
  if (!sizes.inference.empty()) {
    if (sizes.inference.size() != s.inference.size()) {
      throw InputError(std::nullopt, "inference",
                       "expected " + std::to_string(s.inference.size()) + " batch sizes, got " +
                           std::to_string(sizes.inference.size()));
    }
    for (std::size_t i = 0; i < sizes.inference.size(); ++i) {
      if (sizes.inference[i] < 1) {
        throw InputError(std::nullopt, "inference[" + std::to_string(i) + "].batch_size",
                         "must be >= 1, got " + std::to_string(sizes.inference[i]));
      }
      s.inference[i].batch_size = sizes.inference[i];
    }
  }
  p.check_items();
  p.make_backend();
  return p;
}

RunPlan RunPlan::with_perf_model(const PerfModelChoice& choice) const {
  RunPlan p = derived();
  p.perf_model_ = load_perf_model(choice, data_dir_, device(), simulates_pipeline(scenario()));
  p.backend_model_ = p.perf_model_;
  p.resolved_.scenario.device.perf_model = choice;
  p.check_items();
  p.make_backend();
  return p;
}

RunPlan RunPlan::with_runtime_model(const PerfModelChoice& choice) && {
  perf_model_ = load_perf_model(choice, data_dir_, device(), simulates_pipeline(scenario()));
  resolved_.scenario.device.perf_model = choice;
  sources_ = {};
  check_items();
  return std::move(*this);
}

RunPlan RunPlan::with_backend(const BackendChoice& choice) const {
  RunPlan p = derived();
  p.backend_choice_ = choice;
  p.make_backend();
  return p;
}

RunPlan RunPlan::with_backend(std::unique_ptr<backends::Backend> backend, std::string name) && {
  backend_ = std::move(backend);
  backend_name_ = std::move(name);
  custom_backend_ = true;
  return std::move(*this);
}

void RunPlan::set_clock_hooks(std::function<void()> on_start, std::function<void()> on_end) {
  on_clock_start_ = std::move(on_start);
  on_clock_end_ = std::move(on_end);
}

void RunPlan::set_policy(GpuSharingPolicyFactory factory) { policy_ = std::move(factory); }

RunResult RunPlan::simulate(RunObserver* observer, ProgressFn progress) const {
  RunSetup setup = resolved_.setup();
  setup.perf_model = perf_model_.get();
  setup.pipeline = pipeline_.get();
  setup.on_clock_start = on_clock_start_;
  setup.on_clock_end = on_clock_end_;
  setup.stop_requested = [] { return pending_interrupt().has_value(); };
  return sim::run(setup, *backend_, observer, std::move(progress), policy_);
}

ScenarioRun RunPlan::run(ResultFolder& folder, const std::vector<std::string>& command_line,
                         ProgressFn progress, const ExtraOutputs& extra) && {
  ScenarioRun r{std::move(*this), {}, {}, {}, 0};
  const Scenario& scenario = r.plan.scenario();
  const auto start = std::chrono::steady_clock::now();
  // The interrupt check rides on the progress steps (kProgressSteps per run, never per event).
  ProgressFn checked = [&progress](Time reached, Time end) {
    throw_if_interrupted();
    if (progress) progress(reached, end);
  };
  try {
    OutputWriter writer(folder.staging_dir(), scenario, r.plan.device().rails);
    r.result = r.plan.simulate(&writer, std::move(checked));
    writer.finish(r.result);
    r.summary_json = summary_json(r.result, scenario);
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    RunInfo info;
    info.wall_s = r.wall_s;
    info.events_processed = r.result.events_processed;
    info.backend = r.plan.backend_name_;
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

ScenarioRun RunPlan::run(const std::optional<std::filesystem::path>& out_dir,
                         const std::vector<std::string>& command_line, ProgressFn progress) && {
  if (out_dir) {
    ResultFolder folder(*out_dir);
    return std::move(*this).run(folder, command_line, std::move(progress));
  }
  ScenarioRun r{std::move(*this), {}, {}, {}, 0};
  const auto start = std::chrono::steady_clock::now();
  r.result = r.plan.simulate(nullptr, std::move(progress));
  r.summary_json = summary_json(r.result, r.plan.scenario());
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

ScenarioRun run_scenario_file(const PlanRequest& request,
                              const std::optional<std::filesystem::path>& out_dir,
                              const std::vector<std::string>& command_line) {
  return RunPlan::load(request).run(out_dir, command_line);
}

}  // namespace fulcrum::sim::app
