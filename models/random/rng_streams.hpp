// RngStreams: seeded, named, independent random streams. A stream's draws depend only on
// (seed, name), so adding or removing a stream never changes another's -- runs stay comparable.
//
//   RngStreams streams(7);
//   Rng arrivals = streams.stream("arrivals/resnet50-0");
//   Time gap = from_seconds(arrivals.exponential(100.0));   // rate per second
//
// The generator is xoshiro256** seeded through SplitMix64 from a stable FNV-1a hash of the name;
// nothing uses std:: distributions, whose output differs between standard libraries.
#pragma once

#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace fulcrum::models {

class Rng {
 public:
  // Seeds the state from one 64-bit value through SplitMix64 (never all-zero).
  explicit Rng(std::uint64_t seed);

  // 64 uniformly distributed bits.
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1), from the top 53 bits (every value a multiple of 2^-53).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Exponential with the given rate (mean 1/rate), by inversion. Precondition: rate > 0.
  // Inline: it runs once per Poisson arrival, and the call cost showed in the hold benchmark.
  double exponential(double rate) {
    assert(rate > 0 && "exponential() needs a positive rate");
    // u is a multiple of 2^-53 in [0, 1), so 1 - u is exact and in (0, 1]: the logarithm is
    // finite, and std::log is several times cheaper than std::log1p here with no loss of accuracy.
    return -std::log(1.0 - uniform()) / rate;
  }

  // Uniform integer in [0, bound), without modulo bias. Precondition: bound > 0.
  std::uint64_t uniform_below(std::uint64_t bound);

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::array<std::uint64_t, 4> state_;
};

class RngStreams {
 public:
  explicit RngStreams(std::uint64_t seed) : seed_(seed) {}

  // A fresh generator for `name`: the same (seed, name) always gives the same sequence.
  Rng stream(std::string_view name) const;

  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_;
};

// FNV-1a, 64-bit: stable across platforms and runs, unlike std::hash.
std::uint64_t stable_hash(std::string_view text);

}  // namespace fulcrum::models
