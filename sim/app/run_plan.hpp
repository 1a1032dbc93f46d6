// RunPlan: one scenario run as the application sees it -- the device catalog, the resolved
// scenario, its performance model, the data pipeline and the backend, built once from a request
// and owned in one place. Typed derivations give a plan for another mode, batch sizes, model or
// backend without printing values back into `--set` strings or re-reading the scenario file.
//
//   RunPlan plan = RunPlan::load({.scenario_path = "scenarios/quickstart.yaml"});
//   ScenarioRun r = plan.with_mode(choice.mode).with_batch_sizes({.inference = {8}}).run();
//   std::cout << r.summary_json;
//
//   ResultFolder folder("out/quickstart");
//   ScenarioRun published = std::move(plan).run(folder);  // staged, then published at once
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/time_slicer.hpp"
#include "models/device/device_catalog.hpp"
#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "models/pipeline/dataloader_model.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/report/result_folder.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/runtime/runner.hpp"

namespace fulcrum::sim::app {

// Which backend executes a plan's minibatches, and how (backends::BackendOptions).
struct BackendChoice {
  std::string name = "sim";   // a name of backends::available_backends()
  bool real_time = false;     // the backend executes in real time (sim sleeps): --clock wall
  bool cuda_graphs = false;   // BackendOptions::cuda_graphs
  bool layer_timing = false;  // BackendOptions::layer_timing
};

// What a plan is loaded from.
struct PlanRequest {
  // (The explicit initialisers let designated initialisers leave fields out under -Wextra.)
  std::string scenario_path = {};
  std::vector<std::string> overrides = {};           // "key.path=value" (--set), located at "--set"
  std::optional<std::uint64_t> seed = std::nullopt;  // replaces the scenario's seed (--seed)
  std::string data_dir = default_data_dir();
  BackendChoice backend = {};
  // The names the scenario's `search.strategy` may give (sorted; `optimize` passes its
  // registry's); null: the built-in strategies.
  const std::vector<std::string>* strategy_names = nullptr;
};

// Batch sizes for a derived plan; an absent or empty field keeps the plan's own.
struct BatchSizes {
  std::optional<int> training = std::nullopt;
  std::vector<int> inference = {};  // one per stream when given
};

struct ScenarioRun;

class RunPlan {
 public:
  // Loads and resolves the scenario, builds its performance model, data pipeline and backend.
  // Bad input throws InputError (located in the scenario file or at --set) before anything is
  // written anywhere.
  static RunPlan load(const PlanRequest& request);

  RunPlan(RunPlan&&) = default;
  RunPlan& operator=(RunPlan&&) = default;
  RunPlan(const RunPlan&) = delete;
  RunPlan& operator=(const RunPlan&) = delete;

  const Scenario& scenario() const { return resolved_.scenario; }
  const ResolvedScenario& resolved() const { return resolved_; }
  const models::DeviceSpec& device() const { return *resolved_.device; }
  const models::PowerMode& mode() const { return resolved_.mode; }
  const models::PerfModel& perf_model() const { return *perf_model_; }
  // The model the backend was built over (differs from perf_model() after with_runtime_model).
  const models::PerfModel& backend_model() const { return *backend_model_; }
  const models::PipelineData* pipeline() const { return pipeline_.get(); }
  backends::Backend& backend() const { return *backend_; }
  const BackendChoice& backend_choice() const { return backend_choice_; }
  const std::string& data_dir() const { return data_dir_; }
  const std::string& scenario_path() const { return scenario_path_; }
  // What the scenario sets without effect (LoadedScenario::warnings: one located line each), for
  // the caller to show; derived plans keep them.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The same run in another power mode of the device (cores and CPU/GPU/EMC clocks of its
  // tables), as a custom mode; a preset `power_mode:` is replaced. A mode the device's tables
  // lack, or one the model cannot predict the run's items at, is an InputError that names the
  // mode, not the scenario file.
  RunPlan with_mode(const models::PowerMode& mode) const;
  // The same run with other batch sizes (each >= 1; `inference` one per stream when given).
  RunPlan with_batch_sizes(const BatchSizes& sizes) const;
  // The same run with another performance model, for the runtime's predictions and the
  // simulated backend alike (the backend is rebuilt over it).
  RunPlan with_perf_model(const PerfModelChoice& choice) const;
  // The runtime predicts with `choice`; the backend keeps executing with the model it was built
  // over (validate's measured run: the policies decide with the profile, the emulated device
  // runs the scenario's own model).
  RunPlan with_runtime_model(const PerfModelChoice& choice) &&;
  // The same run on another backend.
  RunPlan with_backend(const BackendChoice& choice) const;
  // The same run on a backend built by the caller over this plan's device and backend_model()
  // (which the plan keeps alive); `name` is what run.json records. A plan with such a backend
  // derives no further plans that rebuild the backend.
  RunPlan with_backend(std::unique_ptr<backends::Backend> backend, std::string name) &&;

  // Called right before the run's clock starts and right after it ends (RunSetup); where a
  // caller starts and stops a meter over the run itself.
  void set_clock_hooks(std::function<void()> on_start, std::function<void()> on_end);

  // Runs with the policy `factory` makes instead of the scenario's gpu_sharing (a policy written
  // in Python: python/policy_module.cpp). Empty: the scenario's.
  void set_policy(GpuSharingPolicyFactory factory);

  // One run without files; `observer` may be null, `progress` empty.
  RunResult simulate(RunObserver* observer = nullptr, ProgressFn progress = {}) const;

  // Files a caller adds to a run's folder once the run has ended: writes them into the staging
  // folder it is given and returns their names (each one ResultFolder knows as a result file).
  using ExtraOutputs =
      std::function<std::vector<std::string>(const std::filesystem::path& staging)>;

  // simulate, with the output writers into `folder`'s staging folder and run.json beside them,
  // then publishes the folder (results appear only when the run succeeded, all at once).
  // Between progress steps and as files are written the run checks for an interrupt
  // (sim/report/interrupt.hpp) and throws Interrupted naming the folder.
  ScenarioRun run(ResultFolder& folder, const std::vector<std::string>& command_line = {},
                  ProgressFn progress = {}, const ExtraOutputs& extra = {}) &&;
  // Into `out_dir` when given (claimed with ResultFolder's defaults), else without any files.
  ScenarioRun run(const std::optional<std::filesystem::path>& out_dir = std::nullopt,
                  const std::vector<std::string>& command_line = {}, ProgressFn progress = {}) &&;

 private:
  RunPlan() = default;
  RunPlan derived() const;  // shares the catalog, model and pipeline; no backend yet
  void make_backend();
  void check_items() const;  // every item the run starts is predictable by perf_model()

  std::string scenario_path_;
  std::string data_dir_;
  std::shared_ptr<const models::DeviceCatalog> devices_;
  ScenarioSources sources_;  // where the user's values came from; empty in derived plans
  std::vector<std::string> warnings_;
  ResolvedScenario resolved_;
  std::shared_ptr<const models::PerfModel> perf_model_;
  std::shared_ptr<const models::PerfModel> backend_model_;
  std::shared_ptr<const models::PipelineData> pipeline_;
  BackendChoice backend_choice_;
  std::string backend_name_;  // as run.json records it
  bool custom_backend_ = false;
  std::unique_ptr<backends::Backend> backend_;
  GpuSharingPolicyFactory policy_;
  std::function<void()> on_clock_start_;
  std::function<void()> on_clock_end_;
};

struct ScenarioRun {
  RunPlan plan;
  RunResult result;
  std::string summary_json;                    // the document written as summary.json
  std::vector<std::filesystem::path> outputs;  // files written (empty without a folder)
  double wall_s = 0;                           // host time of the run and its outputs
};

// RunPlan::load(request) run into `out_dir` (absent: no files), as `fulcrum run` runs it.
ScenarioRun run_scenario_file(const PlanRequest& request,
                              const std::optional<std::filesystem::path>& out_dir = std::nullopt,
                              const std::vector<std::string>& command_line = {});

// How an emulated device (`sim` in real time) time-slices the contexts of a native run: with the
// scenario's own gpu_sharing.timeslice_us and context_switch_us, as the native policy models it.
backends::TimeSlicer::Options emulated_slicing(const ResolvedScenario& resolved);

}  // namespace fulcrum::sim::app
