// measure_settled_idle on fake meters whose power follows a function of a fake clock that only
// the injected sleep advances, so that the tests run instantly: a power decaying exponentially
// toward idle (the settled value is returned, not the first window), one that never settles (the
// maximum time holds, flagged), and a flat one (two windows).
#include "backends/hardware/settled_idle.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <functional>

#include "models/error.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;

namespace {

// A one-rail meter whose power at fake time t (s) is power(t); the energy of a window is the
// integral of power over it (midpoint rule, 1 ms steps). Only advance() moves the clock.
class FunctionMeter final : public PowerMeter {
 public:
  explicit FunctionMeter(std::function<double(double)> power) : power_(std::move(power)) {}
  std::string name() const override { return "fake"; }
  std::chrono::nanoseconds sampling_interval() const override {
    return std::chrono::milliseconds(1);
  }
  const std::vector<std::string>& rail_names() const override { return rails_; }
  void start() override {
    REQUIRE_FALSE(open_);
    open_ = true;
    started_s_ = now_s_;
  }
  EnergyReading stop() override {
    REQUIRE(open_);
    open_ = false;
    EnergyReading r;
    r.duration_s = now_s_ - started_s_;
    const double step = 1e-3;
    for (double t = started_s_; t < now_s_ - step / 2; t += step) {
      r.module_energy_j += power_(t + step / 2) * step;
    }
    r.rail_energy_j = {r.module_energy_j};
    return r;
  }
  void advance(std::chrono::nanoseconds d) {
    REQUIRE(open_);  // sleeps only while a window is open
    now_s_ += std::chrono::duration<double>(d).count();
  }
  double now_s() const { return now_s_; }

 private:
  std::function<double(double)> power_;
  std::vector<std::string> rails_ = {"GPU"};
  double now_s_ = 0, started_s_ = 0;
  bool open_ = false;
};

IdleSettleOptions fake_time(FunctionMeter& meter) {
  IdleSettleOptions o;
  o.sleep = [&meter](std::chrono::nanoseconds d) { meter.advance(d); };
  return o;
}

}  // namespace

TEST_CASE("idle power decaying after a load is taken once it has settled, not at first") {
  // 70 W idle plus 300 W decaying with a 0.5 s time constant: the first 0.5 s window averages
  // about 260 W.
  FunctionMeter meter([](double t) { return 70 + 300 * std::exp(-t / 0.5); });
  const SettledIdle idle = measure_settled_idle(meter, fake_time(meter));
  REQUIRE(idle.window_power_w.size() >= 3);
  CHECK(idle.window_power_w.front() > 250);
  CHECK(idle.metering.settled);
  CHECK(idle.metering.windows == static_cast<int>(idle.window_power_w.size()));
  CHECK(idle.metering.metered_s == Approx(0.5 * idle.metering.windows));
  CHECK(idle.metering.metered_s < 15);
  // Within the tolerance of the settled value, and the last two windows agree within it.
  CHECK(idle.module_power_w == Approx(70).epsilon(0.02));
  const std::size_t n = idle.window_power_w.size();
  CHECK(std::abs(idle.window_power_w[n - 1] - idle.window_power_w[n - 2]) <=
        0.02 * idle.window_power_w[n - 2]);
  // The window before the last two still disagreed (it stopped at the first agreement).
  CHECK(std::abs(idle.window_power_w[n - 2] - idle.window_power_w[n - 3]) >
        0.02 * idle.window_power_w[n - 3]);
  REQUIRE(idle.rail_power_w.size() == 1);
  CHECK(idle.rail_power_w[0] == Approx(idle.module_power_w));
  CHECK(idle.metering.power_w == Approx(idle.module_power_w));
  CHECK(idle.last.duration_s == Approx(0.5));
  CHECK(idle.metering.note.find("idle metered after settling") != std::string::npos);
  CHECK(idle.metering.note.find("agreed within 2.0 %") != std::string::npos);
}

TEST_CASE("a slower decay settles within the documented bound of its idle value") {
  // Time constant 2 s, four times the window: successive windows shrink by q = exp(-0.25), so
  // the last window is at most tolerance x q / (1 - q) (about 7 %) above idle (settled_idle.hpp).
  FunctionMeter meter([](double t) { return 70 + 300 * std::exp(-t / 2.0); });
  const SettledIdle idle = measure_settled_idle(meter, fake_time(meter));
  CHECK(idle.metering.settled);
  const double q = std::exp(-0.25);
  CHECK(idle.module_power_w > 70);
  CHECK(idle.module_power_w - 70 <=
        0.02 * idle.window_power_w[idle.window_power_w.size() - 2] * q / (1 - q));
  // Not the first windows' near-load power.
  CHECK(idle.module_power_w < 0.5 * idle.window_power_w.front());
}

TEST_CASE(
    "idle power that never settles stops at the maximum time, flagged, with the last window") {
  // Alternates between 100 W and 150 W every 0.5 s: successive windows never agree.
  FunctionMeter meter([](double t) { return static_cast<int>(t / 0.5) % 2 == 0 ? 100.0 : 150.0; });
  IdleSettleOptions o = fake_time(meter);
  o.max_settle = std::chrono::seconds(4);
  const SettledIdle idle = measure_settled_idle(meter, o);
  CHECK_FALSE(idle.metering.settled);
  CHECK(idle.metering.windows == 8);  // 8 x 0.5 s = the 4 s allowed
  CHECK(meter.now_s() == Approx(4));
  CHECK(idle.metering.metered_s == Approx(4));
  CHECK(idle.module_power_w == Approx(150).epsilon(0.001));  // the last window
  CHECK(idle.metering.note.find("did not settle within 4.0 s") != std::string::npos);
  CHECK(idle.metering.note.find("100.0 W and 150.0 W") != std::string::npos);

  // The default maximum is 15 s.
  FunctionMeter again([](double t) { return static_cast<int>(t / 0.5) % 2 == 0 ? 100.0 : 150.0; });
  const SettledIdle slow = measure_settled_idle(again, fake_time(again));
  CHECK_FALSE(slow.metering.settled);
  CHECK(slow.metering.windows == 30);
  CHECK(again.now_s() == Approx(15));
}

TEST_CASE("flat idle power returns after two windows") {
  FunctionMeter meter([](double) { return 42.0; });
  const SettledIdle idle = measure_settled_idle(meter, fake_time(meter));
  CHECK(idle.metering.settled);
  CHECK(idle.metering.windows == 2);
  CHECK(meter.now_s() == Approx(1.0));
  CHECK(idle.module_power_w == Approx(42));

  // A meter that measures nothing (all zeros) agrees with itself too, and the window's own
  // duration (0 here) never counts as less than the window asked for.
  NullPowerMeter none;
  IdleSettleOptions quick;
  quick.sleep = [](std::chrono::nanoseconds) {};
  const SettledIdle zero = measure_settled_idle(none, quick);
  CHECK(zero.metering.settled);
  CHECK(zero.metering.windows == 2);
  CHECK(zero.module_power_w == 0);
}

TEST_CASE("idle metering options out of range are errors") {
  FunctionMeter meter([](double) { return 1.0; });
  IdleSettleOptions o = fake_time(meter);
  o.window = std::chrono::nanoseconds(0);
  CHECK_THROWS_AS(measure_settled_idle(meter, o), Error);
  o = fake_time(meter);
  o.tolerance = -0.1;
  CHECK_THROWS_AS(measure_settled_idle(meter, o), Error);
}
