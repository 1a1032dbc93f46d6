// A study of 1,000 quickstart-sized runs (600 s simulated each, per-event files off), on every
// core: the whole of `fulcrum study` (plans, runs, percentiles, three CSVs, publication).
// Target (issue: research workflow): under 30 s on the 2-core machine. docs/PERFORMANCE.md.
//   BM_Study_quickstart_1000
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/app/study.hpp"

namespace {

void BM_Study_quickstart_1000(benchmark::State& state) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("fulcrum-study-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string study = (dir / "thousand.yaml").string();
  std::ofstream(study) << "version: 1\nname: thousand\nscenario: " << FULCRUM_SOURCE_DIR
                       << "/scenarios/quickstart.yaml\n"
                          "set:\n  inference[0].arrivals.process: poisson\n"
                          "  outputs: {requests: false, minibatches: false, power: false, "
                          "trace: false}\n"
                          "grid:\n  gpu_sharing: [managed, native, sequential, "
                          "{policy: managed, variant: greedy}]\n"
                          "  inference[0].batch_size: [8, 16]\n"
                          "seeds: {from: 1, count: 125}\n";
  std::size_t runs = 0;
  for (auto _ : state) {
    const auto r = fulcrum::sim::app::run_study({.study_path = study, .out_dir = dir / "out"});
    runs += r.rows.size();
  }
  state.counters["runs/s"] =
      benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Study_quickstart_1000)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
