#include "sim/runtime/latency_recorder.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sim/runtime/latency_histogram.hpp"

using namespace fulcrum::sim;

namespace {

// The nearest-rank value straight from its definition (docs/METRICS.md): of the sorted values,
// the k-th for the smallest k with k / n >= p / 100, i.e. 100 k >= p n, counted in integers.
Time exact_at_percentile(const std::vector<Time>& sorted, int percentile) {
  const auto n = static_cast<std::uint64_t>(sorted.size());
  std::uint64_t k = 1;
  while (100 * k < static_cast<std::uint64_t>(percentile) * n) ++k;
  return sorted[k - 1];
}

double relative_error(Time reported, Time exact) {
  if (exact == 0) return reported == 0 ? 0.0 : 1.0;
  return std::abs(static_cast<double>(reported) - static_cast<double>(exact)) /
         static_cast<double>(exact);
}

using Draw = std::function<Time(std::mt19937_64&)>;

struct Distribution {
  std::string name;
  Draw draw;
};

double uniform01(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;  // [0, 1)
}

Time clamp_to_time(double ns) { return static_cast<Time>(std::clamp(ns, 0.0, 9.2e18)); }

// Latency-like distributions over the whole range a run can produce: nanoseconds to hours,
// heavy tails, ties, and the exact small values.
std::vector<Distribution> distributions() {
  const double hour_ns = 3600e9;
  return {
      {"log-uniform 1 ns to 1 h",
       [=](std::mt19937_64& g) {
         return clamp_to_time(std::exp(uniform01(g) * std::log(hour_ns)));
       }},
      {"exponential, mean 50 ms",
       [](std::mt19937_64& g) { return clamp_to_time(-std::log(1.0 - uniform01(g)) * 50e6); }},
      {"Pareto alpha 1.1 from 1 ms (heavy tail)",
       [](std::mt19937_64& g) {
         return clamp_to_time(1e6 * std::pow(1.0 - uniform01(g), -1.0 / 1.1));
       }},
      {"lognormal around 100 ms, sigma 2",
       [](std::mt19937_64& g) {
         // Box-Muller from two uniforms.
         const double u1 = 1.0 - uniform01(g);
         const double u2 = uniform01(g);
         const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
         return clamp_to_time(std::exp(std::log(100e6) + 2.0 * z));
       }},
      {"integers 0 to 5000 ns (exact buckets and the first shared ones)",
       [](std::mt19937_64& g) { return static_cast<Time>(g() % 5001); }},
      {"ties: 20 ms, with 1% at 3 h",
       [=](std::mt19937_64& g) {
         return g() % 100 == 0 ? clamp_to_time(3 * hour_ns) : Time{20'000'000};
       }},
      {"any bit width up to 2^62 ns",
       [](std::mt19937_64& g) {
         const int bits = static_cast<int>(g() % 63);
         return static_cast<Time>(
             bits == 0 ? 0 : (g() >> (64 - bits)) | (std::uint64_t{1} << (bits - 1)));
       }},
  };
}

}  // namespace

TEST_CASE("a histogram bucket reports a value within 2^-11 of every value in it") {
  // Every value below 2^12 and a sweep of larger ones, including both ends of buckets.
  std::vector<Time> values;
  for (Time v = 0; v < 4096; ++v) values.push_back(v);
  for (int bits = 12; bits <= 62; ++bits) {
    const Time base = Time{1} << bits;
    for (Time offset : {Time{0}, Time{1}, base / 1024 - 1, base / 1024, base / 3, base - 1}) {
      values.push_back(base + offset);
    }
  }
  values.push_back(std::numeric_limits<Time>::max());
  for (Time v : values) {
    const std::size_t b = LatencyHistogram::bucket_of(v);
    REQUIRE(b < LatencyHistogram::kBuckets);
    const Time mid = LatencyHistogram::midpoint(b);
    CHECK(relative_error(mid, v) <= LatencyHistogram::kMaxRelativeError);
    if (v < 2048) CHECK(mid == v);  // small values have buckets of their own
  }
  CHECK(LatencyHistogram::kMaxRelativeError < 0.001);
}

TEST_CASE("histogram percentiles are within 0.05% of the exact nearest-rank values") {
  double worst = 0;
  std::uint64_t seed = 1;
  for (const Distribution& d : distributions()) {
    for (std::size_t n : {1u, 2u, 3u, 7u, 100u, 1001u, 200'000u}) {
      std::mt19937_64 g(seed++);
      std::vector<Time> values(n);
      for (Time& v : values) v = d.draw(g);
      LatencyHistogram h;
      for (Time v : values) h.add(v);
      std::sort(values.begin(), values.end());
      CHECK(h.count() == n);
      CHECK(h.min() == values.front());
      CHECK(h.max() == values.back());
      for (int p = 1; p <= 100; ++p) {
        std::uint64_t k = 1;  // the nearest rank, from its definition
        while (100 * k < static_cast<std::uint64_t>(p) * n) ++k;
        const Time exact = values[k - 1];
        const Time reported = h.value_at_rank(k);
        const double err = relative_error(reported, exact);
        worst = std::max(worst, err);
        INFO(d.name << ", n = " << n << ", p" << p << ": exact " << exact << " ns, reported "
                    << reported << " ns");
        CHECK(err <= LatencyHistogram::kMaxRelativeError);
      }
      CHECK(h.value_at_rank(n) == values.back());  // the maximum is exact
    }
  }
  INFO("largest relative error seen: " << worst);
  CHECK(worst <= 0.0005);
}

TEST_CASE("a recorder reports exact nearest-rank values while it holds every latency") {
  std::mt19937_64 g(42);
  const auto d = distributions();
  for (std::size_t n : {1u, 5u, 1000u, 4096u}) {
    LatencyRecorder recorder(0, 4096);
    std::vector<Time> values(n);
    for (Time& v : values) {
      v = d[2].draw(g);  // heavy tail
      recorder.add(v);
    }
    REQUIRE(recorder.is_exact());
    std::sort(values.begin(), values.end());
    const std::optional<LatencyStats> s = recorder.stats();
    REQUIRE(s);
    CHECK(s->p50_ms == to_milliseconds(exact_at_percentile(values, 50)));
    CHECK(s->p95_ms == to_milliseconds(exact_at_percentile(values, 95)));
    CHECK(s->p99_ms == to_milliseconds(exact_at_percentile(values, 99)));
    CHECK(s->max_ms == to_milliseconds(values.back()));
  }
}

TEST_CASE("past its exact limit a recorder switches to the histogram, within its error bound") {
  for (const Distribution& d : distributions()) {
    std::mt19937_64 g(7);
    LatencyRecorder recorder(0, 1000);
    std::vector<Time> values(50'000);
    long double sum_ns = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = d.draw(g);
      sum_ns += static_cast<long double>(values[i]);
      recorder.add(values[i]);
      if (i + 1 == 1000) CHECK(recorder.is_exact());  // the 1000th is still kept
      if (i + 1 == 1001) CHECK_FALSE(recorder.is_exact());
    }
    CHECK(recorder.count() == values.size());
    std::sort(values.begin(), values.end());
    const std::optional<LatencyStats> s = recorder.stats();
    REQUIRE(s);
    INFO(d.name);
    const double bound = LatencyHistogram::kMaxRelativeError;
    CHECK(s->p50_ms == Approx(to_milliseconds(exact_at_percentile(values, 50))).epsilon(bound));
    CHECK(s->p95_ms == Approx(to_milliseconds(exact_at_percentile(values, 95))).epsilon(bound));
    CHECK(s->p99_ms == Approx(to_milliseconds(exact_at_percentile(values, 99))).epsilon(bound));
    CHECK(s->max_ms == to_milliseconds(values.back()));
    const double mean_ms = static_cast<double>(sum_ns / values.size()) * 1e-6;
    CHECK(s->mean_ms == Approx(mean_ms).epsilon(1e-12));
  }
}

TEST_CASE("a recorder's memory stays bounded however many latencies it is given") {
  LatencyRecorder recorder(10'000'000);  // asks for more room than the exact limit allows
  CHECK(recorder.memory_bytes() <= LatencyRecorder::kExactLimit * sizeof(Time));
  std::mt19937_64 g(3);
  const Draw draw = distributions()[0].draw;
  for (std::size_t i = 0; i < LatencyRecorder::kExactLimit; ++i) recorder.add(draw(g));
  CHECK(recorder.is_exact());
  CHECK(recorder.memory_bytes() == LatencyRecorder::kExactLimit * sizeof(Time));  // 8 MiB
  for (std::size_t i = 0; i < 4 * LatencyRecorder::kExactLimit; ++i) recorder.add(draw(g));
  CHECK_FALSE(recorder.is_exact());
  const std::size_t histogram_bytes = LatencyHistogram::kBuckets * sizeof(std::uint64_t);
  CHECK(histogram_bytes == 442'368);  // 54 powers of two x 1,024 buckets x 8 B
  CHECK(recorder.memory_bytes() == histogram_bytes);
  CHECK(recorder.count() == 5 * LatencyRecorder::kExactLimit);
}

TEST_CASE("the mean latency is exact over sums no double holds") {
  // 2^53 + 1 ns cannot be added exactly to a double sum; the mean of one such value and a
  // million 1 ns values is (2^53 + 1 + 10^6) / (10^6 + 1) ns.
  LatencyRecorder recorder(0, 16);
  const Time big = (Time{1} << 53) + 1;
  recorder.add(big);
  for (int i = 0; i < 1'000'000; ++i) recorder.add(1);
  const long double expected_ns = (static_cast<long double>(big) + 1e6L) / 1'000'001.0L;
  const std::optional<LatencyStats> s = recorder.stats();
  REQUIRE(s);
  CHECK(s->mean_ms == Approx(static_cast<double>(expected_ns) * 1e-6).epsilon(1e-15));
}

TEST_CASE("adding a batch of latencies at once is adding them one by one, across the limit") {
  // Batches of 7 into a recorder that keeps 50 exactly: the 8th batch crosses the limit.
  LatencyRecorder by_batch(0, 50);
  LatencyRecorder one_by_one(0, 50);
  std::mt19937_64 g(11);
  const Draw draw = distributions()[1].draw;
  for (int b = 0; b < 20; ++b) {
    std::vector<Time> batch(7);
    for (Time& v : batch) v = draw(g);
    by_batch.add_n(batch.size(), [&](std::size_t j) { return batch[j]; });
    for (Time v : batch) one_by_one.add(v);
    CHECK(by_batch.count() == one_by_one.count());
    CHECK(by_batch.is_exact() == one_by_one.is_exact());
  }
  CHECK_FALSE(by_batch.is_exact());
  const std::optional<LatencyStats> a = by_batch.stats();
  const std::optional<LatencyStats> b = one_by_one.stats();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->mean_ms == b->mean_ms);
  CHECK(a->p50_ms == b->p50_ms);
  CHECK(a->p99_ms == b->p99_ms);
  CHECK(a->max_ms == b->max_ms);
}
