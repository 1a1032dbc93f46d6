#include <catch2/catch.hpp>
#include <set>
#include <tuple>

#include "models/device/mode_space.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/pareto.hpp"
#include "sim/search/profiler.hpp"
#include "sim/search/strategies.hpp"
#include "sim/search/strategy.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::orin;
using testing::table_truth;

TEST_CASE("the mode grids are the ones the measurements cover", "[search]") {
  const models::ModeSpace pt = models::ModeSpace::grid(orin(), "powertrain-4368");
  const models::ModeSpace small = models::ModeSpace::grid(orin(), "pagoda-441");
  CHECK(pt.size() == 4368);
  CHECK(small.size() == 441);
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  Profiler profiler(*truth);
  // resnet18 and mobilenet_v3 training: every PowerTrain mode; bert_base and lstm: the 441 only.
  for (const char* w : {"resnet18", "mobilenet_v3"}) {
    for (std::size_t i = 0; i < pt.size(); ++i) {
      INFO(w << " " << pt.at(i).label());
      REQUIRE(profiler.profile(w, models::Phase::training, 16, pt.at(i)).ok());
    }
  }
  for (std::size_t i = 0; i < small.size(); ++i) {
    REQUIRE(profiler.profile("bert_base", models::Phase::training, 16, small.at(i)).ok());
    REQUIRE(profiler.profile("resnet50", models::Phase::inference, 64, small.at(i)).ok());
  }
  CHECK(profiler.cost().modes == 4368);
  CHECK(truth->rows() == 9618 + 11024);
  CHECK(truth->batch_sizes("bert_large", models::Phase::inference) ==
        std::vector<int>{1, 4, 8, 16, 32});
  CHECK(truth->batch_sizes("mobilenet_v3", models::Phase::inference) ==
        std::vector<int>{1, 4, 16, 32, 64});
}

TEST_CASE("the Profiler charges modes and seconds, caches, refuses beyond its budget", "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const models::ModeSpace g = models::ModeSpace::grid(orin(), "pagoda-441");
  Profiler p(*truth, {.settle_s = 2.0, .minibatches = 9, .max_modes = 2});
  const Profile a = p.profile("resnet18", models::Phase::training, 16, g.at(0));
  REQUIRE(a.ok());
  CHECK(p.cost().modes == 1);
  CHECK(p.cost().seconds == Approx(2.0 + 10 * a.value.time_ms / 1000.0));
  // Same measurement again: free. Another phase at the same mode: a measurement, no new mode.
  CHECK(p.profile("resnet18", models::Phase::training, 16, g.at(0)).value.time_ms ==
        a.value.time_ms);
  CHECK(p.cost().measurements == 1);
  CHECK(p.profile("mobilenet_v3", models::Phase::inference, 4, g.at(0)).ok());
  CHECK(p.cost().modes == 1);
  CHECK(p.cost().measurements == 2);
  CHECK(p.profile("resnet18", models::Phase::training, 16, g.at(1)).ok());
  const Profile refused = p.profile("resnet18", models::Phase::training, 16, g.at(2));
  CHECK(refused.status == ProfileStatus::over_budget);
  CHECK(p.cost().modes == 2);
  CHECK(p.cost().refused == 1);
  CHECK_FALSE(p.can_profile(g.at(3)));
  CHECK(p.truth_reads() == 3);
  // bert_large has no batch-1 row at one mode: no data, not an error.
  Profiler q(*truth);
  models::PowerMode hole = g.at(0);
  hole.cores = 8;
  hole.cpu_khz = 1958400;
  hole.gpu_hz = 726750000;
  hole.emc_hz = 2133000000;
  CHECK(q.profile("bert_large", models::Phase::inference, 1, hole).status ==
        ProfileStatus::no_data);
}

TEST_CASE("a strategy's mode budget is capped at its grid and ends at the Profiler's limit",
          "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const models::ModeSpace g = models::ModeSpace::grid(orin(), "pagoda-441");
  Profiler unlimited(*truth);
  // A budget above the grid's 441 modes is the grid.
  CHECK(ModeBudget(1000, g.size(), unlimited).modes() == 441);
  const ModeBudget three(3, g.size(), unlimited);
  CHECK(three.modes() == 3);
  CHECK(three.allows(2));
  CHECK_FALSE(three.allows(3));
  // The Profiler's own limit of 2 modes ends a budget of 5 after two modes, whatever the
  // strategy counted.
  Profiler two(*truth, {.max_modes = 2});
  const ModeBudget five(5, g.size(), two);
  CHECK(two.can_profile_new_mode());
  REQUIRE(two.profile("resnet18", models::Phase::training, 16, g.at(0)).ok());
  CHECK(five.allows(1));
  REQUIRE(two.profile("resnet18", models::Phase::training, 16, g.at(1)).ok());
  CHECK_FALSE(two.can_profile_new_mode());
  CHECK_FALSE(five.allows(0));
  CHECK(two.can_profile(g.at(1)));  // a mode already charged stays open
}

TEST_CASE("profiling noise is seeded and multiplicative", "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const models::PowerMode m = models::ModeSpace::grid(orin(), "pagoda-441").at(100);
  Profiler exact(*truth);
  Profiler n1(*truth, {.noise = 0.05, .seed = 3});
  Profiler n2(*truth, {.noise = 0.05, .seed = 3});
  Profiler n3(*truth, {.noise = 0.05, .seed = 4});
  const double t = exact.profile("lstm", models::Phase::training, 16, m).value.time_ms;
  const double t1 = n1.profile("lstm", models::Phase::training, 16, m).value.time_ms;
  CHECK(t1 == n2.profile("lstm", models::Phase::training, 16, m).value.time_ms);
  CHECK(t1 != n3.profile("lstm", models::Phase::training, 16, m).value.time_ms);
  CHECK(t1 != t);
  CHECK(t1 == Approx(t).epsilon(0.3));
}

TEST_CASE("the Pareto front of hand-made points", "[search]") {
  // time, power
  const std::vector<TimePower> pts = {{10, 5}, {8, 6},  {9, 7},  {8, 6}, {12, 4},
                                      {5, 9},  {5, 10}, {13, 4}, {7, 6}};
  // {10,5}: dominated by none with power <= 5 faster? {12,4} slower -> on the front.
  // {8,6}: dominated by {7,6}. {9,7}: dominated by {7,6}. {13,4} dominated by {12,4}.
  // {5,10} dominated by {5,9}.
  const std::vector<std::size_t> front = pareto_front(pts);
  CHECK(front == std::vector<std::size_t>{4, 0, 8, 5});
  CHECK(fastest_within(pts, front, 6.5) == std::optional<std::size_t>{8});
  CHECK(fastest_within(pts, front, 4.5) == std::optional<std::size_t>{4});
  CHECK_FALSE(fastest_within(pts, front, 3.0).has_value());
  CHECK(pareto_front(std::vector<TimePower>{}).empty());
  const std::vector<TimePower> same = {{1, 1}, {1, 1}};
  CHECK(pareto_front(same) == std::vector<std::size_t>{0});
}

TEST_CASE("the closed form of one window", "[search]") {
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 30, 0.5, {}});
  p.power_budget_w = 20;
  p.idle_power_w = 5;
  // b = 4 at 30/s: window 133.33 ms; t_in 20 ms -> (133.33 - 20) / 50 = 2.27 -> 2 minibatches.
  const SteadyState s = steady_state(p, MeasuredPoint{50, 18}, MeasuredPoint{20, 15}, 4);
  CHECK(s.stable);
  CHECK(s.per_window == 2);
  CHECK(s.per_s == Approx(2 / (4.0 / 30)));
  CHECK(s.peak_latency_s == Approx(4.0 / 30 + 0.020));
  CHECK(s.latency_met);
  CHECK(s.power_max_w == 18);
  const double w = 4.0 / 30;
  CHECK(s.power_avg_w == Approx((0.020 * 15 + 0.100 * 18 + (w - 0.120) * 5) / w));
  CHECK(s.feasible());
  // Unstable: t_in longer than the window.
  const SteadyState u = steady_state(p, MeasuredPoint{50, 18}, MeasuredPoint{140, 15}, 4);
  CHECK_FALSE(u.stable);
  CHECK_FALSE(u.feasible());
  CHECK(u.per_window == 0);
  // Over the budget with the published power, under it time-weighted.
  p.power_budget_w = 17;
  CHECK_FALSE(steady_state(p, MeasuredPoint{50, 18}, MeasuredPoint{20, 15}, 4).power_met);
  p.power_kind = PowerConstraint::time_weighted;
  CHECK(steady_state(p, MeasuredPoint{50, 18}, MeasuredPoint{20, 15}, 4).power_met);
}

TEST_CASE("the strategy registry makes strategies by name", "[search]") {
  const StrategyRegistry& r = strategy_registry();
  for (const char* n : {"maxn", "presets", "random", "binary", "oracle"}) {
    INFO(n);
    REQUIRE(r.find(n) != nullptr);
    CHECK(r.make(n, {})->name() == n);
  }
  CHECK_THROWS_WITH(r.make("nope", {}), Catch::Contains("unknown strategy 'nope' (known: "));
  StrategyRegistry copy;
  add_builtin_strategies(copy);
  CHECK_THROWS_WITH(copy.add({"maxn", "", 1, make_maxn}), Catch::Contains("registered twice"));
}

}  // namespace
}  // namespace fulcrum::sim::search
