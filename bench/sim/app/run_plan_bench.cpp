// Speed of one quickstart run (600 s simulated, 100 requests/s, concurrent training): the
// simulation alone on the real SimulatedBackend (with and without the interrupt checks `fulcrum
// run` adds), with every output file written, and published as `fulcrum run` does it.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "sim/app/run_plan.hpp"
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

}  // namespace
