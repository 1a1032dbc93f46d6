// The quickstart scenario (600 s, 100 requests/s fixed, ResNet-50 inference in batches of 16,
// MobileNetV3 training in minibatches of 16, managed sharing) on a backend with the quickstart's
// fitted durations, so the figure measures the runtime alone, independent of the model.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "sim/runtime/runner.hpp"

namespace {

using namespace fulcrum;

class NamedWorkload final : public models::Workload {
 public:
  explicit NamedWorkload(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  const std::string& task() const override { return name_; }
  double parameters() const override { return 0; }
  double forward_flops_per_sample() const override { return 0; }
  double input_bytes_per_sample() const override { return 0; }
  std::vector<models::LayerWork> layer_work(models::Phase, int) const override { return {}; }

 private:
  std::string name_;
};

// Training minibatch 82.12 ms at 28 W; ResNet-50 inference batch of 16 in 51.561 ms at 31 W.
class QuickstartBackend final : public backends::Backend {
 public:
  explicit QuickstartBackend(models::DeviceSpec device) : device_(std::move(device)) {}
  const models::DeviceSpec& device() const override { return device_; }
  backends::Completion execute(const backends::WorkItem& item) override {
    const bool training = item.phase == models::Phase::training;
    const double ms = training ? 82.12 : 51.561 * item.batch_size / 16.0;
    const std::vector<double> watts =
        training ? std::vector<double>{18, 4, 6} : std::vector<double>{20, 4, 7};
    backends::Completion done;
    done.duration = std::chrono::nanoseconds(std::llround(ms * 1e6));
    for (double w : watts) done.rail_energy_j.push_back(w * ms * 1e-3);
    return done;
  }
  models::RailPower idle_power(const models::PowerMode&) override { return {{5, 2, 4}}; }

 private:
  models::DeviceSpec device_;
};

void BM_Runtime_quickstart(benchmark::State& state) {
  sim::Scenario scenario;
  scenario.name = "quickstart";
  scenario.seed = 7;
  scenario.duration_s = 600;
  scenario.gpu_sharing.policy = sim::SharingPolicy::managed;
  sim::TrainingSpec training;
  training.workload = "mobilenetv3-large";
  training.dataset = "gld23k";
  training.batch_size = 16;
  scenario.training = training;
  sim::InferenceStreamSpec stream;
  stream.name = "resnet50-0";
  stream.workload = "resnet50";
  stream.batch_size = 16;
  stream.arrivals = sim::FixedArrivals{100};
  scenario.inference.push_back(stream);
  scenario.budgets.latency_ms = 250;
  scenario.budgets.power_w = 30;

  models::DeviceSpec device;
  device.name = "orin-agx-64gb";
  device.rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};
  NamedWorkload mobilenet("mobilenetv3-large");
  NamedWorkload resnet("resnet50");
  QuickstartBackend backend(device);

  sim::RunSetup setup;
  setup.scenario = &scenario;
  setup.device = &device;
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
BENCHMARK(BM_Runtime_quickstart)->Unit(benchmark::kMillisecond);

}  // namespace
