#include "models/random/rng_streams.hpp"

#include <cassert>
#include <cmath>

namespace fulcrum::models {
namespace {

// SplitMix64 step: a bijective mixer, so distinct inputs give distinct outputs.
std::uint64_t splitmix64(std::uint64_t& x) {
  x += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (std::uint64_t& word : state_) word = splitmix64(x);
  // SplitMix64 outputs four zeros for no seed in practice; guard the one forbidden state anyway.
  if ((state_[0] | state_[1] | state_[2] | state_[3]) == 0) state_[0] = 1;
}

std::uint64_t Rng::uniform_below(std::uint64_t bound) {
  assert(bound > 0 && "uniform_below() needs a positive bound");
  // Reject the lowest (2^64 mod bound) values so every residue is equally likely.
  const std::uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t r = next();
    if (r >= threshold) return r % bound;
  }
}

Rng RngStreams::stream(std::string_view name) const {
  // Mix the seed first so that seeds differing in one bit do not give related name hashes.
  std::uint64_t x = seed_;
  const std::uint64_t seed_mix = splitmix64(x);
  std::uint64_t y = seed_mix ^ stable_hash(name);
  return Rng(splitmix64(y));
}

}  // namespace fulcrum::models
