// PowerTrain on the measured Orin AGX modes: training the resnet18 reference (both networks, all
// 4,368 modes, 100 epochs; target < 10 s), transfer to mobilenet_v3 from 50 modes (target < 1 s)
// and predicting every mode. Reads the reference measurements in place ($FULCRUM_REFERENCE_DIR,
// else ../shared/reference beside the source tree); reports an error without them.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "models/learn/mode_predictor.hpp"
#include "models/perf/profile_csv.hpp"

using namespace fulcrum::models;

namespace {

std::string training_csv() {
  const char* env = std::getenv("FULCRUM_REFERENCE_DIR");
  const std::string dir =
      env != nullptr ? env : std::string(FULCRUM_SOURCE_DIR) + "/../shared/reference";
  return dir + "/measurements/orin-agx-training-modes.csv";
}

std::vector<ModeMeasurement> rows_of(const std::string& workload) {
  std::vector<ModeMeasurement> rows;
  const std::string csv = training_csv();
  if (!std::filesystem::exists(csv)) return rows;
  for (const ProfileRow& r : read_profile_csv(csv).rows) {
    if (r.workload == workload) {
      rows.push_back({{r.cores, r.cpu_khz, r.gpu_hz, r.emc_hz, 8}, *r.time_ms / 1e3, r.power_w});
    }
  }
  return rows;
}

const std::vector<ModeMeasurement>& resnet18() {
  static const std::vector<ModeMeasurement> rows = rows_of("resnet18");
  return rows;
}

const std::vector<ModeMeasurement>& mobilenet() {
  static const std::vector<ModeMeasurement> rows = rows_of("mobilenet_v3");
  return rows;
}

const MlpModePredictor& reference() {
  static const MlpModePredictor p =
      load_mode_predictor(std::string(FULCRUM_DATA_DIR) + "/" + kPowertrainReferenceWeights);
  return p;
}

void BM_PowerTrain_reference_training(benchmark::State& state) {
  if (resnet18().empty()) {
    state.SkipWithError("reference measurements not found (set FULCRUM_REFERENCE_DIR)");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(fit_mode_predictor(resnet18(), ModeFitOptions{}, 1));
  }
  state.counters["modes"] = static_cast<double>(resnet18().size());
}
BENCHMARK(BM_PowerTrain_reference_training)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_PowerTrain_transfer(benchmark::State& state) {
  if (mobilenet().empty()) {
    state.SkipWithError("reference measurements not found (set FULCRUM_REFERENCE_DIR)");
    return;
  }
  const auto k = static_cast<std::size_t>(state.range(0));
  Rng rng = RngStreams(1).stream("bench/sample");
  const std::vector<int> order = permutation(static_cast<int>(mobilenet().size()), rng);
  std::vector<ModeMeasurement> sample;
  for (std::size_t i = 0; i < k; ++i)
    sample.push_back(mobilenet()[static_cast<std::size_t>(order[i])]);
  for (auto _ : state) {
    benchmark::DoNotOptimize(transfer_mode_predictor(reference(), sample, ModeFitOptions{}, 1));
  }
}
BENCHMARK(BM_PowerTrain_transfer)
    ->Arg(10)
    ->Arg(50)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_MlpModePredictor_predict_all(benchmark::State& state) {
  if (resnet18().empty()) {
    state.SkipWithError("reference measurements not found (set FULCRUM_REFERENCE_DIR)");
    return;
  }
  std::vector<PowerMode> modes;
  for (const ModeMeasurement& m : resnet18()) modes.push_back(m.mode);
  for (auto _ : state) benchmark::DoNotOptimize(reference().predict_all(modes));
  state.counters["modes"] = static_cast<double>(modes.size());
}
BENCHMARK(BM_MlpModePredictor_predict_all)->Unit(benchmark::kMillisecond);

}  // namespace
