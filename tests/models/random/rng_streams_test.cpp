#include "models/random/rng_streams.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

using fulcrum::models::Rng;
using fulcrum::models::RngStreams;

namespace {

std::vector<std::uint64_t> draws(Rng rng, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(rng.next());
  return out;
}

}  // namespace

TEST_CASE("the same seed and name give the same sequence", "[rng]") {
  const RngStreams a(7);
  const RngStreams b(7);
  CHECK(draws(a.stream("arrivals/resnet50-0"), 100) == draws(b.stream("arrivals/resnet50-0"), 100));
}

TEST_CASE("different names give different sequences", "[rng]") {
  const RngStreams streams(7);
  const auto x = draws(streams.stream("arrivals/resnet50-0"), 100);
  const auto y = draws(streams.stream("arrivals/resnet50-1"), 100);
  CHECK(x != y);
  int equal = 0;
  for (std::size_t i = 0; i < x.size(); ++i) equal += x[i] == y[i] ? 1 : 0;
  CHECK(equal == 0);
}

TEST_CASE("different seeds give different sequences for the same name", "[rng]") {
  CHECK(draws(RngStreams(1).stream("noise"), 50) != draws(RngStreams(2).stream("noise"), 50));
}

TEST_CASE("creating and drawing from another stream leaves a stream's draws unchanged", "[rng]") {
  const RngStreams streams(42);
  const auto alone = draws(streams.stream("profiler/noise"), 200);

  const RngStreams again(42);
  Rng other = again.stream("arrivals/new-stream");
  Rng target = again.stream("profiler/noise");
  std::vector<std::uint64_t> interleaved;
  for (int i = 0; i < 200; ++i) {
    (void)other.next();
    interleaved.push_back(target.next());
  }
  CHECK(interleaved == alone);
}

TEST_CASE("the generator's output is pinned, so runs match on every platform", "[rng]") {
  // Values from this implementation (FNV-1a name hash, SplitMix64 seeding, xoshiro256**).
  // A change here changes every seeded run's results: update only on purpose.
  Rng rng = RngStreams(7).stream("arrivals/resnet50-0");
  const std::uint64_t first = rng.next();
  const std::uint64_t second = rng.next();
  CHECK(first == 0x68d2397997087430ULL);
  CHECK(second == 0x4bd9a773935cc3d0ULL);
  CHECK(fulcrum::models::stable_hash("") == 0xcbf29ce484222325ULL);
  CHECK(fulcrum::models::stable_hash("a") == 0xaf63dc4c8601ec8cULL);
}

TEST_CASE("uniform() stays in [0, 1) with mean about 1/2 and variance about 1/12", "[rng]") {
  Rng rng = RngStreams(3).stream("uniform");
  const int n = 100'000;
  double sum = 0;
  double sum_sq = 0;
  double lo = 1;
  double hi = 0;
  int low_half = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
    sum_sq += u * u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    low_half += u < 0.5 ? 1 : 0;
  }
  const double mean = sum / n;
  const double var = sum_sq / n - mean * mean;
  // Standard error of the mean is ~0.0009; 0.005 is over 5 sigma yet fails any real bias.
  CHECK(std::abs(mean - 0.5) < 0.005);
  CHECK(std::abs(var - 1.0 / 12.0) < 0.002);
  CHECK(lo < 1e-3);
  CHECK(hi > 1 - 1e-3);
  CHECK(std::abs(low_half - n / 2) < 1000);
}

TEST_CASE("exponential(rate) has mean about 1/rate and is never negative", "[rng]") {
  Rng rng = RngStreams(11).stream("exp");
  for (const double rate : {0.5, 100.0}) {
    const int n = 100'000;
    double sum = 0;
    int above_mean = 0;
    for (int i = 0; i < n; ++i) {
      const double x = rng.exponential(rate);
      REQUIRE(x >= 0.0);
      REQUIRE(std::isfinite(x));
      sum += x;
      above_mean += x > 1.0 / rate ? 1 : 0;
    }
    const double mean = sum / n;
    // Relative standard error is 1/sqrt(n) ~ 0.003; allow 0.02.
    CHECK(std::abs(mean * rate - 1.0) < 0.02);
    // P(X > mean) = e^-1 ~ 0.368 for an exponential.
    CHECK(std::abs(static_cast<double>(above_mean) / n - std::exp(-1.0)) < 0.01);
  }
}

TEST_CASE("uniform_below(n) covers [0, n) evenly", "[rng]") {
  Rng rng(5);
  std::vector<int> counts(7, 0);
  const int n = 70'000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t v = rng.uniform_below(7);
    REQUIRE(v < 7);
    ++counts[v];
  }
  for (const int c : counts) CHECK(std::abs(c - n / 7) < 500);
  CHECK(rng.uniform_below(1) == 0);
}
