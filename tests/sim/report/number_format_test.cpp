#include "sim/report/number_format.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace fulcrum::sim;

TEST_CASE("fixed writes exactly the asked decimals, rounding half-way values as printf does") {
  CHECK(fixed(41.6, 2) == "41.60");
  CHECK(fixed(12.345, 1) == "12.3");
  CHECK(fixed(2201.6, 0) == "2202");
  CHECK(fixed(-3.25, 3) == "-3.250");
  CHECK(fixed(1e20, 0) == "100000000000000000000");
  CHECK(fixed(1e308, 0).size() == 309);  // a huge value is written whole, not cut short
}

TEST_CASE("significant writes the asked significant digits in the shorter of both notations") {
  CHECK(significant(63.541234567, 9) == "63.5412346");
  CHECK(significant(1.5e-7, 9) == "1.5e-07");
  CHECK(significant(100, 9) == "100");
  CHECK(significant(1300500000, 9) == "1.3005e+09");
}
