#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/device/mode_space.hpp"
#include "sim/search/als.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/prior.hpp"
#include "sim/search/strategies.hpp"
#include "sim/search/strategy.hpp"
#include "sim/search/surrogate.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::orin;
using testing::table_truth;

Problem concurrent(double arrival, double latency, double power) {
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"mobilenet_v3", arrival, latency, {}});
  p.power_budget_w = power;
  p.objective = Objective::per_window;
  return p;
}

TEST_CASE("the GP interpolates a smooth function of the mode features", "[search][surrogate]") {
  const models::ModeSpace grid = models::ModeSpace::grid(orin(), "pagoda-441");
  const ModeFeatures f(grid);
  const Eigen::MatrixXd& x = f.all();
  // A known function: a power law plus a bump.
  auto truth = [&](Eigen::Index i) {
    return 3.0 - 0.8 * x(i, 2) - 0.3 * x(i, 3) + 0.2 * std::exp(-x.row(i).squaredNorm());
  };
  const std::vector<std::size_t> sample = space_filling(f, 60);
  Eigen::VectorXd y(static_cast<Eigen::Index>(sample.size()));
  for (std::size_t k = 0; k < sample.size(); ++k) {
    y(static_cast<Eigen::Index>(k)) = truth(static_cast<Eigen::Index>(sample[k]));
  }
  GaussianProcess gp({.min_signal_sd = 0.01, .nugget = 1e-4});
  gp.fit(f.rows(sample), y);
  const GaussianProcess::Prediction p = gp.predict(x);
  double worst = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    worst = std::max(worst, std::abs(p.mean(i) - truth(i)));
  CHECK(worst < 0.1);  // the function spans about 4 units
  // At a sampled point the uncertainty is small, far from all of them larger.
  CHECK(p.sd(static_cast<Eigen::Index>(sample[0])) < p.sd.maxCoeff());
}

TEST_CASE("a GP bank with a length scale per axis finds the axis its targets vary fast along",
          "[search][surrogate]") {
  const models::ModeSpace grid = models::ModeSpace::grid(orin(), "pagoda-441");
  const ModeFeatures f(grid);
  const Eigen::MatrixXd& x = f.all();
  // Two targets that wave along the GPU clock (a period of about 1.6 standardised units), rise
  // slowly with the cores and do not depend on the CPU or EMC clock at all.
  auto truth = [&](Eigen::Index i, Eigen::Index j) {
    return (j == 0 ? 1.0 : -2.0) * std::sin(4.0 * x(i, 2)) + 0.2 * x(i, 0);
  };
  const std::vector<std::size_t> sample = space_filling(f, 60);
  Eigen::MatrixXd y(static_cast<Eigen::Index>(sample.size()), 2);
  for (std::size_t k = 0; k < sample.size(); ++k) {
    for (Eigen::Index j = 0; j < 2; ++j) {
      y(static_cast<Eigen::Index>(k), j) = truth(static_cast<Eigen::Index>(sample[k]), j);
    }
  }
  const Eigen::VectorXd floor = Eigen::VectorXd::Constant(2, 0.01);
  auto held_out_rms = [&](const GpBank& bank) {
    Eigen::MatrixXd mean, sd;
    bank.predict(x, mean, sd);
    std::set<std::size_t> in(sample.begin(), sample.end());
    double sum = 0;
    int n = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      if (in.count(static_cast<std::size_t>(i)) != 0) continue;
      for (Eigen::Index j = 0; j < 2; ++j) sum += std::pow(mean(i, j) - truth(i, j), 2);
      n += 2;
    }
    return std::sqrt(sum / n);
  };
  GpBank one({.nugget = 1e-4});
  one.fit(f.rows(sample), y, floor);
  GpBank axes({.nugget = 1e-4, .per_axis = true});
  axes.fit(f.rows(sample), y, floor);
  const Eigen::VectorXd& a = axes.axis_factors();
  INFO("length scale " << axes.length_scale() << ", axis factors " << a.transpose()
                       << "; held-out rms " << held_out_rms(axes) << " against "
                       << held_out_rms(one) << " with one length scale");
  REQUIRE(a.size() == 4);
  CHECK(one.axis_factors() == Eigen::VectorXd::Ones(4));
  // The axes the targets ignore get longer length scales than the one they wave along.
  CHECK(a(1) > a(2));
  CHECK(a(3) > a(2));
  CHECK(held_out_rms(axes) < held_out_rms(one));
}

TEST_CASE("space-filling samples are distinct and start in the middle", "[search][surrogate]") {
  const models::ModeSpace grid = models::ModeSpace::grid(orin(), "pagoda-441");
  const std::vector<std::size_t> s = space_filling(ModeFeatures(grid), 20);
  REQUIRE(s.size() == 20);
  CHECK(std::set<std::size_t>(s.begin(), s.end()).size() == 20);
  const models::PowerMode mid = grid.at(s[0]);
  // The middle of the log-standardised axes: no axis at an extreme.
  CHECK(mid.cores == 8);
  CHECK(mid.gpu_hz > grid.gpu_hz().front());
  CHECK(mid.gpu_hz < grid.gpu_hz().back());
  CHECK(mid.cpu_khz > grid.cpu_khz().front());
  CHECK(mid.cpu_khz < grid.cpu_khz().back());
}

TEST_CASE("als and prior respect their budgets and read the truth only through the Profiler",
          "[search][als][prior]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem p = concurrent(60, 1.0, 25);
  const SearchContext ctx = make_context(*truth, p);
  for (const char* name : {"als", "prior"}) {
    for (int budget : {5, 20}) {
      INFO(name << " budget " << budget);
      std::unique_ptr<Strategy> s = strategy_registry().make(name, {.max_modes = budget});
      CHECK(s->max_modes() == budget);
      Profiler profiler(*truth, {.max_modes = budget});
      const std::uint64_t before = truth->reads();
      Choice c = s->choose(p, profiler, ctx);
      CHECK(profiler.cost().modes <= budget);
      CHECK(profiler.cost().refused == 0);
      // Every ground-truth read was the Profiler's.
      CHECK(truth->reads() - before == profiler.truth_reads());
      if (c.found) CHECK(profiler.profiled(c.mode));
    }
  }
}

TEST_CASE("als answers new budgets and arrival rates without profiling", "[search][als]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem first = concurrent(60, 1.0, 25);
  const SearchContext ctx = make_context(*truth, first);
  Als als({.max_modes = 60});
  Profiler profiler(*truth, {.max_modes = 60});
  als.explore(first, profiler, ctx);
  REQUIRE(als.kept() != nullptr);
  CHECK(profiler.cost().modes == static_cast<int>(als.kept()->modes().size()));
  CHECK(profiler.cost().modes <= 60);
  CHECK_FALSE(als.kept()->pareto_modes().empty());
  const std::uint64_t reads = truth->reads();
  const ProfilingCost cost = profiler.cost();
  int answered = 0;
  for (double a : {30.0, 90.0, 120.0}) {
    for (double l : {0.5, 1.5}) {
      for (double w : {15.0, 30.0, 45.0}) {
        const Problem q = concurrent(a, l, w);
        const std::optional<Choice> c = als.answer(q);
        REQUIRE(c.has_value());
        // choose() with a fresh Profiler reuses the kept set: nothing profiled.
        Profiler fresh(*truth);
        const Choice again = als.choose(q, fresh, ctx);
        CHECK(fresh.cost().modes == 0);
        CHECK(again.found == c->found);
        if (c->found) {
          CHECK(again.mode == c->mode);
          ++answered;
          CHECK(c->predicted_power_w <= w);
        }
      }
    }
  }
  CHECK(answered > 0);
  CHECK(truth->reads() == reads);  // no ground truth read while answering
  CHECK(profiler.cost().modes == cost.modes);
  // Other workloads are not served by the kept set.
  Problem other = first;
  other.training = "mobilenet_v3";
  CHECK_FALSE(als.answer(other).has_value());
}

TEST_CASE("als and prior are deterministic and answer within budgets on the truth",
          "[search][als][prior]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem p = concurrent(40, 0.8, 30);
  const SearchContext ctx = make_context(*truth, p, 5);
  for (const char* name : {"als", "prior"}) {
    INFO(name);
    std::unique_ptr<Strategy> a = strategy_registry().make(name, {});
    std::unique_ptr<Strategy> b = strategy_registry().make(name, {});
    const Choice ca = run_strategy(*a, p, ctx);
    const Choice cb = run_strategy(*b, p, ctx);
    REQUIRE(ca.found);
    CHECK(ca.mode == cb.mode);
    CHECK(ca.batch_sizes == cb.batch_sizes);
    CHECK(ca.cost.modes == cb.cost.modes);
    CHECK(Scorer::evaluate(p, ca, *truth).budgets_met);
  }
}

// als explored once per workload set and asked every configuration of a slice of rates, latency
// and power budgets that its family lattice does not hold (per window unless `objective` says
// otherwise, max-of-phases, seed 1): the share of the configurations with a feasible optimum
// where it met both budgets, and the mean and 5th percentile of its objective (minibatches per
// window, or per second) over the oracle's (1 where the optimum trains nothing and the budgets
// were met; 0 where a budget was missed).
struct SliceQuality {
  int feasible = 0;
  double met = 0, mean = 0, p5 = 0;
};

using WorkloadSets = std::vector<std::pair<std::string, std::vector<std::string>>>;

const WorkloadSets kSliceSets = {{"resnet18", {"mobilenet_v3"}},
                                 {"mobilenet_v3", {"lstm"}},
                                 {"bert_base", {"yolov8n"}},
                                 {"resnet18", {"mobilenet_v3", "lstm"}}};

// The configurations a slice asks, and the one it explores at (by default a rate, latency and
// power budget that the slice does not use either).
struct SliceGrid {
  std::vector<double> rates_per_s = {35, 75, 115};
  std::vector<double> latency_s = {0.65, 1.1, 1.8};
  std::vector<double> power_w = {12.5, 17.0, 22.5, 27.0, 33.5, 41.0, 47.5};
  double explore_rate_per_s = 33, explore_latency_s = 0.7, explore_power_w = 12;
};

SliceQuality als_on_slice(const TableGroundTruth& truth, const AlsOptions& options,
                          Objective objective = Objective::per_window,
                          PowerConstraint power_kind = PowerConstraint::max_of_phases,
                          const WorkloadSets& sets = kSliceSets, const SliceGrid& grid = {}) {
  std::vector<double> ratios;
  int met = 0;
  for (const auto& [training, streams] : sets) {
    Problem base;
    base.training = training;
    for (const std::string& w : streams) {
      base.streams.push_back({w, grid.explore_rate_per_s, grid.explore_latency_s, {}});
    }
    base.power_budget_w = grid.explore_power_w;
    base.objective = objective;
    base.power_kind = power_kind;
    if (power_kind == PowerConstraint::time_weighted)
      base.idle_power_w = catalog_idle_power_w(orin());
    const SearchContext ctx = make_context(truth, base, 1);
    Als als(options);
    Profiler profiler(truth);
    als.explore(base, profiler, ctx);
    for (double a : grid.rates_per_s) {
      for (double l : grid.latency_s) {
        for (double w : grid.power_w) {
          Problem q = base;
          for (SearchStream& st : q.streams) {
            st.arrival_per_s = a;
            st.latency_budget_s = l;
          }
          q.power_budget_w = w;
          const Choice o = Oracle::solve(q, ctx);
          if (!o.found) continue;
          const Outcome out = Scorer::evaluate(q, *als.answer(q), truth);
          met += out.budgets_met ? 1 : 0;
          const double optimum = objective == Objective::per_window
                                     ? static_cast<double>(o.predicted_per_window)
                                     : o.predicted_per_s;
          const double reached = objective == Objective::per_window
                                     ? static_cast<double>(out.actual.per_window)
                                     : out.actual.per_s;
          ratios.push_back(!out.budgets_met ? 0.0 : optimum > 0 ? reached / optimum : 1.0);
        }
      }
    }
  }
  SliceQuality q;
  q.feasible = static_cast<int>(ratios.size());
  if (ratios.empty()) return q;
  q.met = static_cast<double>(met) / static_cast<double>(ratios.size());
  for (double r : ratios) q.mean += r / static_cast<double>(ratios.size());
  std::sort(ratios.begin(), ratios.end());
  q.p5 = ratios[static_cast<std::size_t>(0.05 * static_cast<double>(ratios.size()))];
  return q;
}

// The three stages below were measured with one length scale for the four mode axes, before the
// length scale per axis (AlsOptions::per_axis_length_scales), and are checked with it: under the
// per-axis kernel the slice's figures are those of the last test of this group, and the cover's
// advantage on this slice is gone (docs/SEARCH.md, "als").
const AlsOptions kOneScale = {.per_axis_length_scales = false};

TEST_CASE("als spends the end of its budget on the problems its set answers", "[search][als]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const SliceQuality with = als_on_slice(*truth, kOneScale);
  const SliceQuality without =
      als_on_slice(*truth, {.family_modes = 0, .per_axis_length_scales = false});
  INFO("with the family stage: " << with.feasible << " feasible, met " << with.met << ", mean "
                                 << with.mean << ", p5 " << with.p5);
  INFO("without: met " << without.met << ", mean " << without.mean << ", p5 " << without.p5);
  REQUIRE(with.feasible == without.feasible);
  REQUIRE(with.feasible > 100);
  // Reached: 189 feasible; with the stage 100% met, mean 0.989, p5 0.833; without (the front
  // loop to the end of the budget) 100%, 0.973, 0.833. (Before the seed's core x CPU cover of
  // step 1: 100%, 0.986, 0.909 with the stage; 100%, 0.983, 0.833 without.)
  CHECK(with.met >= 0.995);
  CHECK(with.mean >= 0.98);
  CHECK(with.p5 >= 0.8);
  CHECK(with.mean > without.mean);
  CHECK(with.p5 >= without.p5);
}

TEST_CASE("als covers every core count and CPU clock tercile before its active loop",
          "[search][als]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const Objective objective : {Objective::per_window, Objective::per_second}) {
    const SliceQuality with = als_on_slice(*truth, kOneScale, objective);
    const SliceQuality without = als_on_slice(
        *truth, {.cover_cores_cpu = false, .per_axis_length_scales = false}, objective);
    INFO("per " << (objective == Objective::per_window ? "window" : "second") << ": "
                << with.feasible << " feasible; met " << with.met << ", mean " << with.mean
                << ", p5 " << with.p5 << "; without the cover: " << without.met << ", "
                << without.mean << ", " << without.p5);
    REQUIRE(with.feasible == without.feasible);
    REQUIRE(with.feasible > 100);
    // Reached: 189 feasible; per window 100% met, mean 0.989, p5 0.833 with the cover, 100%,
    // 0.978, 0.833 without; per second 100%, 0.994, 1 with it, 100%, 0.986, 0.909 without.
    CHECK(with.met >= 0.995);
    CHECK(with.mean >= 0.985);
    CHECK(with.p5 >= 0.8);
    CHECK(with.mean > without.mean);
    CHECK(with.p5 >= without.p5);
  }
}

TEST_CASE("als keeps each stream's own front under time-weighted power", "[search][als]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const Objective objective : {Objective::per_window, Objective::per_second}) {
    const WorkloadSets sets = {{"resnet18", {"resnet50", "lstm"}},
                               {"mobilenet_v3", {"resnet50", "lstm"}},
                               {"resnet18", {"lstm", "yolov8n"}},
                               {"bert_base", {"yolov8n"}}};
    const SliceQuality with =
        als_on_slice(*truth, kOneScale, objective, PowerConstraint::time_weighted, sets);
    const SliceQuality without =
        als_on_slice(*truth, {.stream_power_views = false, .per_axis_length_scales = false},
                     objective, PowerConstraint::time_weighted, sets);
    INFO("per " << (objective == Objective::per_window ? "window" : "second") << ": "
                << with.feasible << " feasible; met " << with.met << ", mean " << with.mean
                << ", p5 " << with.p5 << "; without the streams' own fronts: " << without.met
                << ", " << without.mean << ", " << without.p5);
    REQUIRE(with.feasible == without.feasible);
    REQUIRE(with.feasible > 100);
    // Reached: 180 feasible; per window 100% met, mean 0.988, p5 1 with the streams' own fronts,
    // 100%, 0.981, 0.833 without; per second 100%, 0.987, 0.927 with them, 100%, 0.984, 0.926
    // without.
    CHECK(with.met >= 0.995);
    CHECK(with.mean >= 0.985);
    CHECK(with.p5 >= 0.9);
    CHECK(with.mean > without.mean);
    CHECK(with.p5 >= without.p5);
  }
}

TEST_CASE("als with a length scale per mode axis answers the held-out per-window set it missed",
          "[search][als]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // scenarios/sweeps/heldout-per-window.yaml's bert_base + yolov8n set at its fixed arrival rates
  // (per window, time-weighted), explored at its first configuration as `fulcrum sweep` does.
  const WorkloadSets sets = {{"bert_base", {"yolov8n"}}};
  const SliceGrid heldout{.rates_per_s = {45, 85, 110},
                          .latency_s = {0.6, 0.9, 1.3, 1.9},
                          .power_w = {13, 16, 19, 23, 27, 33, 38, 44, 47},
                          .explore_rate_per_s = 45,
                          .explore_latency_s = 0.6,
                          .explore_power_w = 13};
  const SliceQuality with = als_on_slice(*truth, {}, Objective::per_window,
                                         PowerConstraint::time_weighted, sets, heldout);
  const SliceQuality without =
      als_on_slice(*truth, {.per_axis_length_scales = false}, Objective::per_window,
                   PowerConstraint::time_weighted, sets, heldout);
  INFO(with.feasible << " feasible; met " << with.met << ", mean " << with.mean << ", p5 "
                     << with.p5 << "; with one length scale: " << without.met << ", "
                     << without.mean << ", " << without.p5);
  REQUIRE(with.feasible == without.feasible);
  REQUIRE(with.feasible > 60);
  // Reached: 72 feasible; 100% met, mean 1, p5 1 with a length scale per axis; 94.4% (4 misses:
  // 110/s at 27 W, every latency budget, where the one feasible mode, 8c/1344/930.75/3199 MHz
  // with yolov8n at batch 16, is left unmeasured), 0.944, p5 0 with one.
  CHECK(with.met == 1.0);
  CHECK(with.mean >= 0.99);
  CHECK(without.met < 1.0);
  // The slices of the tests above, per window and per second, max-of-phases and time-weighted,
  // all with the per-axis kernel (the targets are >= 99.5% met, mean >= 0.97, p5 >= 0.8).
  const WorkloadSets time_weighted_sets = {{"resnet18", {"resnet50", "lstm"}},
                                           {"mobilenet_v3", {"resnet50", "lstm"}},
                                           {"resnet18", {"lstm", "yolov8n"}},
                                           {"bert_base", {"yolov8n"}}};
  for (const PowerConstraint kind :
       {PowerConstraint::max_of_phases, PowerConstraint::time_weighted}) {
    for (const Objective objective : {Objective::per_window, Objective::per_second}) {
      const SliceQuality q =
          als_on_slice(*truth, {}, objective, kind,
                       kind == PowerConstraint::max_of_phases ? kSliceSets : time_weighted_sets);
      INFO((kind == PowerConstraint::max_of_phases ? "max-of-phases" : "time-weighted")
           << " per " << (objective == Objective::per_window ? "window" : "second") << ": "
           << q.feasible << " feasible; met " << q.met << ", mean " << q.mean << ", p5 " << q.p5);
      REQUIRE(q.feasible > 100);
      // Reached (met, mean, p5): max-of-phases per window 100%, 0.993, 1 and per second 100%,
      // 0.987, 0.907 (189 feasible; with one length scale 0.989, 0.833 and 0.994, 1: the tests
      // above); time-weighted per window 100%, 0.986, 1 and per second 100%, 0.982, 0.893 (180
      // feasible; with one length scale 0.988, 1 and 0.987, 0.927).
      CHECK(q.met >= 0.995);
      CHECK(q.mean >= 0.98);
      CHECK(q.p5 >= 0.85);
    }
  }
}

// Not run by default: prints the quality of the model strategies on a slice of the concurrent
// grid (throughput / oracle, budgets met, modes), for tuning.
TEST_CASE("model strategy quality on a slice", "[.quality]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const char* pair : {"resnet18/mobilenet_v3", "mobilenet_v3/lstm", "bert_base/resnet50"}) {
    const std::string ps(pair);
    Problem base = concurrent(60, 1.0, 25);
    base.training = ps.substr(0, ps.find('/'));
    base.streams[0].workload = ps.substr(ps.find('/') + 1);
    const SearchContext ctx = make_context(*truth, base, 1);
    {
      MeasuredSet all = MeasuredSet::for_problem(base, ctx);
      Profiler everything(*truth);
      for (std::size_t g = 0; g < ctx.grid.size(); ++g) all.measure(everything, ctx.grid, g);
      std::cout << pair << ": " << all.pareto_modes().size() << " of " << all.modes().size()
                << " measured modes are Pareto-optimal\n";
    }
    std::vector<std::string> names = {"als", "prior", "random", "binary"};
    if (const char* only = std::getenv("FULCRUM_QUALITY_STRATEGIES")) names = {only};
    for (const std::string& sname : names) {
      const char* name = sname.c_str();
      double ratio = 0, modes = 0;
      int feasible = 0, met = 0, n = 0;
      Als als;
      bool explored = false;
      for (double a : {30.0, 60.0, 90.0, 120.0}) {
        for (double l : {0.5, 0.8, 1.2, 2.0}) {
          for (double w : {12.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0}) {
            Problem q = base;
            q.streams[0].arrival_per_s = a;
            q.streams[0].latency_budget_s = l;
            q.power_budget_w = w;
            const Choice o = Oracle::solve(q, ctx);
            ++n;
            if (!o.found) continue;
            ++feasible;
            Choice c;
            if (std::string(name) == "als") {
              if (!explored) {
                c = run_strategy(als, q, ctx);  // explores once; later problems reuse the set
                explored = true;
              } else {
                c = *als.answer(q);
              }
              modes += static_cast<double>(als.kept()->modes().size());
            } else {
              StrategyOptions so;
              if (const char* k = std::getenv("FULCRUM_QUALITY_K")) so.k = std::atoi(k);
              std::unique_ptr<Strategy> s = strategy_registry().make(name, so);
              c = run_strategy(*s, q, ctx);
              modes += c.cost.modes;
            }
            const Outcome out = Scorer::evaluate(q, c, *truth);
            if (out.budgets_met) {
              ++met;
              ratio += o.predicted_per_window > 0
                           ? static_cast<double>(out.actual.per_window) / o.predicted_per_window
                           : 1.0;
            }
          }
        }
      }
      std::cout << pair << " " << name << ": feasible " << feasible << "/" << n << " met "
                << 100.0 * met / feasible << "% ratio " << ratio / feasible << " modes "
                << modes / feasible << "\n";
    }
  }
}

}  // namespace
}  // namespace fulcrum::sim::search
