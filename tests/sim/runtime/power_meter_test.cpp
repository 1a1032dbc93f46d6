#include "sim/runtime/power_meter.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fulcrum::sim;

TEST_CASE("the power meter integrates piecewise-constant power exactly per rail") {
  PowerMeter m(2, kSecond);
  const PowerSource s = m.add_source("only");
  m.set(s, 0, std::vector<double>{1, 2});
  m.set(s, 250 * kMillisecond, std::vector<double>{10, 0});
  m.finish(1 * kSecond);
  CHECK(m.rail_energy_j()[0] == Approx(0.25 * 1 + 0.75 * 10));
  CHECK(m.rail_energy_j()[1] == Approx(0.25 * 2));
  CHECK(m.energy_j() == Approx(8.25));
}

TEST_CASE("the power window maximum is the highest average over consecutive full windows") {
  PowerMeter m(1, 500 * kMillisecond);
  const PowerSource s = m.add_source("only");
  m.set(s, 0, std::vector<double>{17});
  m.set(s, 300 * kMillisecond, std::vector<double>{3});
  m.set(s, 1200 * kMillisecond, std::vector<double>{40});  // the last 0.1 s: a partial window
  m.finish(1300 * kMillisecond);
  // [0, 0.5): 0.3 x 17 + 0.2 x 3 = 5.7 J -> 11.4 W; [0.5, 1.0): 3 W; [1.0, 1.3) is not full.
  CHECK(m.max_window_w() == Approx(11.4));
}

TEST_CASE("a run shorter than one window reports its own average as the window maximum") {
  PowerMeter m(1, 10 * kSecond);
  const PowerSource s = m.add_source("only");
  m.set(s, 0, std::vector<double>{4});
  m.set(s, kSecond, std::vector<double>{8});
  m.finish(2 * kSecond);
  CHECK(m.max_window_w() == Approx(6));
}

TEST_CASE("setting the same power again is not a change") {
  PowerMeter m(2, kSecond);
  const PowerSource s = m.add_source("only");
  CHECK(m.set(s, 0, std::vector<double>{1, 2}));
  CHECK_FALSE(m.set(s, kMillisecond, std::vector<double>{1, 2}));
  CHECK(m.set(s, 2 * kMillisecond, std::vector<double>{1, 3}));
}

TEST_CASE("rail power is the sum of the sources, each changing only its own share") {
  PowerMeter m(2, kSecond);
  const PowerSource base = m.add_source("baseload");
  const PowerSource gpu = m.add_source("gpu");
  const PowerSource workers = m.add_source("workers");
  m.set(base, 0, std::vector<double>{5, 1});
  m.set(gpu, 100 * kMillisecond, std::vector<double>{20, 0});
  m.set(workers, 200 * kMillisecond, std::vector<double>{0, 3});
  CHECK(m.rail_power_w() == std::vector<double>{25, 4});
  m.set(gpu, 600 * kMillisecond, std::vector<double>{0, 0});  // the workers keep drawing
  CHECK(m.rail_power_w() == std::vector<double>{5, 4});
  m.finish(kSecond);
  // Rail 0: 5 W all second + 20 W for 0.5 s = 15 J. Rail 1: 1 W all second + 3 W for 0.8 s.
  CHECK(m.rail_energy_j()[0] == Approx(15));
  CHECK(m.rail_energy_j()[1] == Approx(1 + 2.4));
  CHECK(m.energy_j() == Approx(18.4));
}

TEST_CASE("each source's energy is what it drew, and the sources' energies add up to the total") {
  PowerMeter m(3, kSecond);
  const PowerSource base = m.add_source("baseload");
  const PowerSource gpu = m.add_source("gpu");
  m.set(base, 0, std::vector<double>{2, 1, 1});                  // 4 W all run long
  m.set(gpu, 250 * kMillisecond, std::vector<double>{6, 1, 1});  // +8 W for 0.5 s
  m.set(gpu, 750 * kMillisecond, std::vector<double>{0, 0, 0});
  m.finish(2 * kSecond);
  REQUIRE(m.source_names() == std::vector<std::string>{"baseload", "gpu"});
  CHECK(m.source_energy_j()[0] == Approx(8));  // 4 W x 2 s
  CHECK(m.source_energy_j()[1] == Approx(4));  // 8 W x 0.5 s
  CHECK(m.energy_j() == Approx(12));
  // The window maximum sees the total: [0, 1 s) averages 4 + 8 x 0.5 = 8 W.
  CHECK(m.max_window_w() == Approx(8));
}

TEST_CASE("a change of one source that leaves the total equal is not a change of power") {
  PowerMeter m(1, kSecond);
  const PowerSource a = m.add_source("a");
  const PowerSource b = m.add_source("b");
  m.set(a, 0, std::vector<double>{3});
  m.set(b, 0, std::vector<double>{1});
  CHECK(m.set(a, kMillisecond, std::vector<double>{2}));
  CHECK_FALSE(m.set(b, 2 * kMillisecond, std::vector<double>{1}));
}
