#include "sim/search/ground_truth.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "models/error.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/strategy.hpp"
#include "tests/sim/search/search_fixture.hpp"
#include "tests/temp_dir.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::orin;

// A model whose figures follow the clocks simply: time ~ 1/GPU clock, power ~ GPU clock.
class FakeModel : public models::PerfModel {
 public:
  std::string name() const override { return "fake"; }
  models::Prediction predict(const models::PerfQuery& q) const override {
    models::Prediction p;
    const double ghz = q.mode.gpu_hz / 1e9;
    p.time_ms = (q.phase == models::Phase::training ? 100.0 : 5.0 * q.batch_size) / ghz;
    p.power.power_w = {5.0 + 20.0 * ghz, 3.0};
    return p;
  }
  models::RailPower idle_power(const models::DeviceSpec&, const models::PowerMode&) const override {
    return {{5.0}};
  }
};

TEST_CASE("a performance model serves as the ground truth", "[search][truth]") {
  const FakeModel model;
  const ModelGroundTruth truth(orin(), model, {1, 8, 32});
  CHECK(truth.name() == "analytic");
  CHECK(truth.batch_sizes("resnet18", models::Phase::inference) == std::vector<int>{1, 8, 32});
  CHECK(truth.batch_sizes("mobilenet_v3", models::Phase::training) == std::vector<int>{16});
  CHECK(truth.batch_sizes("no-such-model", models::Phase::training).empty());

  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 50, 1.0, {}});
  p.power_budget_w = 25;
  p.grid = "powertrain-4368";
  const SearchContext ctx = make_context(truth, p);
  CHECK(ctx.stream_batches.at(0) == std::vector<int>{1, 8, 32});
  Profiler profiler(truth);
  const models::PowerMode m = ctx.grid.at(100);
  const Profile tr = profiler.profile("resnet18", models::Phase::training, 16, m);
  REQUIRE(tr.ok());
  CHECK(tr.value.time_ms == Approx(100.0 / (m.gpu_hz / 1e9)));
  CHECK(tr.value.power_w == Approx(8.0 + 20.0 * m.gpu_hz / 1e9));
  // The oracle picks the fastest GPU clock within 25 W: 8 + 20 f <= 25 -> f <= 0.85 GHz.
  const Choice best = Oracle::solve(p, ctx);
  REQUIRE(best.found);
  CHECK(best.mode.gpu_hz <= 0.85e9);
  CHECK(best.mode.gpu_hz == 828750000);
  CHECK(best.batch_sizes == std::vector<int>{32});
}

TEST_CASE("unknown workloads and grids are input errors", "[search][truth]") {
  const FakeModel model;
  const ModelGroundTruth truth(orin(), model);
  Problem p;
  p.training = "no-such-model";
  CHECK_THROWS_AS(make_context(truth, p), InputError);
  p.training = "resnet18";
  p.streams.push_back({"nothing", 10, 1, {}});
  CHECK_THROWS_WITH(make_context(truth, p), Catch::Contains("inference workload 'nothing'"));
  p.streams.clear();
  p.grid = "no-grid";
  CHECK_THROWS_WITH(make_context(truth, p), Catch::Contains("unknown mode grid"));
}

TEST_CASE("a problem no strategy can answer is an input error naming its key", "[search][truth]") {
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", 30, 0.5, {}});
  CHECK_NOTHROW(check_problem(p));
  Problem bad = p;
  bad.streams[0].arrival_per_s = 0;
  CHECK_THROWS_WITH(check_problem(bad), "streams[0].arrival_per_s: must be > 0, got 0");
  bad = p;
  bad.streams[0].batch_sizes = {4, 4};
  CHECK_THROWS_WITH(check_problem(bad), Catch::Contains("streams[0].batch_sizes[1]"));
  bad = p;
  bad.power_budget_w = -5;
  CHECK_THROWS_WITH(check_problem(bad), "power_budget_w: must be > 0, got -5");
  bad = p;
  bad.streams.resize(3, p.streams[0]);
  CHECK_THROWS_WITH(check_problem(bad), Catch::Contains("at most two"));
  bad = Problem{};
  CHECK_THROWS_AS(check_problem(bad), InputError);
  const FakeModel model;
  const ModelGroundTruth truth(orin(), model);
  bad = p;
  bad.streams[0].latency_budget_s = std::nan("");
  CHECK_THROWS_WITH(make_context(truth, bad), Catch::Contains("streams[0].latency_budget_s"));
}

TEST_CASE("a malformed measurement table is a located input error", "[search][truth]") {
  fulcrum::testing::TempDir dir;
  {
    std::ofstream t(dir.path() / "orin-agx-training-modes.csv");
    t << "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
         "minibatch_time_ms,power_w,in_grid441\n"
      << "resnet18,x,train,16,12,2201600,1300500000,3199000000,50.0,40.0,1\n"
      << "resnet18,x,train,16,3,2201600,1300500000,3199000000,50.0,40.0,1\n";
    std::ofstream i(dir.path() / "orin-agx-inference-modes.csv");
    i << "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
         "minibatch_time_ms,power_w\n";
  }
  CHECK_THROWS_WITH(TableGroundTruth::load(dir.path().string(), orin()),
                    Catch::Contains("orin-agx-training-modes.csv:3:") &&
                        Catch::Contains("not on the powertrain-4368 grid"));
}

}  // namespace
}  // namespace fulcrum::sim::search

namespace fulcrum::sim::search {
namespace {

TEST_CASE("the calibrated analytic model serves as the ground truth for a what-if search",
          "[search][truth]") {
  const std::unique_ptr<models::PerfModel> analytic =
      load_perf_model(AnalyticPerfModel{}, FULCRUM_DATA_DIR, orin());
  const ModelGroundTruth truth(orin(), *analytic, {1, 4, 16});
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"resnet50", 40, 1.0, {}});
  p.power_budget_w = 30;
  const SearchContext ctx = make_context(truth, p);
  const Choice best = Oracle::solve(p, ctx);
  const Choice gmd = run_strategy(*strategy_registry().make("gmd", {}), p, ctx);
  REQUIRE(best.found);
  const Outcome o = Scorer::evaluate(p, best, truth);
  CHECK(o.budgets_met);
  CHECK(o.actual.power_max_w <= 30);
  if (gmd.found) {
    const Outcome g = Scorer::evaluate(p, gmd, truth);
    CHECK(g.budgets_met);
    CHECK(g.actual.per_window <= o.actual.per_window);
  }
  CHECK(gmd.cost.modes > 5);
}

}  // namespace
}  // namespace fulcrum::sim::search
