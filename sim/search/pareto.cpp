#include "sim/search/pareto.hpp"

#include <algorithm>
#include <numeric>

namespace fulcrum::sim::search {

std::vector<std::size_t> pareto_front(std::span<const TimePower> points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Power ascending, then time, then index: a point is on the front exactly when it is faster
  // than every point before it in this order.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].power != points[b].power) return points[a].power < points[b].power;
    return points[a].time < points[b].time;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    if (front.empty() || points[i].time < points[front.back()].time) front.push_back(i);
  }
  return front;
}

std::optional<std::size_t> fastest_within(std::span<const TimePower> points,
                                          std::span<const std::size_t> candidates,
                                          double power_budget) {
  std::optional<std::size_t> best;
  for (std::size_t i : candidates) {
    if (!(points[i].power <= power_budget)) continue;
    if (!best || points[i].time < points[*best].time ||
        (points[i].time == points[*best].time &&
         (points[i].power < points[*best].power ||
          (points[i].power == points[*best].power && i < *best)))) {
      best = i;
    }
  }
  return best;
}

}  // namespace fulcrum::sim::search
