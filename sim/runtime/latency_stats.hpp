// Latency percentiles by the nearest-rank method (docs/METRICS.md): the p-th percentile of n values
// is the ceil(p/100 x n)-th smallest (1-based), so it is always one of the observed latencies;
// p = 100 is the maximum. LatencyRecorder (latency_recorder.hpp) keeps a stream's latencies and
// uses these while it holds them all.
#pragma once

#include <cstddef>
#include <span>

#include "sim/engine/time.hpp"
#include "sim/runtime/run_result.hpp"

namespace fulcrum::sim {

// 1-based nearest rank of percentile p (0 < p <= 100) among n >= 1 values.
std::size_t nearest_rank(double percentile, std::size_t n);

// Sets p50, p95, p99 and max of `stats` to the exact nearest-rank values of `latencies` (not
// empty; reordered in place; linear time, no full sort). Leaves the mean alone.
void exact_percentiles(std::span<Time> latencies, LatencyStats& stats);

}  // namespace fulcrum::sim
