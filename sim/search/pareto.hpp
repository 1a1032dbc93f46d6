// The Pareto front of (time, power) points: the points no other point beats on both (smaller or
// equal time and power, one strictly smaller). Used by `random`, by Pareto-set strategies, and to
// answer a new budget from a front without profiling again.
//
//   std::vector<std::size_t> front = pareto_front(points);      // indices, power ascending
//   std::optional<std::size_t> pick = fastest_within(points, front, 25.0);
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace fulcrum::sim::search {

struct TimePower {
  double time = 0;   // smaller is better (any unit)
  double power = 0;  // smaller is better
};

// Indices of the non-dominated points, ordered by power ascending (then time). Of identical
// points only the first is kept.
std::vector<std::size_t> pareto_front(std::span<const TimePower> points);

// Among `candidates` (indices into points), the fastest whose power <= budget (tie: lower power,
// then lower index); nullopt when none fits.
std::optional<std::size_t> fastest_within(std::span<const TimePower> points,
                                          std::span<const std::size_t> candidates,
                                          double power_budget);

}  // namespace fulcrum::sim::search
