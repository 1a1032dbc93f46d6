// Latency statistics over completed requests, by the nearest-rank method (docs/METRICS.md):
// the p-th percentile of n values is the ceil(p/100 x n)-th smallest (1-based), so it is always
// one of the observed latencies; p = 100 is the maximum.
#pragma once

#include <optional>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/runtime/run_result.hpp"

namespace fulcrum::sim {

// 1-based nearest rank of percentile p (0 < p <= 100) among n >= 1 values.
std::size_t nearest_rank(double percentile, std::size_t n);

// Mean, p50, p95, p99 and max of `latencies` (reordered in place; linear time, no full sort);
// nullopt when there are none.
std::optional<LatencyStats> summarize_latencies(std::vector<Time>& latencies);

}  // namespace fulcrum::sim
