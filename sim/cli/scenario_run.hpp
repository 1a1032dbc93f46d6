// One scenario file run end to end, as `fulcrum run` does it: load and resolve the scenario, build
// its performance model and the backend, run, and write the output files.
// The tests and benchmarks call these directly instead of going through a subprocess.
//
//   ScenarioRun r = run_scenario_file("scenarios/quickstart.yaml", {.out_dir = "out/quickstart"});
//   std::cout << r.summary_json;
//
//   PreparedRun p = prepare_run("scenarios/quickstart.yaml");   // load + resolve once
//   RunResult result = simulate(p);                              // then time just this
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/hardware/power_meter.hpp"
#include "backends/time_slicer.hpp"
#include "models/device/device_catalog.hpp"
#include "models/perf/perf_model.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/report/result_folder.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/runtime/runner.hpp"

namespace fulcrum::sim {

struct RunOptions {
  std::vector<std::string> overrides;            // "key.path=value" (--set)
  std::optional<std::uint64_t> seed;             // replaces the scenario's seed (--seed)
  std::optional<std::filesystem::path> out_dir;  // absent: no files are written
  std::string data_dir = default_data_dir();
  std::string backend = "sim";  // a name of backends::available_backends() (--backend)
  bool real_time = false;       // --clock wall: the backend executes in real time (sim sleeps)
  bool cuda_graphs = false;     // --cuda-graphs (BackendOptions::cuda_graphs)
  bool layer_timing = false;    // --profile-layers (BackendOptions::layer_timing)
};

// Everything a run needs, loaded and resolved, with stable addresses (the backend and the
// resolved scenario point into the catalog and the model).
struct PreparedRun {
  std::unique_ptr<models::DeviceCatalog> devices;
  ResolvedScenario resolved;
  std::unique_ptr<models::PerfModel> perf_model;
  std::unique_ptr<models::PipelineData> pipeline;  // training.data_pipeline: dataloader only
  std::string backend_name;                        // as given to backends::make_backend
  std::unique_ptr<backends::Backend> backend;
  std::function<void()> on_clock_start;  // RunSetup::on_clock_start of the run
  std::function<void()> on_clock_end;    // RunSetup::on_clock_end of the run
  std::vector<std::string> warnings;     // LoadedScenario::warnings, for the verb to print
};

// Loads, applies overrides and --seed, resolves, builds the scenario's performance model
// (load_perf_model) and the backend (backends::make_backend). Bad input throws InputError before
// anything is written anywhere.
PreparedRun prepare_run(const std::string& scenario_path, const RunOptions& options = {});

// The device's own meter over a prepared run, from its clock's start to its end
// (PreparedRun::on_clock_start/on_clock_end: after any warm-up, before anything is written).
// Where no meter opens, says why on `notes` (when not null) and reads nothing. Set up before the
// run, read after it; it must outlive the run.
class RunMeter {
 public:
  RunMeter(PreparedRun& run, const backends::PowerMeterOptions& options, std::ostream* notes);
  RunMeter(const RunMeter&) = delete;
  RunMeter& operator=(const RunMeter&) = delete;

  // What it read over the run; nullopt without a meter or before the run has ended.
  const std::optional<backends::EnergyReading>& reading() const { return reading_; }
  // A meter opened and it measures (not the null meter).
  bool measures() const { return meter_ && meter_->measures(); }

 private:
  std::unique_ptr<backends::PowerMeter> meter_;
  std::optional<backends::EnergyReading> reading_;
};

// How an emulated device (`sim` in real time) time-slices the contexts of a native run: with the
// scenario's own gpu_sharing.timeslice_us and context_switch_us, as the native policy models it.
backends::TimeSlicer::Options emulated_slicing(const ResolvedScenario& resolved);

// One run of a prepared scenario; `observer` may be null, `progress` empty.
RunResult simulate(PreparedRun& prepared, RunObserver* observer = nullptr,
                   ProgressFn progress = {});

struct ScenarioRun {
  PreparedRun prepared;
  RunResult result;
  std::string summary_json;                    // the document written as summary.json
  std::vector<std::filesystem::path> outputs;  // files written (empty without out_dir)
  double wall_s = 0;                           // host time of simulate + outputs
};

// simulate, with the output writers into `folder`'s staging folder and run.json beside them,
// then publishes the folder (results appear only when the run succeeded, all at once).
// `progress` as in run(); between its steps, and as files are written, the run checks for an
// interrupt (sim/report/interrupt.hpp) and throws Interrupted naming the folder.
// Files a caller adds to a run's folder once the run has ended: writes them into the staging
// folder it is given and returns their names (each one ResultFolder knows as a result file).
using ExtraOutputs = std::function<std::vector<std::string>(const std::filesystem::path& staging)>;

ScenarioRun run_prepared(PreparedRun prepared, ResultFolder& folder,
                         const std::vector<std::string>& command_line = {},
                         ProgressFn progress = {}, const ExtraOutputs& extra = {});

// As above into `out_dir` when given (claimed with ResultFolder's defaults: another run into it
// is an InputError), else without any files.
ScenarioRun run_prepared(PreparedRun prepared, const std::optional<std::filesystem::path>& out_dir,
                         const std::vector<std::string>& command_line = {},
                         ProgressFn progress = {});

// prepare_run + run_prepared into options.out_dir.
ScenarioRun run_scenario_file(const std::string& scenario_path, const RunOptions& options = {},
                              const std::vector<std::string>& command_line = {});

}  // namespace fulcrum::sim
