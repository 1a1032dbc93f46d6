// nn and powertrain: they respect their profiling budget, learn only through the Profiler,
// answer the same for the same seed, and answer only a configuration they measured feasible.
// Small samples (k = 6) keep the network fits fast.
#include "sim/search/learned_strategies.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/search/evaluation.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::table_truth;

std::vector<Problem> problems() {
  std::vector<Problem> out;
  Problem t;
  t.training = "resnet18";
  t.power_budget_w = 25;
  out.push_back(t);
  Problem c;
  c.training = "mobilenet_v3";
  c.streams.push_back({"lstm", 60, 1.0, {1, 16}});
  c.power_budget_w = 30;
  out.push_back(c);
  Problem two = c;
  two.streams.push_back({"mobilenet_v3", 30, 1.5, {4}});
  out.push_back(two);
  return out;
}

const char* const kLearned[] = {"nn", "powertrain"};

TEST_CASE("the learned strategies are registered with the sample plus one verification mode",
          "[search][learned]") {
  for (const char* name : kLearned) {
    const StrategyInfo* info = strategy_registry().find(name);
    REQUIRE(info != nullptr);
    CHECK(info->default_budget == kLearnedDefaultSample + 1);
  }
  // The reference networks take the mode's four features.
  CHECK(powertrain_reference(default_data_dir()).time_net().net.inputs() == 4);
  CHECK(powertrain_reference(default_data_dir()).power_net().net.inputs() == 4);
  // They come from the folder the caller names, not from a process-wide one.
  CHECK_THROWS_AS(powertrain_reference("/nonexistent-fulcrum-data"), InputError);
  CHECK(&powertrain_reference(default_data_dir()) == &powertrain_reference(default_data_dir()));
}

TEST_CASE("nn and powertrain respect their budget and read the truth only through the Profiler",
          "[search][learned]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const char* name : kLearned) {
    for (const Problem& p : problems()) {
      // k = 6 under the default budget: 6 sampled + 1 verified; a budget of 4: 3 + 1.
      for (std::optional<int> budget : {std::optional<int>{}, std::optional<int>{4}}) {
        INFO(name << ", " << p.streams.size() << " stream(s), budget "
                  << (budget ? std::to_string(*budget) : "default"));
        const std::unique_ptr<Strategy> s =
            strategy_registry().make(name, {.max_modes = budget, .k = 6, .seed = 2});
        const SearchContext ctx = make_context(*truth, p, 1);
        const std::uint64_t before = truth->reads();
        Profiler profiler(*truth, {.max_modes = s->max_modes()});
        const Choice c = s->choose(p, profiler, ctx);
        CHECK(truth->reads() - before == profiler.truth_reads());
        CHECK(profiler.cost().refused == 0);
        CHECK(profiler.cost().modes <= (budget ? 4 : 7));
        CHECK(profiler.cost().modes >= (budget ? 3 : 6));
        CHECK(c.tries == profiler.cost().modes);
        // The answer is a configuration it measured feasible: without noise, the truth agrees.
        if (c.found) {
          CHECK(ctx.grid.index_of(c.mode).has_value());
          CHECK(Scorer::evaluate(p, c, *truth).budgets_met);
        }
      }
    }
  }
}

TEST_CASE("nn and powertrain answer the same for the same seed", "[search][learned]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem p = problems()[1];
  const SearchContext ctx = make_context(*truth, p, 11);
  const ProfilerOptions noisy{.noise = 0.05, .seed = 5};
  for (const char* name : kLearned) {
    INFO(name);
    const Choice a =
        run_strategy(*strategy_registry().make(name, {.k = 6, .seed = 3}), p, ctx, noisy);
    const Choice b =
        run_strategy(*strategy_registry().make(name, {.k = 6, .seed = 3}), p, ctx, noisy);
    CHECK(a.found == b.found);
    CHECK(a.mode == b.mode);
    CHECK(a.batch_sizes == b.batch_sizes);
    CHECK(a.predicted_per_s == b.predicted_per_s);
    CHECK(a.cost.seconds == b.cost.seconds);
    CHECK(a.note == b.note);
  }
  // Another seed samples other modes.
  const std::unique_ptr<Strategy> s1 = strategy_registry().make("nn", {.k = 6, .seed = 3});
  const std::unique_ptr<Strategy> s2 = strategy_registry().make("nn", {.k = 6, .seed = 4});
  Profiler p1(*truth);
  Profiler p2(*truth);
  s1->choose(p, p1, ctx);
  s2->choose(p, p2, ctx);
  CHECK(p1.modes() != p2.modes());
}

TEST_CASE("a learned strategy reused over problems answers as a fresh one", "[search][learned]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // Its memo of predictions (same sample, same rows) must not change the answer.
  Problem a = problems()[1];
  Problem b = a;
  b.power_budget_w = 20;
  const std::unique_ptr<Strategy> reused = strategy_registry().make("powertrain", {.k = 6});
  const SearchContext ctx = make_context(*truth, a);
  run_strategy(*reused, a, ctx);
  const Choice again = run_strategy(*reused, b, ctx);
  const Choice fresh = run_strategy(*strategy_registry().make("powertrain", {.k = 6}), b, ctx);
  CHECK(again.found == fresh.found);
  CHECK(again.mode == fresh.mode);
  CHECK(again.batch_sizes == fresh.batch_sizes);
  CHECK(again.note == fresh.note);
}

TEST_CASE("a cached fit gives the choices an uncached one gives, and is fitted once",
          "[search][learned]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // The same workloads under other budgets and rates: the same sample, so the same fits.
  std::vector<Problem> set;
  for (double watts : {18.0, 30.0}) {
    for (double rate : {40.0, 90.0}) {
      Problem p = problems()[1];
      p.power_budget_w = watts;
      p.streams[0].arrival_per_s = rate;
      set.push_back(p);
    }
  }
  const SearchContext ctx = make_context(*truth, set[0], 5);
  auto run_all = [&](const char* name) {
    std::vector<Choice> out;
    for (const Problem& p : set) {
      out.push_back(run_strategy(*strategy_registry().make(name, {.k = 6, .seed = 2}), p, ctx));
    }
    return out;
  };
  for (const char* name : kLearned) {
    INFO(name);
    clear_learned_fit_cache();
    set_learned_fit_cache_capacity(0);
    const std::vector<Choice> uncached = run_all(name);
    // Two series (training; lstm at 1 and 16) fitted for each of the four problems.
    CHECK(learned_fit_cache_stats().fits == 4 * 3);
    CHECK(learned_fit_cache_stats().hits == 0);
    CHECK(learned_fit_cache_stats().entries == 0);
    set_learned_fit_cache_capacity(kLearnedFitCacheBytes);
    const std::vector<Choice> cached = run_all(name);
    CHECK(learned_fit_cache_stats().fits == 4 * 3 + 3);  // the counts add up since the clear
    CHECK(learned_fit_cache_stats().hits == 3 * 3);
    CHECK(learned_fit_cache_stats().entries == 3);
    for (std::size_t i = 0; i < set.size(); ++i) {
      CHECK(cached[i].found == uncached[i].found);
      CHECK(cached[i].mode == uncached[i].mode);
      CHECK(cached[i].batch_sizes == uncached[i].batch_sizes);
      CHECK(cached[i].predicted_per_window == uncached[i].predicted_per_window);
      CHECK(cached[i].predicted_per_s == uncached[i].predicted_per_s);
      CHECK(cached[i].cost.modes == uncached[i].cost.modes);
      CHECK(cached[i].cost.seconds == uncached[i].cost.seconds);
      CHECK(cached[i].note == uncached[i].note);
    }
    // The budgets differ, so the answers are not all one (the cache is not answering for them).
    CHECK_FALSE((cached[0].mode == cached[2].mode && cached[0].found == cached[2].found &&
                 cached[0].batch_sizes == cached[2].batch_sizes));
    // Past its capacity the oldest entries go: a cache of one entry's size keeps one.
    set_learned_fit_cache_capacity(learned_fit_cache_stats().bytes / 3);
    CHECK(learned_fit_cache_stats().entries == 1);
  }
  clear_learned_fit_cache();
  set_learned_fit_cache_capacity(kLearnedFitCacheBytes);
}

}  // namespace
}  // namespace fulcrum::sim::search
