#include "sim/search/comparison.hpp"

#include <catch2/catch.hpp>

#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::table_truth;

TEST_CASE("the reference configurations are the predecessor study's grids", "[search][compare]") {
  CHECK(training_reference_problems().size() == 174);
  const std::vector<Problem> c = concurrent_reference_problems(Objective::per_second);
  REQUIRE(c.size() == 3 * 6560);
  CHECK(c.front().streams.at(0).latency_budget_s == 0.5);
  CHECK(c.back().streams.at(0).arrival_per_s == 120);
  CHECK(c.back().objective == Objective::per_second);
}

TEST_CASE("the comparison scores the oracle perfectly and the others against it",
          "[search][compare]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  std::vector<Problem> sample;
  const std::vector<Problem> all = concurrent_reference_problems();
  for (std::size_t i = 0; i < all.size(); i += 97) sample.push_back(all[i]);
  for (const Problem& p : training_reference_problems()) sample.push_back(p);

  const StrategyScore oracle = compare_strategy("oracle", sample, *truth);
  CHECK(oracle.configurations == static_cast<int>(sample.size()));
  REQUIRE(oracle.with_optimum > 0);
  CHECK(oracle.met == oracle.with_optimum);
  CHECK(oracle.mean_ratio == Approx(1.0));
  CHECK(oracle.p5_ratio == Approx(1.0));

  const StrategyScore gmd = compare_strategy("gmd", sample, *truth);
  CHECK(gmd.with_optimum == oracle.with_optimum);
  CHECK(gmd.met <= gmd.with_optimum);
  CHECK(gmd.mean_ratio <= 1.0 + 1e-9);
  CHECK(gmd.mean_ratio > 0.5);
  CHECK(gmd.mean_modes > 5);
  CHECK(gmd.mean_modes <= 25);
  CHECK(gmd.profiling_hours > 0);
  // Same inputs, same figures.
  const StrategyScore again = compare_strategy("gmd", sample, *truth);
  CHECK(again.mean_ratio == gmd.mean_ratio);
  CHECK(again.profiling_hours == gmd.profiling_hours);

  const StrategyScore maxn = compare_strategy("maxn", sample, *truth);
  CHECK(maxn.mean_modes == 1);
  CHECK(maxn.met_pct() < gmd.met_pct());
}

}  // namespace
}  // namespace fulcrum::sim::search
