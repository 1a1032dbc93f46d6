#include "sim/runtime/latency_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

namespace fulcrum::sim {

namespace {

constexpr int kBits = LatencyHistogram::kSubBucketBits;
// Values below this have a bucket each: the first power-of-two range split into 2^kBits buckets of
// width 2 starts here.
constexpr std::uint64_t kExactBelow = std::uint64_t{2} << kBits;

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

std::size_t LatencyHistogram::bucket_of(Time value) {
  assert(value >= 0);
  const auto v = static_cast<std::uint64_t>(value);
  if (v < kExactBelow) return static_cast<std::size_t>(v);
  // v in [2^e, 2^(e+1)) with e >= kBits + 1: its top kBits + 1 bits pick the bucket.
  const int shift = std::bit_width(v) - 1 - kBits;
  return (static_cast<std::size_t>(shift) << kBits) + static_cast<std::size_t>(v >> shift);
}

Time LatencyHistogram::midpoint(std::size_t bucket) {
  assert(bucket < kBuckets);
  if (bucket < kExactBelow) return static_cast<Time>(bucket);
  const int shift = static_cast<int>(bucket >> kBits) - 1;
  const std::uint64_t top = bucket - (static_cast<std::uint64_t>(shift) << kBits);
  const std::uint64_t low = top << shift;
  return static_cast<Time>(low + (std::uint64_t{1} << (shift - 1)));
}

void LatencyHistogram::add(Time value) {
  assert(value >= 0);
  ++counts_[bucket_of(value)];
  if (count_ == 0) {
    min_ = value;
    max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
}

Time LatencyHistogram::value_at_rank(std::uint64_t rank) const {
  assert(rank >= 1 && rank <= count_);
  if (rank == count_) return max_;
  const std::size_t last = bucket_of(max_);
  std::uint64_t seen = 0;
  for (std::size_t b = bucket_of(min_); b <= last; ++b) {
    seen += counts_[b];
    if (seen >= rank) return std::clamp(midpoint(b), min_, max_);
  }
  assert(false && "the counts sum to count()");
  return max_;
}

}  // namespace fulcrum::sim
