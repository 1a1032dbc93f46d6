#include "sim/runtime/latency_recorder.hpp"

#include <algorithm>
#include <cassert>
#include <span>

#include "sim/runtime/latency_stats.hpp"

namespace fulcrum::sim {

LatencyRecorder::LatencyRecorder(std::size_t expected, std::size_t exact_limit)
    : exact_limit_(exact_limit) {
  assert(exact_limit_ > 0);
  capacity_ = std::min(expected, exact_limit_);
  if (capacity_ > 0) exact_ = std::make_unique<Time[]>(capacity_);
}

void LatencyRecorder::add_beyond_capacity(Time latency) {
  if (!histogram_ && size_ < exact_limit_) {
    // Grow by doubling, but never past the limit: the exact values cost at most limit x 8 B.
    const std::size_t grown = std::min(std::max<std::size_t>(2 * capacity_, 64), exact_limit_);
    auto bigger = std::make_unique<Time[]>(grown);
    std::copy(exact_.get(), exact_.get() + size_, bigger.get());
    exact_ = std::move(bigger);
    capacity_ = grown;
    exact_[size_++] = latency;
    return;
  }
  if (!histogram_) {
    // The limit is reached: count everything kept so far and from now on in the histogram.
    histogram_ = std::make_unique<LatencyHistogram>();
    for (std::size_t i = 0; i < size_; ++i) histogram_->add(exact_[i]);
    exact_.reset();
    size_ = 0;
    capacity_ = 0;
  }
  histogram_->add(latency);
}

std::optional<LatencyStats> LatencyRecorder::stats() {
  const std::uint64_t n = count();
  if (n == 0) return std::nullopt;
  LatencyStats stats;
  // The mean from the exact sum, rounded once: q + r / n nanoseconds.
  const auto q = static_cast<std::uint64_t>(sum_ns_ / n);
  const auto r = static_cast<std::uint64_t>(sum_ns_ % n);
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
  return capacity_ * sizeof(Time) + (histogram_ ? histogram_->memory_bytes() : 0);
}

}  // namespace fulcrum::sim
