// Speed of one quickstart run (600 s simulated, 100 requests/s, concurrent training): the
// simulation alone on the real SimulatedBackend, and with every output file written.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "sim/cli/scenario_run.hpp"
#include "sim/report/output_writer.hpp"

namespace {

std::string quickstart() { return std::string(FULCRUM_SOURCE_DIR) + "/scenarios/quickstart.yaml"; }

void BM_Run_quickstart_simulation(benchmark::State& state) {
  fulcrum::sim::RunOptions options;
  options.data_dir = std::string(FULCRUM_DATA_DIR);
  fulcrum::sim::PreparedRun prepared = fulcrum::sim::prepare_run(quickstart(), options);
  std::uint64_t events = 0;
  for (auto _ : state) {
    const fulcrum::sim::RunResult result = fulcrum::sim::simulate(prepared);
    events += result.events_processed;
    benchmark::DoNotOptimize(result.power.energy_j);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] =
      benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_Run_quickstart_simulation)->Unit(benchmark::kMillisecond);

void BM_Run_quickstart_with_outputs(benchmark::State& state) {
  namespace fs = std::filesystem;
  fulcrum::sim::RunOptions options;
  options.data_dir = std::string(FULCRUM_DATA_DIR);
  fulcrum::sim::PreparedRun prepared = fulcrum::sim::prepare_run(quickstart(), options);
  const fs::path out =
      fs::temp_directory_path() / ("fulcrum-run-bench-" + std::to_string(::getpid()));
  std::uint64_t events = 0;
  for (auto _ : state) {
    fulcrum::sim::OutputWriter writer(out, prepared.resolved.scenario,
                                      prepared.resolved.device->rails);
    const fulcrum::sim::RunResult result = fulcrum::sim::simulate(prepared, &writer);
    writer.finish(result);
    events += result.events_processed;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  std::error_code ec;
  fs::remove_all(out, ec);
}
BENCHMARK(BM_Run_quickstart_with_outputs)->Unit(benchmark::kMillisecond);

}  // namespace
