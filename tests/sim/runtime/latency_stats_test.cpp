#include "sim/runtime/latency_stats.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fulcrum::sim;

TEST_CASE("nearest rank is ceil(p/100 x n), exact products not rounded up") {
  CHECK(nearest_rank(99, 200) == 198);
  CHECK(nearest_rank(99, 201) == 199);
  CHECK(nearest_rank(50, 1) == 1);
  CHECK(nearest_rank(50, 4) == 2);
  CHECK(nearest_rank(95, 10) == 10);
  CHECK(nearest_rank(100, 7) == 7);
  CHECK(nearest_rank(0.001, 7) == 1);
}

TEST_CASE("latency statistics of 1..100 ms are the observed values at the nearest ranks") {
  std::vector<Time> v;
  for (int i = 100; i >= 1; --i) v.push_back(i * kMillisecond);  // any order
  const std::optional<LatencyStats> s = summarize_latencies(v);
  REQUIRE(s);
  CHECK(s->p50_ms == 50);
  CHECK(s->p95_ms == 95);
  CHECK(s->p99_ms == 99);
  CHECK(s->max_ms == 100);
  CHECK(s->mean_ms == Approx(50.5));
}

TEST_CASE("latency statistics of a few values pick observed values, not interpolations") {
  std::vector<Time> v{30 * kMillisecond, 10 * kMillisecond, 20 * kMillisecond};
  const std::optional<LatencyStats> s = summarize_latencies(v);
  REQUIRE(s);
  CHECK(s->p50_ms == 20);  // rank ceil(1.5) = 2
  CHECK(s->p95_ms == 30);
  CHECK(s->p99_ms == 30);
  CHECK(s->max_ms == 30);
  CHECK(s->mean_ms == Approx(20));
}

TEST_CASE("there are no latency statistics without requests, rather than zeros") {
  std::vector<Time> v;
  CHECK_FALSE(summarize_latencies(v).has_value());
}
