// Every strategy respects its profiling budget, learns only through its Profiler (the ground
// truth's read counter equals the profiler's own), and answers the same for the same seed.
#include "sim/search/strategy.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/search/evaluation.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::table_truth;

std::vector<Problem> sample_problems() {
  std::vector<Problem> out;
  Problem t;
  t.training = "resnet18";
  t.power_budget_w = 25;
  out.push_back(t);
  Problem c;
  c.training = "mobilenet_v3";
  c.streams.push_back({"lstm", 60, 1.0, {}});
  c.power_budget_w = 30;
  out.push_back(c);
  Problem tight = c;
  tight.power_budget_w = 16;
  tight.streams[0].latency_budget_s = 0.6;
  out.push_back(tight);
  Problem two = c;
  two.streams.push_back({"mobilenet_v3", 30, 1.5, {}});
  out.push_back(two);
  return out;
}

TEST_CASE("strategies respect their profiling budget and read the truth only through the Profiler",
          "[search][strategy]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const std::string& name : strategy_registry().names()) {
    if (name == "oracle") continue;
    for (const Problem& p : sample_problems()) {
      for (std::optional<int> budget : {std::optional<int>{}, std::optional<int>{3}}) {
        INFO(name << " training " << p.training << ", " << p.streams.size() << " stream(s), budget "
                  << (budget ? std::to_string(*budget) : "default"));
        const std::unique_ptr<Strategy> s = strategy_registry().make(name, {.max_modes = budget});
        const SearchContext ctx = make_context(*truth, p, 1);
        const std::uint64_t before = truth->reads();
        Profiler profiler(*truth, {.max_modes = s->max_modes()});
        Choice c = s->choose(p, profiler, ctx);
        // Every value the strategy saw came through its profiler.
        CHECK(truth->reads() - before == profiler.truth_reads());
        if (s->max_modes()) CHECK(profiler.cost().modes <= *s->max_modes());
        if (budget) CHECK(s->max_modes() == budget);
        // A choice names a mode of the grid the problem asked for.
        if (c.found) CHECK(ctx.grid.index_of(c.mode).has_value());
      }
    }
  }
}

TEST_CASE("only the oracle reads the ground truth directly", "[search][strategy]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem p = sample_problems()[1];
  const SearchContext ctx = make_context(*truth, p);
  const std::unique_ptr<Strategy> oracle = strategy_registry().make("oracle", {});
  const std::uint64_t before = truth->reads();
  Profiler profiler(*truth);
  const Choice c = oracle->choose(p, profiler, ctx);
  CHECK(c.found);
  CHECK(profiler.truth_reads() == 0);
  CHECK(truth->reads() - before >= 441);  // the whole grid
  // No strategy beats the oracle on the truth.
  const Outcome best = Scorer::evaluate(p, c, *truth);
  REQUIRE(best.budgets_met);
  for (const std::string& name : strategy_registry().names()) {
    const Choice other = run_strategy(*strategy_registry().make(name, {}), p, ctx);
    const Outcome o = Scorer::evaluate(p, other, *truth);
    INFO(name);
    if (o.budgets_met) CHECK(o.actual.per_s <= best.actual.per_s + 1e-9);
  }
}

TEST_CASE("strategies answer the same for the same seed, with or without noise",
          "[search][strategy]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const std::string& name : strategy_registry().names()) {
    for (const Problem& p : sample_problems()) {
      INFO(name);
      const SearchContext ctx = make_context(*truth, p, 11);
      const ProfilerOptions noisy{.noise = 0.05, .seed = 5};
      const Choice a = run_strategy(*strategy_registry().make(name, {.seed = 3}), p, ctx, noisy);
      const Choice b = run_strategy(*strategy_registry().make(name, {.seed = 3}), p, ctx, noisy);
      CHECK(a.found == b.found);
      CHECK(a.mode == b.mode);
      CHECK(a.batch_sizes == b.batch_sizes);
      CHECK(a.tries == b.tries);
      CHECK(a.cost.seconds == b.cost.seconds);
    }
  }
  // The random strategy's draw depends on its seed.
  const Problem p = sample_problems()[0];
  const SearchContext ctx = make_context(*truth, p);
  std::vector<models::PowerMode> picks;
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    const Choice c = run_strategy(*strategy_registry().make("random", {.seed = seed}), p, ctx);
    if (c.found) picks.push_back(c.mode);
  }
  REQUIRE(picks.size() >= 2);
  CHECK(std::count(picks.begin(), picks.end(), picks.front()) < static_cast<long>(picks.size()));
}

TEST_CASE("gmd+ is at least as good as gmd on the reference problems it is run on",
          "[search][strategy]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  int better_or_equal = 0;
  int total = 0;
  for (const Problem& p : sample_problems()) {
    if (p.streams.size() > 1) continue;
    const SearchContext ctx = make_context(*truth, p);
    const Outcome g =
        Scorer::evaluate(p, run_strategy(*strategy_registry().make("gmd", {}), p, ctx), *truth);
    const Outcome gp =
        Scorer::evaluate(p, run_strategy(*strategy_registry().make("gmd+", {}), p, ctx), *truth);
    ++total;
    if (!g.budgets_met || (gp.budgets_met && gp.actual.per_s >= g.actual.per_s)) ++better_or_equal;
  }
  CHECK(better_or_equal == total);
}

}  // namespace
}  // namespace fulcrum::sim::search
