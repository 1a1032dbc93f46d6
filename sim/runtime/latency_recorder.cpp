#include "sim/runtime/latency_recorder.hpp"

#include <algorithm>
#include <cassert>
#include <span>

#include "sim/runtime/latency_stats.hpp"

namespace fulcrum::sim {

LatencyRecorder::LatencyRecorder(std::size_t expected, std::size_t exact_limit)
    : exact_limit_(exact_limit) {
  assert(exact_limit_ > 0 && exact_limit_ < (std::size_t{1} << 32));
  capacity_ = static_cast<std::uint32_t>(std::min(expected, exact_limit_));
  // Not value-initialised: zeroing room that is then written would cost a pass over it.
  if (capacity_ > 0) exact_.reset(new Time[capacity_]);
}

void LatencyRecorder::add_beyond_capacity(Time latency) {
  if (!histogram_ && size_ < exact_limit_) {
    // Grow by doubling, but never past the limit: the exact values cost at most limit x 8 B.
    const auto grown = static_cast<std::uint32_t>(
        std::min(std::max<std::size_t>(2 * std::size_t{capacity_}, 64), exact_limit_));
    std::unique_ptr<Time[]> bigger(new Time[grown]);
    std::copy(exact_.get(), exact_.get() + size_, bigger.get());
    exact_ = std::move(bigger);
    capacity_ = grown;
    exact_[size_++] = latency;
    return;
  }
  if (!histogram_) {
    // The limit is reached: count everything kept so far and from now on in the histogram.
    histogram_ = std::make_unique<LatencyHistogram>();
    for (std::uint32_t i = 0; i < size_; ++i) {
      histogram_->add(exact_[i]);
      histogram_sum_ns_ += static_cast<std::uint64_t>(exact_[i]);
    }
    exact_.reset();
    size_ = 0;
    capacity_ = 0;
  }
  histogram_->add(latency);
  histogram_sum_ns_ += static_cast<std::uint64_t>(latency);
}

std::optional<LatencyStats> LatencyRecorder::stats() {
  const std::uint64_t n = count();
  if (n == 0) return std::nullopt;
  LatencyStats stats;
  // The mean from the exact sum, rounded once: q + r / n nanoseconds.
  Uint128 sum_ns = histogram_sum_ns_;
  if (!histogram_) {
    for (std::uint32_t i = 0; i < size_; ++i) sum_ns += static_cast<std::uint64_t>(exact_[i]);
  }
  const auto q = static_cast<std::uint64_t>(sum_ns / n);
  const auto r = static_cast<std::uint64_t>(sum_ns % n);
  const double mean_ns = static_cast<double>(q) + static_cast<double>(r) / static_cast<double>(n);
  stats.mean_ms = mean_ns * 1e-6;
  if (!histogram_) {
    exact_percentiles(std::span<Time>(exact_.get(), size_), stats);
    return stats;
  }
  stats.p50_ms = to_milliseconds(histogram_->value_at_rank(nearest_rank(50, n)));
  stats.p95_ms = to_milliseconds(histogram_->value_at_rank(nearest_rank(95, n)));
  stats.p99_ms = to_milliseconds(histogram_->value_at_rank(nearest_rank(99, n)));
  stats.max_ms = to_milliseconds(histogram_->max());
  return stats;
}

std::size_t LatencyRecorder::memory_bytes() const {
  return std::size_t{capacity_} * sizeof(Time) + (histogram_ ? histogram_->memory_bytes() : 0);
}

}  // namespace fulcrum::sim
