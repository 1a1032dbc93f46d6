// LatencyHistogram: counts of latencies in log-linear buckets (the HdrHistogram layout), so that
// the nearest-rank percentiles of any number of values are known within a stated relative error in
// bounded memory (docs/METRICS.md, "How latencies are kept").
//
//   LatencyHistogram h;
//   h.add(latency_ns);
//   Time p99 = h.value_at_rank(nearest_rank(99, h.count()));  // within 2^-11 of the exact value
//
// Values below 2^11 ns have a bucket each (exact). Above, each power-of-two range [2^e, 2^(e+1))
// is split into 2^10 buckets of equal width 2^(e-10); a bucket reports its midpoint, which is
// within half a width -- at most 2^-11 (0.0489%) of any value in the bucket. The minimum and
// maximum are kept exactly, and no reported value lies outside them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/engine/time.hpp"

namespace fulcrum::sim {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 10;  // 1,024 buckets per power of two
  // Largest relative error of a reported value: half a bucket's width over its lower bound.
  static constexpr double kMaxRelativeError = 1.0 / double{2 << kSubBucketBits};
  // Buckets for every value in [0, 2^63): the exact ones below 2^11, then 2^10 per power of two.
  static constexpr std::size_t kBuckets = std::size_t{64 - kSubBucketBits} << kSubBucketBits;

  // Allocates kBuckets zeroed counters (432 KiB), whatever values come.
  LatencyHistogram();

  void add(Time value);  // value >= 0
  std::uint64_t count() const { return count_; }
  // Exact smallest and largest values added; count() > 0.
  Time min() const { return min_; }
  Time max() const { return max_; }
  // The value of 1-based rank `rank` (1 <= rank <= count()) among the values added, in ascending
  // order: the midpoint of the bucket that holds it, clamped to [min(), max()].
  Time value_at_rank(std::uint64_t rank) const;

  std::size_t memory_bytes() const { return counts_.capacity() * sizeof(std::uint64_t); }

  // The bucket a value falls in, and the value a bucket reports (before clamping).
  static std::size_t bucket_of(Time value);
  static Time midpoint(std::size_t bucket);

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  Time min_ = 0;
  Time max_ = 0;
};

}  // namespace fulcrum::sim
