// TimeSlicer: an emulated GPU that time-slices contexts in real time. The checks are lower
// bounds that real time cannot undercut (a GPU runs one context at a time, so overlapping work
// takes at least its sum) and counts of what the slicer did, never upper bounds on elapsed time.
#include "backends/time_slicer.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <latch>
#include <thread>

#include "backends/hardware/noisy_backend.hpp"
#include "backends/simulated_backend.hpp"
#include "models/error.hpp"
#include "models/workload/workload_catalog.hpp"

using namespace fulcrum::backends;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("a context alone occupies the emulated GPU for its work, without switches",
          "[time_slicer]") {
  TimeSlicer gpu({.timeslice = 2ms});
  const int c = gpu.open_context();
  const std::chrono::nanoseconds took = occupy_measured(gpu, c, 15ms).value();
  CHECK(took >= 15ms);
  CHECK(gpu.switches() == 0);
}

TEST_CASE("two contexts take turns: their work adds up, plus a switch cost per turn",
          "[time_slicer]") {
  TimeSlicer gpu({.timeslice = 2ms, .context_switch = 500us});
  const int a = gpu.open_context();
  const int b = gpu.open_context();
  std::latch go(3);
  std::chrono::nanoseconds took_a{}, took_b{};
  std::thread ta([&] {
    go.arrive_and_wait();
    took_a = occupy_measured(gpu, a, 30ms).value();
  });
  std::thread tb([&] {
    go.arrive_and_wait();
    took_b = occupy_measured(gpu, b, 30ms).value();
  });
  const auto start = Clock::now();
  go.arrive_and_wait();
  ta.join();
  tb.join();
  const auto wall = Clock::now() - start;
  // Both started together with 15 slices each: they alternate, each turn after the first costing
  // a switch. However late a thread starts, the GPU did 60 ms of work plus the switches one at a
  // time.
  CHECK(gpu.switches() >= 5);
  CHECK(wall >= 60ms + gpu.switches() * 500us);
  CHECK(took_a > 30ms);
  CHECK(took_b > 30ms);
}

TEST_CASE("a time slicer refuses a timeslice <= 0 and a negative switch cost", "[time_slicer]") {
  CHECK_THROWS_AS(TimeSlicer({.timeslice = 0ns}), fulcrum::Error);
  CHECK_THROWS_AS(TimeSlicer({.timeslice = 1ms, .context_switch = -1ns}), fulcrum::Error);
}

TEST_CASE("emulated backends open contexts that share one time-sliced GPU in real time",
          "[time_slicer][wall]") {
  fulcrum::models::DeviceSpec device;
  device.name = "test-device";
  device.rails = {"GPU"};
  // A model that says every item takes 20 ms at 10 W.
  struct Fixed final : fulcrum::models::PerfModel {
    std::string name() const override { return "fixed"; }
    fulcrum::models::Prediction predict(const fulcrum::models::PerfQuery&) const override {
      return {20.0, {{10.0}}, fulcrum::models::Provenance::modelled};
    }
    fulcrum::models::RailPower idle_power(const fulcrum::models::DeviceSpec&,
                                          const fulcrum::models::PowerMode&) const override {
      return {{1.0}};
    }
  } model;
  const WorkItem item{&fulcrum::models::workload_catalog().get("resnet50"),
                      fulcrum::models::Phase::inference,
                      1,
                      {}};

  SECTION("not in real time, a context is an independent backend of its own") {
    SimulatedBackend parent(device, model);
    const std::unique_ptr<Backend> context = parent.open_context();
    REQUIRE(context);
    CHECK(context->execute(item).duration == 20ms);
    CHECK_FALSE(context->runs_in_real_time());
  }
  SECTION("in real time, two contexts' items overlap and stretch") {
    const auto run_pair = [&](Backend& parent) {
      const std::unique_ptr<Backend> a = parent.open_context();
      const std::unique_ptr<Backend> b = parent.open_context();
      REQUIRE(a);
      REQUIRE(b);
      std::latch go(2);
      std::chrono::nanoseconds took_a{}, took_b{};
      std::thread ta([&] {
        go.arrive_and_wait();
        took_a = a->execute(item).duration;
      });
      go.arrive_and_wait();
      took_b = b->execute(item).duration;
      ta.join();
      // Started together, the two overlap: each waited for some of the other's slices, so each
      // reports more than its 20 ms of work.
      CHECK(took_a > 20ms);
      CHECK(took_b > 20ms);
    };
    SimulatedBackend simulated(device, model, {.real_time = true, .slicing = {.timeslice = 1ms}});
    run_pair(simulated);
    NoisyBackend noisy(std::make_unique<SimulatedBackend>(device, model),
                       {.sigma = 0, .seed = 3, .real_time = true, .slicing = {.timeslice = 1ms}});
    run_pair(noisy);
  }
}
