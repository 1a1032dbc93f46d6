// Speed of one quickstart run (600 s simulated, 100 requests/s, concurrent training): the
// simulation alone on the real SimulatedBackend (with and without the interrupt checks `fulcrum
// run` adds), with every output file written, and published as `fulcrum run` does it.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/workload/architectures.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/output_writer.hpp"

namespace {

std::string quickstart() { return std::string(FULCRUM_SOURCE_DIR) + "/scenarios/quickstart.yaml"; }

// Prepares `scenario` once, then simulates it once per iteration (no outputs written); items are
// the events processed.
void simulate_repeatedly(benchmark::State& state, const std::string& scenario) {
  const fulcrum::sim::app::RunPlan plan = fulcrum::sim::app::RunPlan::load(
      {.scenario_path = scenario, .data_dir = std::string(FULCRUM_DATA_DIR)});
  std::uint64_t events = 0;
  for (auto _ : state) {
    const fulcrum::sim::RunResult result = plan.simulate();
    events += result.events_processed;
    benchmark::DoNotOptimize(result.power.energy_j);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] =
      benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}

void BM_Run_quickstart_simulation(benchmark::State& state) {
  simulate_repeatedly(state, quickstart());
}
BENCHMARK(BM_Run_quickstart_simulation)->Unit(benchmark::kMillisecond);

// The data-pipeline study's Orin AGX scenario (scenarios/pipeline/orin-agx-gld23k.yaml): 3 epochs
// of MobileNetV3 on GLD-23k with 4 dataloader workers on eMMC, training only -- 4,329 minibatches,
// 69,240 page-cache lookups, and the workers' fetch, pre-processing and CPU-sharing events.
void BM_Run_pipeline_orin_simulation(benchmark::State& state) {
  simulate_repeatedly(state,
                      std::string(FULCRUM_SOURCE_DIR) + "/scenarios/pipeline/orin-agx-gld23k.yaml");
}
BENCHMARK(BM_Run_pipeline_orin_simulation)->Unit(benchmark::kMillisecond);

// The same with what `fulcrum run` adds to every run: a progress function that checks for an
// interrupt at each of the kProgressSteps steps (sim/report/interrupt.hpp).
void BM_Run_quickstart_simulation_interruptible(benchmark::State& state) {
  const fulcrum::sim::app::RunPlan plan = fulcrum::sim::app::RunPlan::load(
      {.scenario_path = quickstart(), .data_dir = std::string(FULCRUM_DATA_DIR)});
  const fulcrum::sim::InterruptHandlers handlers;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const fulcrum::sim::RunResult result = plan.simulate(
        nullptr,
        [](fulcrum::sim::Time, fulcrum::sim::Time) { fulcrum::sim::throw_if_interrupted(); });
    events += result.events_processed;
    benchmark::DoNotOptimize(result.power.energy_j);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}
BENCHMARK(BM_Run_quickstart_simulation_interruptible)->Unit(benchmark::kMillisecond);

void BM_Run_quickstart_with_outputs(benchmark::State& state) {
  namespace fs = std::filesystem;
  const fulcrum::sim::app::RunPlan plan = fulcrum::sim::app::RunPlan::load(
      {.scenario_path = quickstart(), .data_dir = std::string(FULCRUM_DATA_DIR)});
  const fs::path out =
      fs::temp_directory_path() / ("fulcrum-run-bench-" + std::to_string(::getpid()));
  std::uint64_t events = 0;
  for (auto _ : state) {
    fulcrum::sim::OutputWriter writer(out, plan.scenario(), plan.device().rails);
    const fulcrum::sim::RunResult result = plan.simulate(&writer);
    writer.finish(result);
    events += result.events_processed;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  std::error_code ec;
  fs::remove_all(out, ec);
}
BENCHMARK(BM_Run_quickstart_with_outputs)->Unit(benchmark::kMillisecond);

// As `fulcrum run` does it: the simulation with its interrupt checks at the progress steps, every
// file staged beside the output folder, run.json, and the folder published in place of the last
// run's result (which is removed).
void BM_Run_quickstart_published(benchmark::State& state) {
  namespace fs = std::filesystem;
  const fs::path out =
      fs::temp_directory_path() / ("fulcrum-run-bench-published-" + std::to_string(::getpid()));
  std::uint64_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fulcrum::sim::app::RunPlan plan = fulcrum::sim::app::RunPlan::load(
        {.scenario_path = quickstart(), .data_dir = std::string(FULCRUM_DATA_DIR)});
    state.ResumeTiming();
    const fulcrum::sim::app::ScenarioRun r = std::move(plan).run(std::optional<fs::path>(out));
    events += r.result.events_processed;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  std::error_code ec;
  fs::remove_all(out, ec);
}
BENCHMARK(BM_Run_quickstart_published)->Unit(benchmark::kMillisecond);

// A workload read from a file against the built-in one of the same graph: ResNet-18 training
// beside a ResNet-18 inference stream (scenarios/own-model.yaml, 120 s simulated), both from
// models/data/workloads/resnet18-file.yaml or both the built-in resnet18. Each iteration loads
// the plan (scenario, catalogs, model; a workload file is read once per process, as in a study)
// and simulates it.
void load_and_simulate(benchmark::State& state, const std::vector<std::string>& overrides) {
  const std::string scenario = std::string(FULCRUM_SOURCE_DIR) + "/scenarios/own-model.yaml";
  std::uint64_t events = 0;
  for (auto _ : state) {
    const fulcrum::sim::app::RunPlan plan =
        fulcrum::sim::app::RunPlan::load({.scenario_path = scenario,
                                          .overrides = overrides,
                                          .data_dir = std::string(FULCRUM_DATA_DIR)});
    const fulcrum::sim::RunResult result = plan.simulate();
    events += result.events_processed;
    benchmark::DoNotOptimize(result.power.energy_j);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

void BM_Run_resnet18_from_file(benchmark::State& state) {
  load_and_simulate(state, {"training.workload=../models/data/workloads/resnet18-file.yaml",
                            "inference[0].workload=resnet18-file"});
}
BENCHMARK(BM_Run_resnet18_from_file)->Unit(benchmark::kMillisecond);

void BM_Run_resnet18_built_in(benchmark::State& state) {
  load_and_simulate(state, {"training.workload=resnet18", "inference[0].workload=resnet18"});
}
BENCHMARK(BM_Run_resnet18_built_in)->Unit(benchmark::kMillisecond);

// What the file costs once: reading and checking resnet18-file.yaml into its graph, against
// building the built-in graph.
void BM_Workload_resnet18_read_from_file(benchmark::State& state) {
  const std::string path = std::string(FULCRUM_DATA_DIR) + "/workloads/resnet18-file.yaml";
  for (auto _ : state) {
    const fulcrum::sim::WorkloadFile f = fulcrum::sim::load_workload_file(path);
    benchmark::DoNotOptimize(f.workload.parameters());
  }
}
BENCHMARK(BM_Workload_resnet18_read_from_file)->Unit(benchmark::kMicrosecond);

void BM_Workload_resnet18_built(benchmark::State& state) {
  for (auto _ : state) {
    const fulcrum::models::GraphWorkload w = fulcrum::models::architectures::resnet18();
    benchmark::DoNotOptimize(w.parameters());
  }
}
BENCHMARK(BM_Workload_resnet18_built)->Unit(benchmark::kMicrosecond);

}  // namespace
