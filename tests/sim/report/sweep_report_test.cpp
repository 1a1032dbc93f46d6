// sweep_json: what `fulcrum sweep --json` prints, from a summary made by hand.
#include "sim/report/sweep_report.hpp"

#include <catch2/catch.hpp>

#include "tests/sim/report/json_check.hpp"

using fulcrum::sim::sweep_json;
using fulcrum::sim::sweep::StrategySummary;
using fulcrum::sim::sweep::SweepSummary;
using fulcrum::sim::testing::parse_json;

TEST_CASE("a sweep's JSON names every strategy's figures, and no met share without a feasible one",
          "[report][sweep]") {
  SweepSummary s{"small", 12, {}};
  StrategySummary gmd;
  gmd.strategy = "gmd";
  gmd.configurations = 12;
  gmd.feasible = 8;
  gmd.met = 6;  // 6 of 8: 75 %
  gmd.mean_ratio = 0.5;
  gmd.p5_ratio = 0;
  gmd.mean_modes = 9.25;
  gmd.profiling_hours = 1.5;
  s.strategies.push_back(gmd);
  StrategySummary none;
  none.strategy = "maxn";
  none.configurations = 12;
  s.strategies.push_back(none);

  const auto j = parse_json(sweep_json(s, "out/sweep-small.csv", 2, 3));
  CHECK(j.at("sweep").text == "small");
  CHECK(j.at("configurations").number == 12);
  CHECK(j.at("shard").number == 2);
  CHECK(j.at("shards").number == 3);
  CHECK(j.at("csv").text == "out/sweep-small.csv");
  const auto& rows = j.at("strategies").items;
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("strategy").text == "gmd");
  CHECK(rows[0].at("met_pct").number == Approx(75.0));
  CHECK(rows[0].at("mean_modes").number == Approx(9.25));
  CHECK(rows[0].at("profiling_hours").number == Approx(1.5));
  CHECK(rows[1].at("met_pct").kind == fulcrum::sim::testing::JsonValue::Kind::null);
}
