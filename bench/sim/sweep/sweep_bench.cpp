// Sweep throughput on the measured Orin AGX tables (needs FULCRUM_REFERENCE_DIR; skipped
// without it): a whole small sweep and one shard of the paper-scale sweep, every strategy of the
// file, on `threads` threads. The counter is configurations per second; docs/SEARCH.md
// extrapolates the paper-scale wall time from the shards.
//   BM_Sweep/eval/1                 scenarios/sweeps/eval-equal-profiling.yaml, 704 configurations
//   BM_Sweep/paper_shard/1/16/2     paper-scale.yaml --shard 1/16 (one-stream sets), 2 threads
//   BM_Sweep/paper_shard/16/16/2    paper-scale.yaml --shard 16/16 (two-stream sets), 2 threads
#include <benchmark/benchmark.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace {

using namespace fulcrum::sim::sweep;

void run(benchmark::State& state, const std::string& file, std::size_t shard, std::size_t shards,
         unsigned threads) {
  const std::string measurements = std::string(FULCRUM_REFERENCE_DIR) + "/measurements";
  if (!std::filesystem::exists(measurements)) {
    state.SkipWithError("no reference measurements (FULCRUM_REFERENCE_DIR)");
    return;
  }
  const SweepSpec spec = load_sweep(std::string(FULCRUM_SOURCE_DIR) + "/scenarios/sweeps/" + file,
                                    fulcrum::sim::search::strategy_registry().names());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, measurements);
  std::size_t configurations = 0;
  for (auto _ : state) {
    std::ostringstream csv;
    const SweepSummary s =
        run_sweep(spec, truths, {.threads = threads, .shard = shard, .shards = shards}, csv);
    configurations += s.configurations;
    benchmark::DoNotOptimize(csv.str().size());
  }
  state.counters["configurations/s"] =
      benchmark::Counter(static_cast<double>(configurations), benchmark::Counter::kIsRate);
}

void BM_Sweep_eval(benchmark::State& state) {
  run(state, "eval-equal-profiling.yaml", 1, 1, static_cast<unsigned>(state.range(0)));
}
BENCHMARK(BM_Sweep_eval)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

void BM_Sweep_paper_shard(benchmark::State& state) {
  run(state, "paper-scale.yaml", static_cast<std::size_t>(state.range(0)),
      static_cast<std::size_t>(state.range(1)), static_cast<unsigned>(state.range(2)));
}
BENCHMARK(BM_Sweep_paper_shard)
    ->Args({1, 16, 2})
    ->Args({16, 16, 2})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
