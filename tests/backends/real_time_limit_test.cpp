// RealTimeLimit: an emulated item's real-time sleep ends at the run's end (a deadline) and at a
// stop (an interrupt), alone and on a time-sliced GPU, and the item then says it was cut short.
// The bounds are loose (seconds against items of a minute) so that they hold on a loaded
// machine; the lower bounds are certain.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <latch>
#include <memory>
#include <thread>

#include "backends/hardware/noisy_backend.hpp"
#include "backends/simulated_backend.hpp"
#include "backends/time_slicer.hpp"
#include "models/error.hpp"
#include "models/workload/workload_catalog.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Every item takes `ms` at 10 W on one rail.
struct Fixed final : models::PerfModel {
  explicit Fixed(double ms) : ms(ms) {}
  double ms;
  std::string name() const override { return "fixed"; }
  models::Prediction predict(const models::PerfQuery&) const override {
    return {ms, {{10.0}}, models::Provenance::modelled};
  }
  models::RailPower idle_power(const models::DeviceSpec&, const models::PowerMode&) const override {
    return {{1.0}};
  }
};

models::DeviceSpec one_rail_device() {
  models::DeviceSpec d;
  d.name = "test-device";
  d.rails = {"GPU"};
  return d;
}

WorkItem an_item() {
  return {&models::workload_catalog().get("resnet50"), models::Phase::training, 1, {}};
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

TEST_CASE("an emulated item's sleep ends at the limit's deadline, reporting its whole time",
          "[real_time_limit][wall]") {
  const models::DeviceSpec d = one_rail_device();
  const Fixed model(60'000);  // a one-minute minibatch
  SimulatedBackend backend(d, model, {.real_time = true});
  auto limit = std::make_shared<RealTimeLimit>();
  limit->deadline = Clock::now() + 200ms;
  backend.limit_real_time(limit);
  const auto start = Clock::now();
  const Completion c = backend.execute(an_item());
  const double took_s = seconds_since(start);
  CHECK(took_s >= 0.19);
  CHECK(took_s < 20);  // not the minute
  CHECK(c.cut_short);
  CHECK(c.duration == 60s);  // the time it would have taken
  // Lifted: a short item sleeps its whole time again, and is whole.
  backend.limit_real_time(nullptr);
  const Fixed short_model(5);
  SimulatedBackend short_backend(d, short_model, {.real_time = true});
  short_backend.limit_real_time(nullptr);
  CHECK_FALSE(short_backend.execute(an_item()).cut_short);
}

TEST_CASE("an emulated item's sleep ends soon after the limit's stop answers true",
          "[real_time_limit][wall]") {
  const models::DeviceSpec d = one_rail_device();
  const Fixed model(60'000);
  std::atomic<bool> stop{false};
  auto limit = std::make_shared<RealTimeLimit>();
  limit->stop = [&stop] { return stop.load(); };

  SECTION("the simulated backend alone") {
    SimulatedBackend backend(d, model, {.real_time = true});
    backend.limit_real_time(limit);
    std::thread signaller([&] {
      std::this_thread::sleep_for(150ms);
      stop = true;
    });
    const auto start = Clock::now();
    const Completion c = backend.execute(an_item());
    signaller.join();
    CHECK(seconds_since(start) >= 0.14);
    CHECK(seconds_since(start) < 20);
    CHECK(c.cut_short);
  }
  SECTION("the noisy device") {
    NoisyBackend backend(std::make_unique<SimulatedBackend>(d, model),
                         {.sigma = 0.05, .seed = 1, .real_time = true});
    backend.limit_real_time(limit);
    stop = true;  // already stopped: returns at once
    const auto start = Clock::now();
    CHECK(backend.execute(an_item()).cut_short);
    CHECK(seconds_since(start) < 20);
  }
}

TEST_CASE("contexts on a time-sliced emulated GPU share their backend's limit",
          "[real_time_limit][wall]") {
  const models::DeviceSpec d = one_rail_device();
  const Fixed model(60'000);
  SimulatedBackend parent(d, model, {.real_time = true, .slicing = {.timeslice = 1ms}});
  const std::unique_ptr<Backend> a = parent.open_context();
  const std::unique_ptr<Backend> b = parent.open_context();
  REQUIRE(a);
  REQUIRE(b);
  // Set on the parent after the contexts were opened: they see it too.
  auto limit = std::make_shared<RealTimeLimit>();
  limit->deadline = Clock::now() + 300ms;
  parent.limit_real_time(limit);
  std::latch go(2);
  bool cut_a = false, cut_b = false;
  const auto start = Clock::now();
  std::thread ta([&] {
    go.arrive_and_wait();
    cut_a = a->execute(an_item()).cut_short;
  });
  go.arrive_and_wait();
  cut_b = b->execute(an_item()).cut_short;
  ta.join();
  CHECK(seconds_since(start) >= 0.29);
  CHECK(seconds_since(start) < 20);
  CHECK(cut_a);
  CHECK(cut_b);
}

TEST_CASE("a limit whose deadline has passed lets items run through without sleeping",
          "[real_time_limit]") {
  const models::DeviceSpec d = one_rail_device();
  const Fixed model(60'000);
  NoisyBackend backend(std::make_unique<SimulatedBackend>(d, model),
                       {.sigma = 0.1, .seed = 5, .real_time = true});
  auto passed = std::make_shared<RealTimeLimit>();
  passed->deadline = Clock::time_point::min();
  backend.limit_real_time(passed);
  for (int i = 0; i < 3; ++i) CHECK(backend.execute(an_item()).cut_short);
}

TEST_CASE("the noisy device refuses a noise outside [0, 1] and keeps every time finite",
          "[real_time_limit]") {
  const models::DeviceSpec d = one_rail_device();
  const Fixed model(10);
  const auto make = [&](double sigma) {
    return NoisyBackend(std::make_unique<SimulatedBackend>(d, model), {.sigma = sigma, .seed = 1});
  };
  for (double bad : {10.0, 1e308, -0.1, 1.0000001}) {
    CHECK_THROWS_AS(make(bad), InputError);
  }
  CHECK_THROWS_WITH(make(10.0), Catch::StartsWith("--noise: must be a number in [0, 1]"));
  NoisyBackend widest = make(1.0);
  // At sigma 1 the factor stays within e^-6 .. e^6 of 10 ms: 24.8 us .. 4.03 s.
  for (int i = 0; i < 2000; ++i) {
    const Completion& c = widest.execute(an_item());
    CHECK(c.duration >= 24us);
    CHECK(c.duration <= 4100ms);
    CHECK(c.rail_energy_j[0] > 0);
  }
}
