// LatencyRecorder: the latencies of one stream's completed requests, in memory bounded whatever the
// duration (docs/METRICS.md, "How latencies are kept"). The first kExactLimit latencies are kept as
// they are, so a stream that completed at most that many reports exact nearest-rank percentiles;
// from the next one on they are counted in a LatencyHistogram (within 2^-11 relative error). The
// mean uses an exact integer sum and the maximum is exact either way.
//
//   LatencyRecorder latencies(expected_requests);   // reserves min(expected, kExactLimit)
//   latencies.add(completion - arrival);
//   std::optional<LatencyStats> stats = latencies.stats();
//
// Memory: at most kExactLimit x 8 B (8 MiB) while exact; once past it the exact values are freed
// and the histogram holds LatencyHistogram::kBuckets x 8 B (432 KiB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "sim/engine/time.hpp"
#include "sim/runtime/latency_histogram.hpp"
#include "sim/runtime/run_result.hpp"

namespace fulcrum::sim {

class LatencyRecorder {
 public:
  static constexpr std::size_t kExactLimit = std::size_t{1} << 20;  // 1,048,576 latencies

  // `expected`: how many latencies to make room for at once (capped at exact_limit).
  // `exact_limit` > 0: how many are kept exactly (tests use a small one).
  explicit LatencyRecorder(std::size_t expected = 0, std::size_t exact_limit = kExactLimit);

  void add(Time latency) {  // latency >= 0
    if (size_ < capacity_) [[likely]] {
      exact_[size_++] = latency;
      return;
    }
    add_beyond_capacity(latency);
  }
  // add(latency_of(j)) for j = 0 .. n - 1, with one room check for all of them when they fit:
  // a completed batch adds its requests' latencies this way.
  template <typename LatencyOf>
  void add_n(std::size_t n, LatencyOf&& latency_of) {
    if (n <= capacity_ - size_) [[likely]] {
      Time* out = exact_.get() + size_;
      for (std::size_t j = 0; j < n; ++j) out[j] = latency_of(j);
      size_ += static_cast<std::uint32_t>(n);
      return;
    }
    for (std::size_t j = 0; j < n; ++j) add(latency_of(j));
  }

  std::uint64_t count() const { return histogram_ ? histogram_->count() : size_; }
  // Whether every latency is still kept (the statistics are the exact nearest-rank values).
  bool is_exact() const { return !histogram_; }
  // Mean, p50, p95, p99 and max; nullopt when none were added. Reorders the exact values.
  std::optional<LatencyStats> stats();

  std::size_t memory_bytes() const;

 private:
  __extension__ using Uint128 = unsigned __int128;  // a sum of any number of int64 values

  void add_beyond_capacity(Time latency);

  std::size_t exact_limit_;
  std::unique_ptr<Time[]> exact_;
  // 32-bit (the exact limit is far below 2^32): a store of a latency cannot alias them, so the
  // loop adding a batch's latencies keeps them in registers.
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = 0;
  std::unique_ptr<LatencyHistogram> histogram_;  // from the (exact_limit + 1)-th latency on
  Uint128 histogram_sum_ns_ = 0;                 // of every latency, once in the histogram
};

}  // namespace fulcrum::sim
