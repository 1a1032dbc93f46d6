// The quickstart scenario (600 s, 100 requests/s fixed, ResNet-50 inference in batches of 16,
// MobileNetV3 training in minibatches of 16, managed sharing) on the simulated backend over a
// model with fixed figures near the quickstart's, so the figure measures the runtime and the
// backend's per-item execution, independent of the analytic model's cost. Each managed variant
// (argument 0: windowed, the default; 1: greedy), with fixed and with Poisson arrivals (windowed
// then computes a Gamma quantile per boundary, cached per missing request count). And the
// policy made by a factory (GpuSharingPolicyFactory, the way a Python policy is given): the
// windowed rule written outside the runtime, counting its decisions, for the cost per decision
// that bench/python_run.py compares a Python policy with.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/simulated_backend.hpp"
#include "sim/runtime/exclusive_policy.hpp"
#include "sim/runtime/runner.hpp"
#include "tests/sim/runtime/runtime_fakes.hpp"

namespace {

using namespace fulcrum;

// Windowed managed interleaving as a policy from outside the runtime (ManagedPolicy's rule),
// counting its decisions (pick_next calls).
class CountingWindowed final : public sim::ExclusivePolicy<CountingWindowed> {
 public:
  CountingWindowed(sim::GpuHost& host, std::uint64_t& decisions)
      : ExclusivePolicy(host), decisions_(decisions) {}
  std::optional<int> pick_next() {
    ++decisions_;
    if (std::optional<int> c = host_.oldest_ready_inference()) return c;
    const std::optional<int> t = host_.training_context();
    if (!t || !host_.has_ready_work(*t)) return std::nullopt;
    const sim::Time done = host_.now() + host_.predicted_duration(*t);
    for (int c = 0; c < host_.context_count(); ++c) {
      if (c != *t && host_.next_ready_bound(c) < done) return std::nullopt;
    }
    return t;
  }

 private:
  std::uint64_t& decisions_;
};

void run_quickstart(benchmark::State& state, const sim::ArrivalSpec& arrivals,
                    bool from_factory = false) {
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
  std::uint64_t decisions = 0;
  sim::GpuSharingPolicyFactory factory;
  if (from_factory) {
    factory = [&decisions](sim::GpuHost& host) {
      return std::make_unique<CountingWindowed>(host, decisions);
    };
  }
  for (auto _ : state) {
    decisions = 0;
    sim::RunResult result = sim::run(setup, backend, nullptr, {}, factory);
    events = result.events_processed;
    benchmark::DoNotOptimize(result);
  }
  if (from_factory) state.counters["decisions"] = static_cast<double>(decisions);
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

// Windowed, the policy made by a factory (argument 0 = windowed, for run_quickstart's label).
void BM_Runtime_quickstart_policy_factory(benchmark::State& state) {
  run_quickstart(state, sim::FixedArrivals{100}, true);
}
BENCHMARK(BM_Runtime_quickstart_policy_factory)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
