#include "sim/runtime/latency_stats.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "sim/runtime/latency_recorder.hpp"

using namespace fulcrum::sim;

namespace {

std::optional<LatencyStats> stats_of(const std::vector<Time>& values) {
  LatencyRecorder recorder;
  for (Time v : values) recorder.add(v);
  return recorder.stats();
}

}  // namespace

TEST_CASE("nearest rank is ceil(p/100 x n), exact products not rounded up") {
  CHECK(nearest_rank(99, 200) == 198);
  CHECK(nearest_rank(99, 201) == 199);
  CHECK(nearest_rank(50, 1) == 1);
  CHECK(nearest_rank(50, 4) == 2);
  CHECK(nearest_rank(95, 10) == 10);
  CHECK(nearest_rank(100, 7) == 7);
  CHECK(nearest_rank(0.001, 7) == 1);
  CHECK(nearest_rank(99.9, 1000) == 999);
}

TEST_CASE("nearest ranks stay exact for counts far beyond what a double holds exactly") {
  // 99% of 10^17 + 1 is 99,000,000,000,000,000.99: the 99,000,000,000,000,001st value.
  CHECK(nearest_rank(99, 100'000'000'000'000'001) == 99'000'000'000'000'001);
  CHECK(nearest_rank(50, 10'000'000'000'000) == 5'000'000'000'000);
  CHECK(nearest_rank(95, 10'000'000'000'001) == 9'500'000'000'001);
}

TEST_CASE("latency statistics of 1..100 ms are the observed values at the nearest ranks") {
  std::vector<Time> v;
  for (int i = 100; i >= 1; --i) v.push_back(i * kMillisecond);  // any order
  const std::optional<LatencyStats> s = stats_of(v);
  REQUIRE(s);
  CHECK(s->p50_ms == 50);
  CHECK(s->p95_ms == 95);
  CHECK(s->p99_ms == 99);
  CHECK(s->max_ms == 100);
  CHECK(s->mean_ms == Approx(50.5));
}

TEST_CASE("latency statistics of a few values pick observed values, not interpolations") {
  const std::optional<LatencyStats> s =
      stats_of({30 * kMillisecond, 10 * kMillisecond, 20 * kMillisecond});
  REQUIRE(s);
  CHECK(s->p50_ms == 20);  // rank ceil(1.5) = 2
  CHECK(s->p95_ms == 30);
  CHECK(s->p99_ms == 30);
  CHECK(s->max_ms == 30);
  CHECK(s->mean_ms == Approx(20));
}

TEST_CASE("there are no latency statistics without requests, rather than zeros") {
  CHECK_FALSE(stats_of({}).has_value());
}
