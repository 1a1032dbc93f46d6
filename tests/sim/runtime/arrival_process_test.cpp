#include "sim/runtime/arrival_process.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "models/error.hpp"

using namespace fulcrum::sim;
using fulcrum::models::RngStreams;

namespace {

std::vector<Time> all(ArrivalProcess& a) {
  std::vector<Time> out;
  while (auto t = a.next()) out.push_back(*t);
  return out;
}

}  // namespace

TEST_CASE("fixed arrivals put request k at k / rate, the first at time zero") {
  ArrivalProcess a(FixedArrivals{4}, RngStreams(1), "s", 1 * kSecond);
  const std::vector<Time> t = all(a);
  REQUIRE(t.size() == 4);
  CHECK(t[0] == 0);
  CHECK(t[1] == 250 * kMillisecond);
  CHECK(t[3] == 750 * kMillisecond);
}

TEST_CASE("fixed arrivals do not drift over a long run") {
  ArrivalProcess a(FixedArrivals{3}, RngStreams(1), "s", 600 * kSecond);
  const std::vector<Time> t = all(a);
  REQUIRE(t.size() == 1800);
  CHECK(t[1799] == 599'666'666'667);  // 1799 / 3 s = 599.666 666 666 67 s, to the nearest ns
}

TEST_CASE("poisson arrivals are reproducible per seed and stream name, and differ otherwise") {
  auto draw = [](std::uint64_t seed, const char* name) {
    ArrivalProcess a(PoissonArrivals{50}, RngStreams(seed), name, 10 * kSecond);
    return all(a);
  };
  const std::vector<Time> base = draw(3, "s");
  CHECK(base == draw(3, "s"));
  CHECK(base != draw(4, "s"));
  CHECK(base != draw(3, "other"));
  // 500 expected; 5 standard deviations is about 112.
  CHECK(base.size() > 388);
  CHECK(base.size() < 612);
  for (std::size_t i = 1; i < base.size(); ++i) REQUIRE(base[i] >= base[i - 1]);
}

TEST_CASE("evenly spaced piecewise arrivals give each segment ceil(length x rate) requests") {
  PiecewiseArrivals p;
  p.segments = {{0, 10}, {10, 0}, {20, 50}, {25, 2.5}};
  ArrivalProcess a(p, RngStreams(1), "s", 30 * kSecond);
  const std::vector<Time> t = all(a);
  std::size_t seg[4] = {0, 0, 0, 0};
  for (Time x : t) {
    if (x < 10 * kSecond)
      ++seg[0];
    else if (x < 20 * kSecond)
      ++seg[1];
    else if (x < 25 * kSecond)
      ++seg[2];
    else
      ++seg[3];
  }
  CHECK(seg[0] == 100);
  CHECK(seg[1] == 0);
  CHECK(seg[2] == 250);
  CHECK(seg[3] == 13);  // 25, 25.4, ..., 29.8
  CHECK(a.nominal_rate_per_s() == 50);
}

TEST_CASE("poisson piecewise arrivals follow each segment's rate and none fall in a zero segment") {
  PiecewiseArrivals p;
  p.poisson = true;
  p.segments = {{0, 100}, {10, 0}, {20, 10}};
  ArrivalProcess a(p, RngStreams(9), "s", 30 * kSecond);
  std::size_t seg[3] = {0, 0, 0};
  for (Time x : all(a)) ++seg[x < 10 * kSecond ? 0 : x < 20 * kSecond ? 1 : 2];
  CHECK(seg[0] > 1000 - 160);
  CHECK(seg[0] < 1000 + 160);
  CHECK(seg[1] == 0);
  CHECK(seg[2] > 100 - 50);
  CHECK(seg[2] < 100 + 50);
}

TEST_CASE("trace arrivals replay the given times exactly and stop at the end of the run") {
  TraceArrivals tr{"t.csv", {0.001, 0.0025, 0.5, 0.5, 1.75, 2.0, 2.5}};
  ArrivalProcess a(tr, RngStreams(1), "s", 2 * kSecond);
  const std::vector<Time> t = all(a);
  CHECK(t == std::vector<Time>{1 * kMillisecond, 2'500'000, 500 * kMillisecond, 500 * kMillisecond,
                               1'750 * kMillisecond});
}

TEST_CASE("bad arrival specifications are input errors") {
  CHECK_THROWS_AS(ArrivalProcess(FixedArrivals{0}, RngStreams(1), "s", kSecond),
                  fulcrum::InputError);
  CHECK_THROWS_AS(ArrivalProcess(PoissonArrivals{-1}, RngStreams(1), "s", kSecond),
                  fulcrum::InputError);
  CHECK_THROWS_AS(ArrivalProcess(TraceArrivals{"t", {1.0, 0.5}}, RngStreams(1), "s", kSecond),
                  fulcrum::InputError);
  PiecewiseArrivals p;
  p.segments = {{0, 1}, {0, 2}};
  CHECK_THROWS_AS(ArrivalProcess(p, RngStreams(1), "s", kSecond), fulcrum::InputError);
}

TEST_CASE("peek tells the arrivals to come of a process fixed in advance without drawing them") {
  PiecewiseArrivals piecewise;
  piecewise.segments = {{0, 7}, {1.3, 0}, {2, 3.3}, {2.5, 40}};
  const std::vector<ArrivalSpec> specs = {FixedArrivals{3}, FixedArrivals{1e3 / 7},
                                          TraceArrivals{"", {0, 0.1, 0.1, 0.25, 1.7, 2.9, 3.5}},
                                          piecewise};
  for (std::size_t k = 0; k < specs.size(); ++k) {
    INFO("spec " << k);
    ArrivalProcess reference(specs[k], RngStreams(1), "s", 3 * kSecond);
    const std::vector<Time> expected = all(reference);
    REQUIRE(expected.size() > 5);
    ArrivalProcess a(specs[k], RngStreams(1), "s", 3 * kSecond);
    REQUIRE(a.is_deterministic());
    for (std::size_t produced = 0; produced <= expected.size(); ++produced) {
      for (std::uint64_t j = 1; j <= 12; ++j) {
        Time t = -1;
        const bool some = a.peek(j, t);
        const std::size_t index = produced + j - 1;
        REQUIRE(some == (index < expected.size()));
        if (some) REQUIRE(t == expected[index]);
      }
      if (produced < expected.size()) REQUIRE(a.next() == expected[produced]);
    }
    CHECK_FALSE(a.next());
  }
  CHECK_FALSE(ArrivalProcess(PoissonArrivals{5}, RngStreams(1), "s", kSecond).is_deterministic());
  piecewise.poisson = true;
  CHECK_FALSE(ArrivalProcess(piecewise, RngStreams(1), "s", kSecond).is_deterministic());
}
