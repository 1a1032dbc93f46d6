// The one problem builder and ground-truth factory of `optimize` and `sweep`, and the questions
// strategies and truths answer instead of being asked their names.
#include "sim/search/problem_builder.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "models/error.hpp"
#include "sim/config/search_reader.hpp"
#include "sim/search/als.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/strategy.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::orin;
using testing::table_truth;

ProblemRequest one_stream_request() {
  ProblemRequest r;
  r.training = ProblemRequest::Training{"mobilenetv3-large", 16};
  ProblemRequest::Stream s;
  s.workload = "resnet50";
  s.arrival_per_s = 100;
  s.latency_budget_s = 0.5;
  s.workload_key = "inference[0].workload";
  s.batch_key = "search.batch_sizes";
  r.streams.push_back(s);
  r.power_budget_w = 30;
  return r;
}

}  // namespace

TEST_CASE("problem_from names workloads as the truth does and takes the grid the truth covers",
          "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem p = problem_from(one_stream_request(), *truth);
  // The measurement files write "mobilenet_v3" for the catalog's "mobilenetv3-large".
  CHECK(p.training == "mobilenet_v3");
  CHECK(truth->name_for("mobilenetv3-large", models::Phase::training) == "mobilenet_v3");
  CHECK_FALSE(truth->name_for("vgg99", models::Phase::training));
  CHECK(p.streams.at(0).workload == "resnet50");
  CHECK(p.streams[0].latency_budget_s == 0.5);
  CHECK(p.grid == "pagoda-441");  // the 441 modes both tables measured
  CHECK(p.idle_power_w == 18.6);  // models/data/devices/orin-agx-64gb.yaml: idle_w
  CHECK(p.power_budget_w == 30);
}

TEST_CASE("problem_from names the rows the truth lacks", "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  ProblemRequest r = one_stream_request();
  r.training->batch_size = 32;  // the training table holds batch 16 only
  CHECK_THROWS_WITH(problem_from(r, *truth),
                    "training.batch_size: the table ground truth has no training rows of "
                    "'mobilenet_v3' at batch size 32 (it has 16)");
  r = one_stream_request();
  r.streams[0].batch_sizes = {2, 3};
  CHECK_THROWS_WITH(problem_from(r, *truth),
                    Catch::StartsWith("search.batch_sizes: the table ground truth has no "
                                      "inference rows of 'resnet50' at batch sizes 2, 3 (it has "));
  r.streams[0].batch_sizes = {3, 4, 16};  // the ones it has are kept, ascending
  CHECK(problem_from(r, *truth).streams[0].batch_sizes == std::vector<int>{4, 16});
  r = one_stream_request();
  r.streams[0].workload = "vgg99";
  CHECK_THROWS_WITH(problem_from(r, *truth),
                    "inference[0].workload: workload 'vgg99' has no inference data in the table "
                    "ground truth");
}

TEST_CASE("an absent latency budget stays absent and bounds nothing", "[search]") {
  SearchStream s;
  CHECK_FALSE(s.latency_budget_s);
  CHECK(s.latency_bound_s() == std::numeric_limits<double>::infinity());
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 30, std::nullopt, {}});
  CHECK_NOTHROW(check_problem(p));
  p.streams[0].latency_budget_s = 0.0;
  CHECK_THROWS_WITH(check_problem(p), Catch::Contains("streams[0].latency_budget_s: must be > 0"));
}

TEST_CASE("the ground-truth factory makes each kind, each with its own default grid", "[search]") {
  const std::optional<std::string> dir = fulcrum::testing::reference_path("measurements");
  if (!dir) return;
  const TruthSources sources{*dir, FULCRUM_DATA_DIR};
  const auto table = make_ground_truth(GroundTruthKind::table, orin(), sources);
  const auto analytic = make_ground_truth(GroundTruthKind::analytic, orin(), sources);
  CHECK(table->name() == "table");
  CHECK(table->default_grid() == "pagoda-441");
  CHECK(analytic->name() == "analytic");
  CHECK(analytic->default_grid() == "powertrain-4368");
  CHECK(analytic->batch_sizes("resnet50", models::Phase::inference) ==
        std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128});
  CHECK_THROWS_AS(
      make_ground_truth(GroundTruthKind::table, orin(), {"/nonexistent/measurements", ""}),
      InputError);
}

TEST_CASE("presets picks the highest nominal budget within the power budget, MAXN without one",
          "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 30, 1.0, {}});
  p.grid = "pagoda-441";
  auto note_at = [&](std::optional<double> budget) {
    p.power_budget_w = budget;
    const SearchContext ctx = make_context(*truth, p, 1);
    auto s = strategy_registry().make("presets", {});
    return run_strategy(*s, p, ctx).note;
  };
  // models/data/devices/orin-agx-64gb.yaml: MODE_15W 15 W, MODE_30W 30 W, MODE_50W 50 W, MAXN
  // none.
  CHECK_THAT(note_at(std::nullopt), Catch::StartsWith("preset MAXN"));
  CHECK_THAT(note_at(40), Catch::StartsWith("preset MODE_30W"));
  CHECK_THAT(note_at(50), Catch::StartsWith("preset MODE_50W"));
  CHECK_THAT(note_at(1000), Catch::StartsWith("preset MODE_50W"));
  CHECK(note_at(10) == "no preset's budget fits");
}

TEST_CASE("strategies answer what callers used to ask by name", "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 40, 0.6, {}});
  p.power_budget_w = 30;
  p.grid = "pagoda-441";
  const SearchContext ctx = make_context(*truth, p, 5);
  for (const std::string& name : strategy_registry().names()) {
    INFO(name);
    auto s = strategy_registry().make(name, {.max_modes = 12, .seed = 5});
    CHECK(s->answers_from_truth() == (name == "oracle"));
    Profiler profiler(*truth, {.max_modes = s->max_modes()});
    const std::unique_ptr<ReusableAnswer> reusable = s->explore_reusable(p, profiler, ctx);
    CHECK((reusable != nullptr) == (name == "als" || name == "als-modes"));
    if (!reusable) {
      CHECK(profiler.cost().modes == 0);  // nothing explored, nothing charged
      continue;
    }
    CHECK(profiler.cost().modes > 0);
    // The reusable answer is what the strategy itself answers, for this problem and another
    // budget of the same workloads; another workload set is not served.
    Problem other = p;
    other.power_budget_w = 40;
    other.streams[0].arrival_per_s = 100;
    Als fresh({.max_modes = 12});
    Profiler again(*truth, {.max_modes = 12});
    fresh.explore(p, again, ctx);
    for (const Problem& q : {p, other}) {
      const std::optional<Choice> a = reusable->answer(q);
      const std::optional<Choice> b = fresh.answer(q);
      REQUIRE(a);
      REQUIRE(b);
      CHECK(a->found == b->found);
      CHECK(a->mode == b->mode);
      CHECK(a->batch_sizes == b->batch_sizes);
    }
    Problem elsewhere = p;
    elsewhere.training = "mobilenet_v3";
    CHECK_FALSE(reusable->answer(elsewhere));
  }
}

TEST_CASE("the oracle's grid set answers as the oracle solves, for two streams", "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 40, 1.0, {}});
  p.streams.push_back({"lstm", 40, 1.0, {}});
  p.grid = "pagoda-441";
  const SearchContext ctx = make_context(*truth, p, 1);
  const MeasuredSet set = Oracle::grid_set(p, ctx);
  for (double budget : {20.0, 30.0, 40.0}) {
    INFO(budget);
    p.power_budget_w = budget;
    const Choice a = set.answer(p);
    const Choice b = Oracle::solve(p, ctx);
    CHECK(a.found == b.found);
    if (a.found && b.found) CHECK(a.predicted_per_window == b.predicted_per_window);
  }
}

TEST_CASE("an answer that trains nothing is explained by the nearest budgets that would train",
          "[search]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // scenarios/optimize-measured.yaml at a 20 W budget: too tight to train at 100/s.
  Problem p = problem_from(one_stream_request(), *truth);
  p.streams[0].batch_sizes = {1, 4, 16, 32, 64};
  p.power_budget_w = 20;
  const SearchContext ctx = make_context(*truth, p, 1);
  const TrainingBudgets t = Oracle::training_budgets(p, ctx);
  REQUIRE_FALSE(t.trains_now);
  REQUIRE(t.power_budget_w);
  // With the named power budget the oracle trains; a hair below it, nothing trains.
  Problem q = p;
  q.power_budget_w = *t.power_budget_w;
  const Choice at = Oracle::solve(q, ctx);
  REQUIRE(at.found);
  CHECK(at.predicted_per_window > 0);
  q.power_budget_w = *t.power_budget_w * (1 - 1e-9);
  const TrainingBudgets below = Oracle::training_budgets(q, ctx);
  CHECK_FALSE(below.trains_now);
  if (t.latency_budget_s) {
    Problem l = p;
    l.streams[0].latency_budget_s = *t.latency_budget_s;
    const Choice c = Oracle::solve(l, ctx);
    REQUIRE(c.found);
    CHECK(c.predicted_per_window > 0);
  }
  // At the scenario's own 30 W, configurations that train exist.
  p.power_budget_w = 30;
  CHECK(Oracle::training_budgets(p, ctx).trains_now);
}

}  // namespace fulcrum::sim::search

namespace fulcrum::sim::search {

TEST_CASE("the strategy names scenario files accept are the registry's", "[search]") {
  std::vector<std::string> file_names(kStrategyNames.begin(), kStrategyNames.end());
  CHECK(file_names == strategy_registry().names());
}

}  // namespace fulcrum::sim::search
