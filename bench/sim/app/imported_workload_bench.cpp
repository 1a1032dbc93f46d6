// A run with workloads imported from ONNX against the same run with the built-in workloads of the
// same architecture: ResNet-18 training in minibatches of 16 beside a ResNet-18 inference stream
// (100 requests/s, batches of 8) on Orin AGX at MAXN for 600 simulated seconds, the default
// performance model. The imported graph is written by `fulcrum workloads --import` (app layer)
// as a workload file and read back, as a scenario gets it. Argument 0: built-in; 1: imported.
// The imported workload is run under the name "resnet18" like the built-in one, so that the
// performance model (which looks up a workload's fitted parameters by name) predicts both alike:
// the runs differ only in the workload object the runtime and the backend read.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "backends/simulated_backend.hpp"
#include "models/onnx/onnx_import.hpp"
#include "sim/app/import_workload.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/runtime/runner.hpp"

namespace {

namespace fs = std::filesystem;
using namespace fulcrum;

const char* kScenario = R"(version: 1
name: imported-workload-bench
seed: 7
duration_s: 600
device: {model: orin-agx-64gb, power_mode: MAXN}
gpu_sharing: managed
training: {workload: resnet18, dataset: gld23k, batch_size: 16}
inference:
  - {name: resnet18, workload: resnet18, batch_size: 8, arrivals: {process: fixed, rate_per_s: 100}}
budgets: {latency_ms: 250, latency_percentile: 99, power_w: 30}
)";

#ifdef FULCRUM_ONNX_PLUGIN_PATH
// The import goes through the plugin this build made (beside `fulcrum`, not beside this bench).
[[maybe_unused]] const int kPluginNamed =
    setenv("FULCRUM_ONNX_PLUGIN", FULCRUM_ONNX_PLUGIN_PATH, 0);
#endif

void BM_Run_imported_workload(benchmark::State& state) {
  if (!models::onnx_import_available()) {
    state.SkipWithError("this build has no ONNX import");
    return;
  }
  const bool imported = state.range(0) == 1;
  state.SetLabel(imported ? "imported from ONNX" : "built-in");
  const fs::path dir =
      fs::temp_directory_path() / ("fulcrum-import-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "resnet18-onnx.yaml";
  sim::app::import_workload({.model = std::string(FULCRUM_DATA_DIR) + "/onnx/resnet18.onnx",
                             .input_shapes = {},
                             .name = "resnet18-onnx",
                             .out = file});
  const sim::WorkloadFile workload_file = sim::load_workload_file(file.string());
  fs::remove_all(dir);

  const models::DeviceCatalog devices =
      sim::load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
  const sim::LoadedScenario loaded = sim::parse_scenario(kScenario, "bench.yaml");
  sim::ResolvedScenario resolved = sim::resolve(loaded, devices);
  // The imported graph under the built-in's name (see the header comment).
  const models::GraphWorkload renamed("resnet18", workload_file.workload.task(),
                                      workload_file.workload.layers(),
                                      workload_file.workload.input_bytes_per_sample());
  if (imported) {
    resolved.training_workload = &renamed;
    resolved.inference_workloads = {&renamed};
  }
  const std::unique_ptr<models::PerfModel> model =
      sim::load_perf_model(resolved.scenario.device.perf_model, FULCRUM_DATA_DIR, *resolved.device);
  backends::SimulatedBackend backend(*resolved.device, *model);
  sim::RunSetup setup = resolved.setup();
  setup.perf_model = model.get();

  std::uint64_t events = 0;
  for (auto _ : state) {
    const sim::RunResult result = sim::run(setup, backend);
    events += result.events_processed;
    benchmark::DoNotOptimize(result.power.energy_j);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] =
      benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_Run_imported_workload)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
