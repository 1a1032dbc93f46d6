#include "sim/search/fewshot.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/search/comparison.hpp"
#include "sim/search/evaluation.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::table_truth;

Problem problem_of(std::vector<std::string> streams, double arrival, double latency, double power,
                   Objective objective, PowerConstraint kind) {
  Problem p;
  p.training = "resnet18";
  for (const std::string& s : streams) p.streams.push_back({s, arrival, latency, {}});
  p.power_budget_w = power;
  p.objective = objective;
  p.power_kind = kind;
  p.idle_power_w = 5;
  p.grid = "pagoda-441";
  return p;
}

std::vector<Problem> mixed_problems() {
  return {
      problem_of({"mobilenet_v3"}, 40, 0.6, 25, Objective::per_window,
                 PowerConstraint::max_of_phases),
      problem_of({"yolov8n"}, 110, 0.9, 17, Objective::per_second, PowerConstraint::max_of_phases),
      problem_of({"lstm", "yolov8n"}, 65, 1.45, 22.5, Objective::per_second,
                 PowerConstraint::time_weighted),
      problem_of({}, 0, 0, 21, Objective::per_second, PowerConstraint::max_of_phases)};
}

const char* const kVariants[] = {"fewshot", "fewshot-zs", "fewshot-bare"};

TEST_CASE(
    "fewshot learns only through the Profiler, within its budget, answering only what it "
    "measured feasible",
    "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  for (const char* name : kVariants) {
    for (const Problem& p : mixed_problems()) {
      INFO(name << " streams " << p.streams.size() << " power " << *p.power_budget_w);
      const SearchContext ctx = make_context(*truth, p, 3);
      for (int budget : {6, 15}) {
        auto s = strategy_registry().make(name, {.max_modes = budget, .seed = 3});
        CHECK(s->keeps_profiles());
        const std::uint64_t before = truth->reads();
        Profiler profiler(*truth, {.max_modes = s->max_modes()});
        const Choice c = s->choose(p, profiler, ctx);
        // Every read of the truth went through this profiler.
        CHECK(truth->reads() - before == profiler.truth_reads());
        CHECK(profiler.cost().modes <= budget);
        CHECK(profiler.cost().refused == 0);  // it never asks beyond its budget
        CHECK(c.tries == profiler.cost().modes);
        if (c.found) {
          // What it answers it measured: on the exact truth it meets the budgets.
          CHECK(Scorer::evaluate(p, c, *truth).budgets_met);
          CHECK(profiler.profiled(c.mode));
        }
      }
    }
  }
}

TEST_CASE("fewshot gives the same answer and cost for the same seed", "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const Problem p = mixed_problems()[2];
  const SearchContext ctx = make_context(*truth, p, 9);
  for (const char* name : kVariants) {
    INFO(name);
    auto a = strategy_registry().make(name, {.seed = 9});
    auto b = strategy_registry().make(name, {.seed = 9});
    const Choice ca = run_strategy(*a, p, ctx, {.noise = 0.03, .seed = 9});
    const Choice cb = run_strategy(*b, p, ctx, {.noise = 0.03, .seed = 9});
    CHECK(ca.found == cb.found);
    CHECK(ca.mode == cb.mode);
    CHECK(ca.batch_sizes == cb.batch_sizes);
    CHECK(ca.cost.modes == cb.cost.modes);
    CHECK(ca.cost.seconds == cb.cost.seconds);
  }
}

// Two segments of a dynamic case on mobilenet_v3 (1.2 s, 30 W, per window): 40/s, then `to_per_s`.
struct RateChange {
  Problem first, second;
  SearchContext ctx;
};
RateChange rate_change(const TableGroundTruth& truth, double to_per_s) {
  Problem first = problem_of({"mobilenet_v3"}, 40, 1.2, 30, Objective::per_window,
                             PowerConstraint::max_of_phases);
  Problem second = first;
  second.streams[0].arrival_per_s = to_per_s;
  SearchContext ctx = make_context(truth, first, 2);
  return {std::move(first), std::move(second), std::move(ctx)};
}

TEST_CASE("fewshot reuses the modes it measured for an earlier problem through the same Profiler",
          "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // A dynamic case: the arrival rate changes from 40/s to 100/s.
  const auto [first, second, ctx] = rate_change(*truth, 100);
  FewShot s({.max_modes = 15, .followup_modes = 4});
  Profiler profiler(*truth, {.max_modes = 30});
  const Choice c1 = s.choose(first, profiler, ctx);
  const int after_first = profiler.cost().modes;
  REQUIRE(after_first > 0);
  REQUIRE(after_first <= 15);
  const Choice c2 = s.choose(second, profiler, ctx);
  // The second problem's new modes: 15 less those already measured, but at least 4.
  const int fresh = profiler.cost().modes - after_first;
  CHECK(c2.tries == fresh);
  CHECK(fresh <= std::max(15 - after_first, 4));
  CHECK(c1.found);
  CHECK(c2.found);
  if (c2.found) CHECK(Scorer::evaluate(second, c2, *truth).budgets_met);
  // A fresh strategy on a fresh profiler pays for every mode again.
  FewShot t({.max_modes = 15});
  Profiler other(*truth, {.max_modes = 15});
  t.choose(second, other, ctx);
  CHECK(other.cost().modes > fresh);
}

TEST_CASE(
    "fewshot adds no new mode for a later problem once its budget is spent if a kept mode meets "
    "the later problem's budgets",
    "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // A budget of 5 modes, all spent on the first problem; the second (the rate 40/s -> 44/s) is
  // met by the first's answer, a kept mode, so it is answered from the kept modes alone.
  const auto [first, second, ctx] = rate_change(*truth, 44);
  FewShot s({.max_modes = 5, .followup_modes = 4});
  Profiler profiler(*truth, {.max_modes = 10});
  const Choice c1 = s.choose(first, profiler, ctx);
  REQUIRE(profiler.cost().modes == 5);
  REQUIRE(c1.found);
  REQUIRE(Scorer::evaluate(second, c1, *truth).budgets_met);
  const Choice c2 = s.choose(second, profiler, ctx);
  CHECK(profiler.cost().modes == 5);
  CHECK(c2.tries == 0);
  REQUIRE(c2.found);
  CHECK(Scorer::evaluate(second, c2, *truth).budgets_met);
  CHECK(profiler.profiled(c2.mode));
  // With followup_found_modes it may spend that many more.
  FewShot t({.max_modes = 5, .followup_modes = 4, .followup_found_modes = 2});
  Profiler other(*truth, {.max_modes = 10});
  t.choose(first, other, ctx);
  t.choose(second, other, ctx);
  CHECK(other.cost().modes >= 5);
  CHECK(other.cost().modes <= 7);
}

TEST_CASE("fewshot measures every core count of the grid among its first modes",
          "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  int spread = 0;
  for (const Problem& p : mixed_problems()) {
    const SearchContext ctx = make_context(*truth, p, 4);
    std::set<int> grid_cores;
    for (std::size_t g = 0; g < ctx.grid.size(); ++g) grid_cores.insert(ctx.grid.at(g).cores);
    REQUIRE(grid_cores.size() == 3);  // pagoda-441: 4, 8 and 12 cores
    FewShot s({.max_modes = 15});
    Profiler profiler(*truth, {.max_modes = 15});
    const Choice c = s.choose(p, profiler, ctx);
    INFO("streams " << p.streams.size() << " power " << *p.power_budget_w);
    // Where nothing measured is feasible and no mode is likely to be, it may measure the fastest
    // mode instead (step 2), then stop: the rule is checked where it found an answer.
    if (!c.found) continue;
    // Each of its first modes (up to three) at a core count not measured before.
    const std::size_t n = std::min<std::size_t>(3, profiler.modes().size());
    std::set<int> first;
    for (std::size_t i = 0; i < n; ++i) first.insert(profiler.modes()[i].cores);
    CHECK(first.size() == n);
    if (n == 3) ++spread;
  }
  CHECK(spread >= 3);  // all but the 17 W problem (nothing found) reach three modes
}

// small.yaml's configurations (scenarios/sweeps/small.yaml: three workload sets x arrivals 30,
// 90 and the dynamic case 30 > 90 > 60 x latency 0.5, 1, 2 s x power 15-45 W, per window,
// max-of-phases), run as `fulcrum sweep` runs a strategy that keeps its profiles: one instance
// and one Profiler over a dynamic case's segments; a configuration meets the budgets when every
// segment does, its ratio is the segments' mean, and its modes are the case's distinct modes.
struct SmallSweepScore {
  int feasible = 0, met = 0;
  double mean_ratio = 0, p5_ratio = 0, mean_modes = 0;
};

SmallSweepScore small_sweep(const std::string& name) {
  const TableGroundTruth* truth = table_truth();
  const std::vector<std::vector<std::string>> sets = {
      {"resnet18", "mobilenet_v3"}, {"mobilenet_v3", "lstm"}, {"resnet18", "mobilenet_v3", "lstm"}};
  const std::vector<std::vector<double>> cases = {{30}, {90}, {30, 90, 60}};
  SmallSweepScore out;
  std::vector<double> ratios;
  int configurations = 0;
  long modes = 0;
  for (const std::vector<std::string>& set : sets) {
    for (const std::vector<double>& rates : cases) {
      for (double latency : {0.5, 1.0, 2.0}) {
        for (double power : {15.0, 25.0, 35.0, 45.0}) {
          std::unique_ptr<Strategy> s = strategy_registry().make(name, {});
          Profiler profiler(*truth, {.max_modes = 15 * static_cast<int>(rates.size())});
          bool feasible = true, met = true;
          double ratio_sum = 0;
          for (double rate : rates) {
            Problem p = problem_of({set.begin() + 1, set.end()}, rate, latency, power,
                                   Objective::per_window, PowerConstraint::max_of_phases);
            p.training = set[0];
            const SearchContext ctx = make_context(*truth, p, 1);
            const Choice c = s->choose(p, profiler, ctx);
            const Choice o = Oracle::solve(p, ctx);
            feasible = feasible && o.found;
            const Outcome r = Scorer::evaluate(p, c, *truth);
            met = met && r.budgets_met;
            if (r.budgets_met) {
              ratio_sum += o.predicted_per_window > 0
                               ? static_cast<double>(r.actual.per_window) /
                                     static_cast<double>(o.predicted_per_window)
                               : 1.0;
            }
          }
          ++configurations;
          modes += profiler.cost().modes;
          if (!feasible) continue;
          ++out.feasible;
          out.met += met ? 1 : 0;
          ratios.push_back(met ? ratio_sum / static_cast<double>(rates.size()) : 0.0);
        }
      }
    }
  }
  double sum = 0;
  for (double r : ratios) sum += r;
  out.mean_ratio = ratios.empty() ? 0 : sum / static_cast<double>(ratios.size());
  std::sort(ratios.begin(), ratios.end());
  const std::size_t rank = (ratios.size() * 5 + 99) / 100;  // nearest rank
  out.p5_ratio = ratios.empty() ? 0 : ratios[rank == 0 ? 0 : rank - 1];
  out.mean_modes = static_cast<double>(modes) / configurations;
  return out;
}

TEST_CASE(
    "fewshot meets the few-mode targets on small.yaml's configurations, its dynamic case "
    "included, within 15 modes per configuration",
    "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const SmallSweepScore f = small_sweep("fewshot");
  const SmallSweepScore zs = small_sweep("fewshot-zs");
  INFO("fewshot " << f.met << "/" << f.feasible << " mean " << f.mean_ratio << " p5 " << f.p5_ratio
                  << " modes " << f.mean_modes << "; fewshot-zs " << zs.met << "/" << zs.feasible
                  << " mean " << zs.mean_ratio << " p5 " << zs.p5_ratio << " modes "
                  << zs.mean_modes);
  // Figures reached (docs/SEARCH.md, "fewshot"), bounded a little below (above for modes).
  CHECK(f.feasible == 96);
  CHECK(f.met == f.feasible);
  CHECK(f.mean_ratio >= 0.99);
  CHECK(f.p5_ratio >= 0.9);
  // Reached 14.98: the modes past 15 of two-stream problems that find nothing feasible (step 2)
  // cost 0.17 per configuration here (14.81 without), all on configurations with no feasible
  // optimum.
  CHECK(f.mean_modes <= 15.0);
  CHECK(zs.met == zs.feasible);
  // Reached 0.971 (0.962 with the depthwise weight gradient's cost alone, 0.974 before it and
  // the recurrence's chain moved the zero-shot graph coefficients, docs/MODEL.md); the target is
  // 0.95.
  CHECK(zs.mean_ratio >= 0.955);
  CHECK(zs.p5_ratio >= 0.8);
  // fewshot-zs reached 15.61 modes (15.56 before the depthwise weight gradient's cost and the
  // recurrence's chain): where its zero-shot prior sees nothing feasible, the widened stage of
  // step 2 spends modes left (14.8 before it, 15.08 before the modes past 15 of step 2).
  CHECK(zs.mean_modes <= 15.7);
}

TEST_CASE("fewshot near the oracle on a sample of the predecessor study's configurations",
          "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // Every 37th of the 19,680 concurrent configurations (532, every power budget in turn; per
  // second: not GMD's objective).
  std::vector<Problem> sample;
  const std::vector<Problem> all = concurrent_reference_problems(Objective::per_second);
  for (std::size_t i = 0; i < all.size(); i += 37) sample.push_back(all[i]);
  const StrategyScore f = compare_strategy("fewshot", sample, *truth);
  const StrategyScore zs = compare_strategy("fewshot-zs", sample, *truth);
  const StrategyScore gmd = compare_strategy("gmd", sample, *truth);
  // Figures reached (docs/SEARCH.md, "fewshot"), bounded a little below.
  CHECK(f.met_pct() >= 99.0);
  CHECK(f.mean_ratio >= 0.97);
  CHECK(f.p5_ratio >= 0.8);
  CHECK(f.mean_modes <= 15);
  CHECK(zs.met_pct() >= 99.0);
  CHECK(zs.mean_ratio >= 0.95);
  CHECK(zs.mean_modes <= 15);
  CHECK(f.mean_ratio > gmd.mean_ratio);
}

TEST_CASE(
    "fewshot finds the out-of-line 4-core resnet50 modes of two-stream sets once it widens its "
    "estimates by the core-count spread",
    "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // resnet18 + [resnet50, yolov8n], per window, max-of-phases, at 80 and 100/s and 29-45 W:
  // configurations of the paper-scale sweep whose only feasible answers run resnet50 at batch 64
  // on a few 4-core modes far faster and lower-power than the same clocks at 8 or 12 cores
  // (docs/SEARCH.md, "Measured: `fewshot` against the targets").
  int feasible = 0, met_widened = 0, met_off = 0;
  for (double rate : {80.0, 100.0}) {
    for (double latency : {1.2, 1.6, 2.0}) {
      for (double power : {29.0, 33.0, 37.0, 43.0}) {
        Problem p = problem_of({"resnet50", "yolov8n"}, rate, latency, power, Objective::per_window,
                               PowerConstraint::max_of_phases);
        const SearchContext ctx = make_context(*truth, p, 1);
        if (!Oracle::solve(p, ctx).found) continue;
        ++feasible;
        for (double share : {1.0, 0.0}) {
          FewShot s({.max_modes = 15, .core_spread_sd = share});
          Profiler profiler(*truth, {.max_modes = 15});
          const Choice c = s.choose(p, profiler, ctx);
          CHECK(profiler.cost().modes <= 15);
          const bool met = c.found && Scorer::evaluate(p, c, *truth).budgets_met;
          CHECK(met == c.found);  // what it answers it measured
          (share > 0 ? met_widened : met_off) += met ? 1 : 0;
        }
      }
    }
  }
  INFO("feasible " << feasible << " met " << met_widened << " (without widening " << met_off
                   << ")");
  // Reached: 12 of 12 met, 6 of 12 without the widening (core_spread_sd = 0: the search stops
  // after the fastest mode, nothing found).
  CHECK(feasible == 12);
  CHECK(met_widened == feasible);
  CHECK(met_off < met_widened);
}

TEST_CASE(
    "fewshot goes on past its 15 modes only while nothing measured meets the budgets, and finds "
    "two-stream answers there that 15 modes miss",
    "[search][fewshot]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  // resnet18 + [resnet50, yolov8n], per window, max-of-phases: configurations of the paper-scale
  // sweep (shard 22/32) where 15 modes found nothing feasible although the optimum is
  // (docs/SEARCH.md, "Past the budget"), and their neighbours.
  int feasible = 0, met_capped = 0, met = 0, extended = 0, modes = 0, configurations = 0;
  for (double rate : {80.0, 100.0}) {
    for (double latency : {1.2, 1.6, 2.0}) {
      for (double power : {34.0, 35.0, 46.0, 47.0, 50.0}) {
        Problem p = problem_of({"resnet50", "yolov8n"}, rate, latency, power, Objective::per_window,
                               PowerConstraint::max_of_phases);
        INFO(rate << "/s, " << latency << " s, " << power << " W");
        const SearchContext ctx = make_context(*truth, p, 1);
        FewShot capped({.max_modes = 15, .budget_modes = 15});
        Profiler capped_profiler(*truth, {.max_modes = 15});
        const Choice c15 = capped.choose(p, capped_profiler, ctx);
        FewShot s;  // the defaults: 15 modes, up to 27 while nothing is found
        REQUIRE(s.max_modes() == 27);
        Profiler profiler(*truth, {.max_modes = s.max_modes()});
        const Choice c = s.choose(p, profiler, ctx);
        ++configurations;
        modes += profiler.cost().modes;
        CHECK(profiler.cost().modes <= 27);
        CHECK(profiler.cost().refused == 0);
        if (c15.found || capped_profiler.cost().modes < 15) {
          // Found within 15 modes, or stopped before them: the same search, the same answer.
          CHECK(profiler.cost().modes == capped_profiler.cost().modes);
          CHECK(c.found == c15.found);
          if (c.found) CHECK(c.mode == c15.mode);
          if (c.found) CHECK(c.batch_sizes == c15.batch_sizes);
        } else if (profiler.cost().modes > 15) {
          ++extended;
          // It stops at the first feasible measurement: the answer is the last mode measured.
          if (c.found) CHECK(c.mode == profiler.modes().back());
        }
        const bool ok = c.found && Scorer::evaluate(p, c, *truth).budgets_met;
        CHECK(ok == c.found);  // what it answers it measured
        if (!Oracle::solve(p, ctx).found) continue;
        ++feasible;
        met += ok ? 1 : 0;
        met_capped += c15.found && Scorer::evaluate(p, c15, *truth).budgets_met ? 1 : 0;
      }
    }
  }
  INFO("feasible " << feasible << ", met " << met << " (at 15 modes " << met_capped << "), "
                   << extended << " configurations past 15 modes, " << modes << " modes");
  // Reached: 24 of 24 met (9 at 15 modes), 15 of 30 configurations past 15 modes, 408 modes in
  // all (13.6 per configuration, the infeasible ones included).
  CHECK(feasible == 24);
  CHECK(met == feasible);
  CHECK(met_capped <= 12);
  CHECK(static_cast<double>(modes) / configurations <= 14.0);
}

}  // namespace
}  // namespace fulcrum::sim::search
