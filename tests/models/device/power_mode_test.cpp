#include "models/device/power_mode.hpp"

#include <catch2/catch.hpp>

using namespace fulcrum::models;

TEST_CASE("frequencies print in MHz without float noise or trailing zeros", "[power_mode]") {
  CHECK(format_mhz(1300.5) == "1300.5");
  CHECK(format_mhz(3199) == "3199");
  CHECK(format_mhz(522.75) == "522.75");
  CHECK(format_khz_as_mhz(2201600) == "2201.6");
  CHECK(format_khz_as_mhz(2201.6 * 1e3) == "2201.6");
  CHECK(format_hz_as_mhz(114750000) == "114.75");
  CHECK(format_hz_as_mhz(665600000) == "665.6");
  CHECK(format_mhz(0.1 + 0.2) == "0.3");
  CHECK(format_mhz(0) == "0");
}

TEST_CASE("a power mode's label lists cores, CPU, GPU and EMC in MHz", "[power_mode]") {
  const PowerMode m{12, 2201600, 1300500000, 3199000000, 8};
  CHECK(m.label() == "12c/2201.6/1300.5/3199 MHz");
  const PowerMode low{2, 268800, 114750000, 204000000, 8};
  CHECK(low.label() == "2c/268.8/114.75/204 MHz");
}

TEST_CASE("power modes compare by all their fields", "[power_mode]") {
  const PowerMode a{4, 1113600, 318750000, 2133000000, 3};
  PowerMode b = a;
  CHECK(a == b);
  b.gpu_tpcs = 8;
  CHECK(a != b);
  CHECK(a < b);
}

TEST_CASE("oversubscribed cores keep their clock less the loss per thread beyond one per core") {
  // 5 threads on 2 cores: 1.5 beyond one per core, 78 MHz each.
  CHECK(oversubscribed_clock(422.4, 78, 5, 2) == Approx(422.4 - 117));
  CHECK(oversubscribed_clock(2201.6, 78, 5, 4) == Approx(2201.6 - 19.5));
  // No more threads than cores: the whole clock.
  CHECK(oversubscribed_clock(422.4, 78, 5, 6) == 422.4);
  CHECK(oversubscribed_clock(422.4, 78, 2, 2) == 422.4);
  // Held at a quarter of the clock however many threads.
  CHECK(oversubscribed_clock(268.8, 500, 5, 1) == Approx(268.8 / 4));
  // Any unit, as long as clock and loss share it.
  CHECK(oversubscribed_clock(422400, 78000, 5, 2) == Approx(1e3 * (422.4 - 117)));
}
