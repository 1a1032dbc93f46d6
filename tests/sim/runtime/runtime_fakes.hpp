// Test doubles for the runtime: a Workload that is only a name, a Backend with hand-set times and
// powers, a three-rail device, and an observer that keeps everything -- so every expected value
// in the runtime tests can be computed by hand.
#pragma once

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "models/device/device_spec.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/workload.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim::testing {

class FakeWorkload final : public models::Workload {
 public:
  explicit FakeWorkload(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  const std::string& task() const override { return task_; }
  double parameters() const override { return 1e6; }
  double forward_flops_per_sample() const override { return 1e9; }
  double input_bytes_per_sample() const override { return 1e5; }
  std::vector<models::LayerWork> layer_work(models::Phase, int) const override { return {}; }

 private:
  std::string name_;
  std::string task_ = "classification";
};

inline models::DeviceSpec fake_device() {
  models::DeviceSpec d;
  d.name = "fake-orin";
  d.rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};
  return d;
}

// Time of an item = fixed_ms + per_sample_ms x batch size; power per rail constant per
// (workload, phase); idle power as set.
class FakePerfModel final : public models::PerfModel {
 public:
  struct Cost {
    double fixed_ms = 0;
    double per_sample_ms = 0;
    std::vector<double> power_w{10, 2, 3};
  };

  void set(const models::Workload& w, models::Phase phase, Cost cost) {
    costs_[{&w, phase}] = std::move(cost);
  }
  void set_idle(std::vector<double> power_w) { idle_w_ = std::move(power_w); }

  std::string name() const override { return "fake"; }
  models::Prediction predict(const models::PerfQuery& q) const override {
    const Cost& c = costs_.at({&q.workload, q.phase});
    return {c.fixed_ms + c.per_sample_ms * q.batch_size, {c.power_w}, models::Provenance::modelled};
  }
  models::RailPower idle_power(const models::DeviceSpec&, const models::PowerMode&) const override {
    return {idle_w_};
  }

 private:
  std::map<std::pair<const models::Workload*, models::Phase>, Cost> costs_;
  std::vector<double> idle_w_{1, 1, 1};
};

// A Backend with FakePerfModel's figures (duration rounded to the nanosecond, energy = power x
// the unrounded time) that records every item it executes. With `sleep`, execute() blocks for
// the item's duration in real time, as a device does; with slowdown_per_call_ms, no two calls
// give the same duration (a runtime that replayed an earlier answer would show).
class FakeBackend final : public backends::Backend {
 public:
  using Cost = FakePerfModel::Cost;

  FakeBackend() : device_(fake_device()) {}

  void set(const models::Workload& w, models::Phase phase, Cost cost) {
    model_.set(w, phase, std::move(cost));
  }
  void set_idle(std::vector<double> power_w) { model_.set_idle(std::move(power_w)); }
  const FakePerfModel& model() const { return model_; }

  const models::DeviceSpec& device() const override { return device_; }
  const backends::Completion& execute(const backends::WorkItem& item) override {
    ++calls;
    executed.push_back(item);
    const models::Prediction p =
        model_.predict({device_, item.mode, *item.workload, item.phase, item.batch_size});
    const double ms = p.time_ms + slowdown_per_call_ms * (calls - 1);
    backends::Completion& done = last_;
    done = backends::Completion{};
    done.duration = std::chrono::nanoseconds(std::llround(ms * 1e6));
    done.rail_energy_j = models::RailValues(p.power.power_w.size());
    for (std::size_t r = 0; r < p.power.power_w.size(); ++r) {
      done.rail_energy_j[r] = p.power.power_w[r] * ms * 1e-3;
    }
    done.module_energy_j = p.power.module_w() * ms * 1e-3;
    if (sleep) std::this_thread::sleep_for(done.duration);
    return done;
  }
  models::RailPower idle_power(const models::PowerMode& mode) override {
    return model_.idle_power(device_, mode);
  }
  bool runs_in_real_time() const override { return sleep; }

  int calls = 0;
  std::vector<backends::WorkItem> executed;
  bool sleep = false;
  double slowdown_per_call_ms = 0;  // call k (from 0) takes k x this longer, as if the GPU warmed

 private:
  models::DeviceSpec device_;
  FakePerfModel model_;
  backends::Completion last_;
};

struct PowerStep {
  Time at;
  std::vector<double> rail_power_w;
};

class RecordingObserver final : public RunObserver {
 public:
  void on_request(const RequestRecord& r) override { requests.push_back(r); }
  void on_item(const ItemRecord& r) override { items.push_back(r); }
  void on_epoch(const EpochRecord& e) override { epochs.push_back(e); }
  void on_power(Time at, const std::vector<double>& w) override { power.push_back({at, w}); }
  void on_queue_length(int stream, Time at, std::size_t queued) override {
    queue_changes.push_back({stream, at, queued});
  }
  void on_end(Time end) override { ended_at = end; }

  struct QueueChange {
    int stream;
    Time at;
    std::size_t queued;
  };
  std::vector<RequestRecord> requests;
  std::vector<ItemRecord> items;
  std::vector<EpochRecord> epochs;
  std::vector<PowerStep> power;
  std::vector<QueueChange> queue_changes;
  Time ended_at = -1;
};

// A scenario with the given duration and policy, no training and no streams yet.
inline Scenario base_scenario(double duration_s, SharingPolicy policy = SharingPolicy::managed) {
  Scenario s;
  s.name = "test";
  s.seed = 7;
  s.duration_s = duration_s;
  s.gpu_sharing.policy = policy;
  return s;
}

inline InferenceStreamSpec stream_spec(std::string name, int batch_size, ArrivalSpec arrivals,
                                       std::optional<double> max_wait_ms = std::nullopt) {
  InferenceStreamSpec s;
  s.name = std::move(name);
  s.workload = "fake-infer";
  s.batch_size = batch_size;
  s.max_wait_ms = max_wait_ms;
  s.arrivals = std::move(arrivals);
  return s;
}

inline TrainingSpec training_spec(int batch_size, std::optional<int> epochs = std::nullopt) {
  TrainingSpec t;
  t.workload = "fake-train";
  t.dataset = "fake-data";
  t.batch_size = batch_size;
  t.epochs = epochs;
  return t;
}

// Owns everything a RunSetup points to.
struct Harness {
  Scenario scenario;
  models::DeviceSpec device = fake_device();
  FakeWorkload train{"fake-train"};
  FakeWorkload infer{"fake-infer"};
  FakeBackend backend;
  double dataset_samples = 0;

  // What run() runs; points into this Harness.
  RunSetup setup() const {
    RunSetup setup;
    setup.scenario = &scenario;
    setup.device = &device;
    setup.training_workload = scenario.training ? &train : nullptr;
    setup.training_dataset_samples = dataset_samples;
    for (std::size_t i = 0; i < scenario.inference.size(); ++i) {
      setup.inference_workloads.push_back(&infer);
    }
    setup.perf_model = &backend.model();
    return setup;
  }

  RunResult run(RunObserver* observer = nullptr, ProgressFn progress = {}) {
    return sim::run(setup(), backend, observer, std::move(progress));
  }
};

// Greedy managed sharing, one training job and one stream. Training 80 ms per minibatch;
// inference batches of 4 at 100 requests/s (a batch fills in 30 ms) taking 20 ms.
inline Harness managed_greedy_harness(double duration_s) {
  Harness h;
  h.scenario = base_scenario(duration_s, SharingPolicy::managed);
  h.scenario.gpu_sharing.variant = ManagedVariant::greedy;
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 4, FixedArrivals{100}));
  h.backend.set(h.train, models::Phase::training, {80, 0, {20, 4, 6}});
  h.backend.set(h.infer, models::Phase::inference, {20, 0, {15, 3, 5}});
  return h;
}

}  // namespace fulcrum::sim::testing
