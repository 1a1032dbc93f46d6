// Reading scenario files (schema: docs/SCENARIOS.md) into the typed sim::Scenario, then resolving
// its names against the catalogs into what run() needs. Every error is one InputError line,
// "file:line:col: key.path: problem"; values overridden with --set are blamed on "--set".
//
//   LoadedScenario loaded = load_scenario_with_sources("scenarios/quickstart.yaml", {"seed=3"});
//   ResolvedScenario r = resolve(loaded, device_catalog);   // unknown names located at their key
//   RunResult result = run(r.setup(), backend);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/error.hpp"
#include "models/perf/perf_model.hpp"
#include "models/pipeline/dataloader_model.hpp"
#include "models/workload/workload.hpp"
#include "sim/scenario/run_setup.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// Where the values that are only checked later (names, the custom mode) came from, by key path.
class ScenarioSources {
 public:
  void record(const std::string& key_path, SourceLocation where);
  std::optional<SourceLocation> find(const std::string& key_path) const;

 private:
  std::map<std::string, SourceLocation> by_path_;
};

struct LoadedScenario {
  Scenario scenario;
  ScenarioSources sources;
  // What was read but changes nothing (a dataloader block under data_pipeline: none), one line
  // each, located as errors are ("file:line:col: key.path: problem"); the verbs print them.
  std::vector<std::string> warnings;
};

// A seed as text, the one rule for `seed:` and `--seed`: a decimal integer in
// 0..18446744073709551615 (the RNG's 64 bits), an optional leading '+'. nullopt otherwise.
std::optional<std::uint64_t> seed_from_text(std::string_view text);
// What both say about text that is not a seed: "must be an integer in 0..18446744073709551615,
// got 'x'" (the text made printable).
std::string bad_seed_problem(std::string_view text);

// Reads, checks and applies defaults. `overrides` are "key.path=value" strings (--set), applied
// to the document before it is read. Trace files are read relative to the scenario's folder.
// `known_strategies` (sorted) are the names `search.strategy` may give; null: the built-ins
// (kStrategyNames).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});
LoadedScenario load_scenario_with_sources(
    const std::string& path, const std::vector<std::string>& overrides = {},
    const std::vector<std::string>* known_strategies = nullptr);

// The same from text in memory (tests, fuzzing); `display_name` appears in errors and trace
// paths are resolved against `base_dir`.
LoadedScenario parse_scenario(const std::string& text, const std::string& display_name,
                              const std::vector<std::string>& overrides = {},
                              const std::string& base_dir = ".");

// A scenario with its names resolved. The device and workloads are owned by the catalogs, which
// must outlive this; setup() points into this object, so call it again after a move.
struct ResolvedScenario {
  Scenario scenario;
  const models::DeviceSpec* device = nullptr;
  models::PowerMode mode;
  const models::Workload* training_workload = nullptr;
  double training_dataset_samples = 0;
  std::vector<const models::Workload*> inference_workloads;

  RunSetup setup() const;
};

// Looks up the device (in `devices`), the power mode (preset, custom request, or the device's
// default preset), the workloads and the dataset; errors are located where `sources` says.
ResolvedScenario resolve(const LoadedScenario& loaded, const models::DeviceCatalog& devices);
// Without sources, errors name only the key path.
ResolvedScenario resolve(const Scenario& scenario, const models::DeviceCatalog& devices);

// Checks that `model` can predict the items the run will start -- the training job's
// minibatches and each stream's full batch, at the resolved power mode -- so that a table model
// without rows for a workload or phase is bad input located at the scenario's key (and the
// profile's), found before the run rather than in the middle of it.
void check_predictable(const LoadedScenario& loaded, const ResolvedScenario& resolved,
                       const models::PerfModel& model);

// The data-pipeline model's data for a training job with data_pipeline: dataloader (nullopt
// otherwise): the storage medium named by training.dataloader.storage and the dataloader
// coefficients from `data_dir` (pipeline_loader.hpp), the dataset's file size and sample format.
// Errors are located at the scenario key (or in the data file).
std::optional<models::PipelineData> load_pipeline(const LoadedScenario& loaded,
                                                  const ResolvedScenario& resolved,
                                                  const std::string& data_dir);

// load_scenario_with_sources + resolve.
ResolvedScenario load_and_resolve(const std::string& path,
                                  const std::vector<std::string>& overrides,
                                  const models::DeviceCatalog& devices);

}  // namespace fulcrum::sim
