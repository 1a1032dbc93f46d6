#include "sim/runtime/power_meter.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fulcrum::sim;

TEST_CASE("the power meter integrates piecewise-constant power exactly per rail") {
  PowerMeter m(2, kSecond);
  m.set(0, std::vector<double>{1, 2});
  m.set(250 * kMillisecond, std::vector<double>{10, 0});
  m.finish(1 * kSecond);
  CHECK(m.rail_energy_j()[0] == Approx(0.25 * 1 + 0.75 * 10));
  CHECK(m.rail_energy_j()[1] == Approx(0.25 * 2));
  CHECK(m.energy_j() == Approx(8.25));
}

TEST_CASE("the power window maximum is the highest average over consecutive full windows") {
  PowerMeter m(1, 500 * kMillisecond);
  m.set(0, std::vector<double>{17});
  m.set(300 * kMillisecond, std::vector<double>{3});
  m.set(1200 * kMillisecond, std::vector<double>{40});  // the last 0.1 s: a partial window
  m.finish(1300 * kMillisecond);
  // [0, 0.5): 0.3 x 17 + 0.2 x 3 = 5.7 J -> 11.4 W; [0.5, 1.0): 3 W; [1.0, 1.3) is not full.
  CHECK(m.max_window_w() == Approx(11.4));
}

TEST_CASE("a run shorter than one window reports its own average as the window maximum") {
  PowerMeter m(1, 10 * kSecond);
  m.set(0, std::vector<double>{4});
  m.set(kSecond, std::vector<double>{8});
  m.finish(2 * kSecond);
  CHECK(m.max_window_w() == Approx(6));
}

TEST_CASE("setting the same power again is not a change") {
  PowerMeter m(2, kSecond);
  CHECK(m.set(0, std::vector<double>{1, 2}));
  CHECK_FALSE(m.set(kMillisecond, std::vector<double>{1, 2}));
  CHECK(m.set(2 * kMillisecond, std::vector<double>{1, 3}));
}
