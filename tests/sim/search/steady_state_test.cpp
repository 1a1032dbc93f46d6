#include "sim/search/steady_state.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "models/random/rng_streams.hpp"

namespace fulcrum::sim::search {
namespace {

TEST_CASE("the two-stream bound", "[search][closed-form]") {
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 40, 0.5, {}});
  p.streams.push_back({"lstm", 20, 1.0, {}});
  p.idle_power_w = 5;
  // Stream 1: b = 8 at 40/s, w1 = 0.2 s, t1 = 20 ms; stream 2: b = 4 at 20/s, w2 = 0.2 s,
  // t2 = 40 ms. u = 0.1 + 0.2 = 0.3; training 50 ms: 0.7 / 0.05 = 14/s, floor(0.2 * 0.7 / 0.05)
  // = 2.
  const SteadyState s = steady_state_two(p, MeasuredPoint{50, 30}, MeasuredPoint{20, 20}, 8,
                                         MeasuredPoint{40, 25}, 4);
  CHECK(s.stable);
  CHECK(s.per_s == Approx(14.0));
  CHECK(s.per_window == 2);
  CHECK(s.peak_latency_s == Approx(0.2 + 0.02 + 0.04));
  CHECK(s.latency_met);
  CHECK(s.power_max_w == 30);
  CHECK(s.power_avg_w == Approx(0.1 * 20 + 0.2 * 25 + 0.7 * 30));
  // Overloaded: the utilisation exceeds 1.
  const SteadyState o = steady_state_two(p, MeasuredPoint{50, 30}, MeasuredPoint{150, 20}, 8,
                                         MeasuredPoint{120, 25}, 4);
  CHECK_FALSE(o.stable);
  CHECK_FALSE(o.feasible());
  CHECK(o.per_s == 0);
}

TEST_CASE("the candidate scan finds what judging every candidate one by one finds",
          "[search][closed-form]") {
  const std::vector<int> batches = {1, 4, 16, 64};
  constexpr std::size_t kModes = 300;
  models::Rng rng(9);
  std::vector<std::optional<MeasuredPoint>> train(kModes);
  std::vector<std::vector<std::optional<MeasuredPoint>>> infer(batches.size(), train);
  for (std::size_t m = 0; m < kModes; ++m) {
    const double speed = 0.2 + rng.uniform();
    if (m % 37 != 0) train[m] = MeasuredPoint{60.0 / speed, 10.0 + 30.0 * speed * rng.uniform()};
    for (std::size_t j = 0; j < batches.size(); ++j) {
      if ((m + j) % 41 == 0) continue;  // a few unmeasured candidates
      infer[j][m] =
          MeasuredPoint{(3.0 + 2.5 * batches[j]) / speed, 9.0 + 30.0 * speed * rng.uniform()};
    }
  }
  for (Objective objective : {Objective::per_window, Objective::per_second}) {
    for (PowerConstraint kind : {PowerConstraint::max_of_phases, PowerConstraint::time_weighted}) {
      for (double a : {20.0, 80.0}) {
        for (double budget : {18.0, 25.0, 35.0}) {
          Problem p;
          p.training = "t";
          p.streams.push_back({"i", a, 0.6, {}});
          p.power_budget_w = budget;
          p.objective = objective;
          p.power_kind = kind;
          p.idle_power_w = 6;
          const CandidateTable table(p, batches, train, infer);
          const CandidateTable::Best fast = table.best(p);
          std::optional<SteadyState> slow;
          int slow_batch = 0;
          std::size_t slow_mode = 0;
          for (std::size_t j = 0; j < batches.size(); ++j) {
            for (std::size_t m = 0; m < kModes; ++m) {
              if (!train[m] || !infer[j][m]) continue;
              const SteadyState s = steady_state(p, train[m], infer[j][m], batches[j]);
              if (!s.feasible()) continue;
              if (!slow || better(objective, s, *slow)) {
                slow = s;
                slow_batch = batches[j];
                slow_mode = m;
              }
            }
          }
          INFO(to_string(objective) << " " << to_string(kind) << " a=" << a << " P=" << budget);
          REQUIRE(fast.found == slow.has_value());
          if (!slow) continue;
          CHECK(fast.mode == slow_mode);
          CHECK(fast.batch_size == slow_batch);
          CHECK(fast.state.per_s == slow->per_s);
          CHECK(fast.state.per_window == slow->per_window);
        }
      }
    }
  }
}

}  // namespace
}  // namespace fulcrum::sim::search
