// MinibatchProfiler: the published method on a scripted backend (first minibatch discarded,
// median of N, power from energy over time, clocks set once per mode, settle only in real time),
// power metered after it settles over windows of back-to-back minibatches (a fake meter and the
// fake NVML library), and NoisyBackend (seeded, power-preserving perturbation).
#include "backends/hardware/minibatch_profiler.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>
#include <thread>

#include "backends/hardware/noisy_backend.hpp"
#include "backends/hardware/nvml_power_meter.hpp"
#include "models/error.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/input_error.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using models::Phase;

namespace {

models::DeviceSpec two_rail_device() {
  models::DeviceSpec d;
  d.name = "test-device";
  d.rails = {"GPU", "CPU"};
  return d;
}

// A GPU with one rail, for the fakes of metered real-time backends below.
models::DeviceSpec one_rail_gpu() {
  models::DeviceSpec d;
  d.name = "gpu";
  d.rails = {"GPU"};
  return d;
}

// Answers with scripted (ms, GPU W, CPU W) per call, in order, the last step repeated for ever;
// records the modes.
class ScriptedBackend final : public Backend {
 public:
  struct Step {
    double ms, gpu_w, cpu_w;
  };
  ScriptedBackend(std::deque<Step> steps, bool real_time)
      : steps_(std::move(steps)), real_time_(real_time) {}
  const models::DeviceSpec& device() const override { return device_; }
  const Completion& execute(const WorkItem& item) override {
    modes.push_back(item.mode);
    const Step s = steps_.front();
    if (steps_.size() > 1) steps_.pop_front();
    last_.duration = std::chrono::microseconds(static_cast<long>(s.ms * 1e3));
    last_.rail_energy_j = {s.gpu_w * s.ms / 1e3, s.cpu_w * s.ms / 1e3};
    last_.module_energy_j = (s.gpu_w + s.cpu_w) * s.ms / 1e3;
    last_.provenance = models::Provenance::measured;
    return last_;
  }
  models::RailPower idle_power(const models::PowerMode&) override { return {{1, 1}}; }
  bool runs_in_real_time() const override { return real_time_; }
  std::vector<LayerTime> last_layer_times() const override { return layers; }
  std::vector<models::PowerMode> modes;
  std::vector<LayerTime> layers;

 private:
  models::DeviceSpec device_ = two_rail_device();
  std::deque<Step> steps_;
  bool real_time_;
  Completion last_;
};

// Records the modes it was asked to set.
class RecordingClocks final : public ClockControl {
 public:
  explicit RecordingClocks(bool can) : can_(can) {}
  std::string name() const override { return "recording"; }
  bool can_change() const override { return can_; }
  ClockReading read() const override { return {}; }
  std::vector<ClockWrite> plan(const models::PowerMode&) const override { return {}; }
  ClockChange set(const models::PowerMode& mode) override {
    set_modes.push_back(mode);
    return {};
  }
  void restore() override {}
  std::vector<models::PowerMode> set_modes;

 private:
  bool can_;
};

const models::Workload& resnet50() { return models::workload_catalog().get("resnet50"); }

}  // namespace

TEST_CASE("the median is the middle value, or the mean of the two middle ones") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({7}) == 7);
}

TEST_CASE("the first minibatch is discarded and the median of the next N is reported") {
  // A slow first minibatch (400 ms) then 10, 30, 20 ms: median 20 ms. Module power per
  // minibatch 5+1, 7+1, 6+1 W: median 7 W; GPU rail median 6 W, CPU rail 1 W.
  ScriptedBackend backend({{400, 50, 1}, {10, 5, 1}, {30, 7, 1}, {20, 6, 1}}, false);
  MinibatchProfiler profiler(backend, nullptr, {.repeats = 3, .discard = 1});
  const models::PowerMode mode{.cores = 4, .cpu_khz = 1e6, .gpu_hz = 5e8, .emc_hz = 2e9};
  const ProfileMeasurement m = profiler.measure({&resnet50(), Phase::inference, 16}, mode);
  CHECK(m.workload == "resnet50");
  CHECK(m.batch_size == 16);
  CHECK(m.time_ms == Approx(20));
  CHECK(m.power_w == Approx(7));
  REQUIRE(m.rail_power_w.size() == 2);
  CHECK(m.rail_power_w[0] == Approx(6));
  CHECK(m.rail_power_w[1] == Approx(1));
  CHECK(m.minibatches == 3);
  CHECK(m.time_min_ms == Approx(10));
  CHECK(m.time_max_ms == Approx(30));
  CHECK(backend.modes.size() == 4);
  CHECK(backend.modes.back() == mode);
  CHECK(m.layer_times.empty());  // the backend timed no layers

  // A backend that times layers: the point keeps those of its last minibatch.
  backend.layers = {{"conv1", 1.5, 2.5}, {"fc", 0.25, 0}};
  const ProfileMeasurement timed = profiler.measure({&resnet50(), Phase::training, 16}, mode);
  REQUIRE(timed.layer_times.size() == 2);
  CHECK(timed.layer_times[0].layer == "conv1");
  CHECK(timed.layer_times[0].backward_ms == 2.5);
  CHECK(timed.layer_times[1].forward_ms == 0.25);
}

TEST_CASE("clocks that can change are set once per mode; read-only ones never") {
  const models::PowerMode a{.cores = 4, .cpu_khz = 1e6, .gpu_hz = 5e8, .emc_hz = 2e9};
  const models::PowerMode b{.cores = 8, .cpu_khz = 1e6, .gpu_hz = 5e8, .emc_hz = 2e9};
  std::deque<ScriptedBackend::Step> steps(6, {10, 1, 1});
  {
    ScriptedBackend backend(steps, false);
    RecordingClocks clocks(true);
    MinibatchProfiler profiler(backend, &clocks, {.repeats = 1, .discard = 0});
    profiler.measure({&resnet50(), Phase::inference, 1}, a);
    profiler.measure({&resnet50(), Phase::training, 1}, a);
    profiler.measure({&resnet50(), Phase::inference, 1}, b);
    CHECK(clocks.set_modes == std::vector<models::PowerMode>{a, b});
  }
  ScriptedBackend backend(steps, false);
  RecordingClocks clocks(false);
  MinibatchProfiler profiler(backend, &clocks, {.repeats = 1, .discard = 0});
  profiler.measure({&resnet50(), Phase::inference, 1}, a);
  CHECK(clocks.set_modes.empty());
}

TEST_CASE("the settle wait happens only on a backend that runs in real time, with check points",
          "[wall]") {
  const models::PowerMode a{.cores = 4, .cpu_khz = 1e6, .gpu_hz = 5e8, .emc_hz = 2e9};
  int checks = 0;
  const ProfilerOptions options{.repeats = 1,
                                .discard = 0,
                                .settle = std::chrono::milliseconds(250),
                                .check_point = [&checks] { ++checks; }};
  {
    ScriptedBackend backend({{10, 1, 1}}, false);
    MinibatchProfiler profiler(backend, nullptr, options);
    profiler.measure({&resnet50(), Phase::inference, 1}, a);
    CHECK(checks == 1);  // the one minibatch's check point, no settle
  }
  checks = 0;
  ScriptedBackend backend({{10, 1, 1}}, true);
  MinibatchProfiler profiler(backend, nullptr, options);
  const auto start = std::chrono::steady_clock::now();
  profiler.measure({&resnet50(), Phase::inference, 1}, a);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(250));
  // At least one per 100 ms step of the idle wait, then the settle's 25 back-to-back
  // minibatches of 10 ms (250 ms of their time) and the measured one.
  CHECK(checks >= 2 + 25 + 1);
  CHECK(profiler.measure({&resnet50(), Phase::training, 1}, a).settle_minibatches == 25);
}

namespace {

// A device whose power rises under load as a GPU's does: `cold_runs` minibatches at cold_w, then
// hot_w. Its own per-item energy always says cold_w (a figure metered too early); the true energy
// goes to a counter that RampMeter reads, as NVML's energy counter is read.
class RampBackend final : public Backend {
 public:
  RampBackend(int cold_runs, double cold_w, double hot_w)
      : cold_runs_(cold_runs), cold_w_(cold_w), hot_w_(hot_w) {}
  const models::DeviceSpec& device() const override { return device_; }
  const Completion& execute(const WorkItem&) override {
    const double s = 0.010;
    energy_j += (runs++ < cold_runs_ ? cold_w_ : hot_w_) * s;
    time_s += s;
    last_.duration = std::chrono::milliseconds(10);
    last_.module_energy_j = cold_w_ * s;
    last_.rail_energy_j = {cold_w_ * s};
    return last_;
  }
  models::RailPower idle_power(const models::PowerMode&) override { return {{1}}; }
  bool runs_in_real_time() const override { return true; }
  int runs = 0;
  double energy_j = 0, time_s = 0;

 private:
  models::DeviceSpec device_ = one_rail_gpu();
  int cold_runs_;
  double cold_w_, hot_w_;
  Completion last_;
};

class RampMeter final : public PowerMeter {
 public:
  explicit RampMeter(const RampBackend& backend) : backend_(backend) {}
  std::string name() const override { return "ramp"; }
  std::chrono::nanoseconds sampling_interval() const override { return {}; }
  const std::vector<std::string>& rail_names() const override { return rails_; }
  void start() override {
    start_j_ = backend_.energy_j;
    start_s_ = backend_.time_s;
    ++windows;
  }
  EnergyReading stop() override {
    EnergyReading r;
    r.duration_s = backend_.time_s - start_s_;
    r.module_energy_j = backend_.energy_j - start_j_;
    r.rail_energy_j = {r.module_energy_j};
    return r;
  }
  int windows = 0;

 private:
  const RampBackend& backend_;
  std::vector<std::string> rails_{"GPU"};
  double start_j_ = 0, start_s_ = 0;
};

}  // namespace

TEST_CASE("power is metered after it settles, over windows of back-to-back minibatches") {
  const models::PowerMode a{.cores = 4, .cpu_khz = 1e6, .gpu_hz = 5e8, .emc_hz = 2e9};
  // 150 cold minibatches (1.5 s at 100 W), then 400 W. Settle 2 s of back-to-back minibatches
  // (200 of 10 ms) takes the device past its ramp; each of the N = 4 windows is 25 minibatches.
  RampBackend backend(150, 100, 400);
  RampMeter meter(backend);
  MinibatchProfiler profiler(backend, nullptr,
                             {.repeats = 4,
                              .discard = 1,
                              .settle = std::chrono::seconds(2),
                              .meter = &meter,
                              .window = std::chrono::milliseconds(250)});
  const ProfileMeasurement m = profiler.measure({&resnet50(), Phase::inference, 16}, a);
  CHECK(m.power_w == Approx(400));
  REQUIRE(m.rail_power_w.size() == 1);
  CHECK(m.rail_power_w[0] == Approx(400));
  CHECK(m.time_ms == Approx(10));
  CHECK(m.minibatches == 4);
  CHECK(m.settle_minibatches == 200);
  CHECK(m.metered_minibatches == 100);
  CHECK(meter.windows == 4);
  CHECK(backend.runs == 1 + 200 + 100);

  // Without a meter the backend's own figure stands, whatever it is; without the settle the
  // meter sees the ramp (the method before: power metered over the item's first second).
  RampBackend early(150, 100, 400);
  CHECK(MinibatchProfiler(early, nullptr, {.repeats = 4, .discard = 1})
            .measure({&resnet50(), Phase::inference, 16}, a)
            .power_w == Approx(100));
  RampBackend unsettled(150, 100, 400);
  RampMeter unsettled_meter(unsettled);
  CHECK(MinibatchProfiler(unsettled, nullptr,
                          {.repeats = 4,
                           .discard = 1,
                           .meter = &unsettled_meter,
                           .window = std::chrono::milliseconds(250)})
            .measure({&resnet50(), Phase::inference, 16}, a)
            .power_w == Approx(100));
}

TEST_CASE("a backend that does not run in real time is never metered by the profiler") {
  ScriptedBackend backend({{10, 5, 1}}, false);
  RampBackend other(0, 1, 1);
  RampMeter meter(other);
  const ProfileMeasurement m =
      MinibatchProfiler(backend, nullptr, {.repeats = 3, .discard = 0, .meter = &meter})
          .measure({&resnet50(), Phase::inference, 1}, {});
  CHECK(meter.windows == 0);
  CHECK(m.power_w == Approx(6));
  CHECK(m.metered_minibatches == 0);
}

TEST_CASE("the profiler reads NVML's energy counter over each window (fake NVML library)",
          "[wall]") {
  // A backend that takes 5 ms of real time per minibatch and claims 999 W; the fake counter
  // advances 1 J per read, so each window of >= 50 ms reads 1 J: at most 20 W.
  class SleepyBackend final : public Backend {
   public:
    const models::DeviceSpec& device() const override { return device_; }
    const Completion& execute(const WorkItem&) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      last_.duration = std::chrono::milliseconds(5);
      last_.module_energy_j = 999 * 0.005;
      last_.rail_energy_j = {last_.module_energy_j};
      return last_;
    }
    models::RailPower idle_power(const models::PowerMode&) override { return {{1}}; }
    bool runs_in_real_time() const override { return true; }

   private:
    models::DeviceSpec device_ = one_rail_gpu();
    Completion last_;
  } backend;
  NvmlPowerMeter meter(
      {.sampling_interval = std::chrono::milliseconds(2), .nvml_library = FULCRUM_FAKE_NVML});
  const ProfileMeasurement m =
      MinibatchProfiler(
          backend, nullptr,
          {.repeats = 3, .discard = 0, .meter = &meter, .window = std::chrono::milliseconds(50)})
          .measure({&resnet50(), Phase::inference, 1}, {});
  CHECK(m.power_w <= 20.0);
  CHECK(m.power_w > 2.0);  // a window of 1 J lasts well under half a second
  CHECK(m.metered_minibatches >= 30);
  REQUIRE(m.rail_power_w.size() == 1);
  CHECK(m.rail_power_w[0] == Approx(m.power_w));
}

TEST_CASE("the profiler refuses N < 1 and a negative discard") {
  ScriptedBackend backend({}, false);
  CHECK(fulcrum::testing::error_of([&] {
          MinibatchProfiler(backend, nullptr, {.repeats = 0});
        }).key_path() == "--repeats");
  CHECK(fulcrum::testing::error_of([&] {
          MinibatchProfiler(backend, nullptr, {.repeats = 1, .discard = -1});
        }).key_path() == "--discard");
}

TEST_CASE("the noisy backend is seeded, keeps power, and centres its factor on 1") {
  const models::DeviceSpec device = two_rail_device();
  const auto make = [](double sigma, std::uint64_t seed) {
    std::deque<ScriptedBackend::Step> steps(2000, {20, 6, 2});
    return NoisyBackend(std::make_unique<ScriptedBackend>(steps, false),
                        {.sigma = sigma, .seed = seed});
  };
  NoisyBackend a = make(0.1, 7), b = make(0.1, 7), c = make(0.1, 8), none = make(0, 7);
  const WorkItem item{&resnet50(), Phase::inference, 1, {}};
  double log_sum = 0;
  bool differs_from_other_seed = false;
  int same_seed_differs = 0, noiseless_differs = 0, power_changed = 0;
  for (int k = 0; k < 2000; ++k) {
    const Completion ca = a.execute(item);
    same_seed_differs += ca.duration != b.execute(item).duration;
    differs_from_other_seed |= ca.duration != c.execute(item).duration;
    noiseless_differs += none.execute(item).duration != std::chrono::milliseconds(20);
    const double s = std::chrono::duration<double>(ca.duration).count();
    power_changed += std::abs(ca.module_energy_j / s - 8.0) > 1e-9 ||
                     std::abs(ca.rail_energy_j[0] / s - 6.0) > 1e-9;
    log_sum += std::log(s / 0.020);
  }
  CHECK(same_seed_differs == 0);
  CHECK(noiseless_differs == 0);
  CHECK(power_changed == 0);
  CHECK(differs_from_other_seed);
  // The mean of 2000 normal draws with sigma 0.1 is within 4 standard errors (0.009) of 0.
  CHECK(std::abs(log_sum / 2000) < 0.009);
  CHECK(fulcrum::testing::error_of([&] { make(-1, 1); }).key_path() == "--noise");
}
