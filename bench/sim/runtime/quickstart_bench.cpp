// The quickstart scenario (600 s, 100 requests/s fixed, ResNet-50 inference in batches of 16,
// MobileNetV3 training in minibatches of 16, managed sharing) on the simulated backend over a
// model with fixed figures near the quickstart's, so the figure measures the runtime and the
// backend's per-item execution, independent of the analytic model's cost. Each managed variant
// (argument 0: windowed, the default; 1: greedy), with fixed and with Poisson arrivals (windowed
// then computes a Gamma quantile per boundary, cached per missing request count).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "backends/simulated_backend.hpp"
#include "sim/runtime/runner.hpp"
#include "tests/sim/runtime/runtime_fakes.hpp"

namespace {

using namespace fulcrum;

void run_quickstart(benchmark::State& state, const sim::ArrivalSpec& arrivals) {
  sim::Scenario scenario;
  scenario.name = "quickstart";
  scenario.seed = 7;
  scenario.duration_s = 600;
  scenario.gpu_sharing.policy = sim::SharingPolicy::managed;
  scenario.gpu_sharing.variant =
      state.range(0) == 0 ? sim::ManagedVariant::windowed : sim::ManagedVariant::greedy;
  state.SetLabel(sim::to_string(scenario.gpu_sharing.variant));
  sim::TrainingSpec training;
  training.workload = "mobilenetv3-large";
  training.dataset = "gld23k";
  training.batch_size = 16;
  scenario.training = training;
  sim::InferenceStreamSpec stream;
  stream.name = "resnet50-0";
  stream.workload = "resnet50";
  stream.batch_size = 16;
  stream.arrivals = arrivals;
  scenario.inference.push_back(stream);
  scenario.budgets.latency_ms = 250;
  scenario.budgets.power_w = 30;

  // The quickstart's minibatch times: training 82.12 ms at 28 W; ResNet-50 inference 51.561 ms
  // per batch of 16 (linear in batch size) at 31 W.
  sim::testing::FakeWorkload mobilenet("mobilenetv3-large");
  sim::testing::FakeWorkload resnet("resnet50");
  sim::testing::FakePerfModel model;
  model.set(mobilenet, models::Phase::training, {82.12, 0, {18, 4, 6}});
  model.set(resnet, models::Phase::inference, {0, 51.561 / 16.0, {20, 4, 7}});
  model.set_idle({5, 2, 4});
  const models::DeviceSpec device = sim::testing::fake_device();
  backends::SimulatedBackend backend(device, model);

  sim::RunSetup setup;
  setup.scenario = &scenario;
  setup.device = &device;
  setup.perf_model = &model;
  setup.training_workload = &mobilenet;
  setup.training_dataset_samples = 23'080;
  setup.inference_workloads = {&resnet};

  std::uint64_t events = 0;
  for (auto _ : state) {
    sim::RunResult result = sim::run(setup, backend);
    events = result.events_processed;
    benchmark::DoNotOptimize(result);
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_Runtime_quickstart(benchmark::State& state) {
  run_quickstart(state, sim::FixedArrivals{100});
}
BENCHMARK(BM_Runtime_quickstart)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Runtime_quickstart_poisson(benchmark::State& state) {
  run_quickstart(state, sim::PoissonArrivals{100});
}
BENCHMARK(BM_Runtime_quickstart_poisson)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
