// The search's hot paths and its quality on the measured ground truth.
// - BM_CandidateTable_best: scoring every candidate of one configuration, 4,368 modes x 8 batch
//   sizes, by one scan of the precomputed table (target: < 50 ms on one core). The figures are
//   synthetic (seeded, in the measured ranges): the scan's cost does not depend on their values.
// - BM_Compare/<strategy>: the strategy against the oracle over the predecessor study's
//   concurrent configurations (19,680, per-window and per-second objectives) on the measured Orin
//   tables (needs FULCRUM_REFERENCE_DIR); the counters are the quality figures of docs/SEARCH.md.
// - BM_CompareK/<nn|powertrain>/concurrent/k<k>: the same with a sample of k modes (+1 verified).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "models/random/rng_streams.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/search/comparison.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/profiler.hpp"
#include "sim/search/steady_state.hpp"

namespace {

using namespace fulcrum;
using namespace fulcrum::sim::search;

void BM_CandidateTable_best(benchmark::State& state) {
  constexpr std::size_t kModes = 4368;
  const std::vector<int> batches = {1, 2, 4, 8, 16, 32, 64, 128};
  models::Rng rng(42);
  std::vector<std::optional<MeasuredPoint>> train(kModes);
  std::vector<std::vector<std::optional<MeasuredPoint>>> infer(batches.size(), train);
  for (std::size_t m = 0; m < kModes; ++m) {
    const double speed = 0.2 + rng.uniform();  // relative speed of the mode
    train[m] = MeasuredPoint{80.0 / speed, 12.0 + 40.0 * speed * rng.uniform()};
    for (std::size_t j = 0; j < batches.size(); ++j) {
      infer[j][m] =
          MeasuredPoint{(4.0 + 3.0 * batches[j]) / speed, 10.0 + 35.0 * speed * rng.uniform()};
    }
  }
  Problem p;
  p.training = "resnet18";
  p.streams.push_back({"resnet50", 60, 1.0, {}});
  p.power_budget_w = 30;
  p.objective = state.range(0) == 0 ? Objective::per_window : Objective::per_second;
  p.power_kind =
      state.range(1) == 0 ? PowerConstraint::max_of_phases : PowerConstraint::time_weighted;
  p.idle_power_w = 8;
  const CandidateTable table(p, batches, train, infer);
  for (auto _ : state) {
    benchmark::DoNotOptimize(table.best(p));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<long>(kModes * batches.size()));
  state.SetLabel(std::string(to_string(p.objective)) + ", " + to_string(p.power_kind));
}
BENCHMARK(BM_CandidateTable_best)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Unit(benchmark::kMicrosecond);

const TableGroundTruth* truth() {
  static const std::unique_ptr<TableGroundTruth> t = []() -> std::unique_ptr<TableGroundTruth> {
    const std::string dir = std::string(FULCRUM_REFERENCE_DIR) + "/measurements";
    if (!std::filesystem::exists(dir)) return nullptr;
    static const models::DeviceCatalog catalog =
        sim::load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
    return TableGroundTruth::load(dir, catalog.get("orin-agx-64gb"));
  }();
  return t.get();
}

void compare(benchmark::State& state, const std::string& strategy, bool training_only,
             std::optional<int> k = std::nullopt) {
  const TableGroundTruth* t = truth();
  if (t == nullptr) {
    state.SkipWithError("reference measurements not found (FULCRUM_REFERENCE_DIR)");
    return;
  }
  const Objective objective = state.range(0) == 0 ? Objective::per_window : Objective::per_second;
  const std::vector<Problem> problems = training_only ? training_reference_problems(objective)
                                                      : concurrent_reference_problems(objective);
  StrategyScore s;
  for (auto _ : state) {
    s = compare_strategy(strategy, problems, *t, {.strategy = {.k = k, .seed = 1}});
  }
  state.SetLabel(std::string(training_only ? "training" : "concurrent") + ", " +
                 to_string(objective));
  state.counters["configs"] = s.configurations;
  state.counters["with_opt"] = s.with_optimum;
  state.counters["met_pct"] = s.met_pct();
  state.counters["mean_ratio"] = s.mean_ratio;
  state.counters["p5_ratio"] = s.p5_ratio;
  state.counters["modes"] = s.mean_modes;
  state.counters["tries"] = s.mean_tries;
  state.counters["prof_h"] = s.profiling_hours;
}

// The fixed 441-mode grid's cost: resnet18 and mobilenet_v3 training (measured on all 4,368
// PowerTrain modes) at 10..50 W, judged against the optimum of the 4,368-mode grid; argument 0:
// the strategy searches the 441-mode grid, 1: the 4,368-mode grid.
void compare_grid(benchmark::State& state, const std::string& strategy) {
  const TableGroundTruth* t = truth();
  if (t == nullptr) {
    state.SkipWithError("reference measurements not found (FULCRUM_REFERENCE_DIR)");
    return;
  }
  std::vector<Problem> problems;
  for (const Problem& p : training_reference_problems(Objective::per_second)) {
    if (p.training != "resnet18" && p.training != "mobilenet_v3") continue;
    problems.push_back(p);
    problems.back().grid = state.range(0) == 0 ? "pagoda-441" : "powertrain-4368";
  }
  StrategyScore s;
  for (auto _ : state) {
    s = compare_strategy(strategy, problems, *t,
                         {.strategy = {.seed = 1}, .oracle_grid = "powertrain-4368"});
  }
  state.SetLabel(problems.front().grid + " vs the 4368-mode optimum");
  state.counters["configs"] = s.configurations;
  state.counters["met_pct"] = s.met_pct();
  state.counters["mean_ratio"] = s.mean_ratio;
  state.counters["p5_ratio"] = s.p5_ratio;
  state.counters["modes"] = s.mean_modes;
  state.counters["prof_h"] = s.profiling_hours;
}

// Per window or per second: over the concurrent reference configurations, how often the optimum
// of the published objective (minibatches per window) trains less per second than the per-second
// optimum, and how much less on average.
void BM_ObjectiveDisagreement(benchmark::State& state) {
  const TableGroundTruth* t = truth();
  if (t == nullptr) {
    state.SkipWithError("reference measurements not found (FULCRUM_REFERENCE_DIR)");
    return;
  }
  const std::vector<Problem> window = concurrent_reference_problems(Objective::per_window);
  int both = 0;
  int differ = 0;
  int above_maxn_pick = 0;
  double loss = 0;
  for (auto _ : state) {
    both = differ = above_maxn_pick = 0;
    loss = 0;
    Profiler profiler(*t);
    std::optional<CandidateTable> table;
    std::string pair;
    for (const Problem& p : window) {
      const std::string key = p.training + "+" + p.streams[0].workload;
      if (key != pair) {
        pair = key;
        table.emplace(Oracle::table(p, make_context(*t, p)));
      }
      Problem per_s = p;
      per_s.objective = Objective::per_second;
      const CandidateTable::Best w = table->best(p);
      const CandidateTable::Best s = table->best(per_s);
      // The batch size GMD fixes: the largest meeting latency and stability at MAXN.
      if (w.found) {
        const SearchContext ctx = make_context(*t, p);
        const models::PowerMode maxn = ctx.grid.at(ctx.grid.size() - 1);
        int pick = 0;
        for (int b : ctx.stream_batches[0]) {
          const Profile m =
              profiler.profile(p.streams[0].workload, models::Phase::inference, b, maxn);
          const double ti = m.value.time_ms / 1000.0;
          const SearchStream& st = p.streams[0];
          if (m.ok() && ti * st.arrival_per_s <= b &&
              b / st.arrival_per_s + ti <= st.latency_bound_s()) {
            pick = b;
          }
        }
        if (w.batch_size > pick) ++above_maxn_pick;
      }
      if (!w.found || !s.found || s.state.per_s <= 0) continue;
      ++both;
      if (w.state.per_s < s.state.per_s) {
        ++differ;
        loss += 1.0 - w.state.per_s / s.state.per_s;
      }
    }
  }
  state.counters["configs"] = both;
  state.counters["differ_pct"] = 100.0 * differ / both;
  state.counters["mean_loss_pct_when_differ"] = differ == 0 ? 0.0 : 100.0 * loss / differ;
  // How often the per-window optimum's batch size exceeds the MAXN pick (GMD never looks there).
  state.counters["opt_batch_above_maxn_pick"] = above_maxn_pick;
}
BENCHMARK(BM_ObjectiveDisagreement)->Iterations(1)->Unit(benchmark::kMillisecond);

void register_compare() {
  for (const char* s : {"oracle", "gmd", "gmd+", "random", "binary"}) {
    benchmark::RegisterBenchmark((std::string("BM_CompareGrid/") + s).c_str(),
                                 [s](benchmark::State& st) { compare_grid(st, s); })
        ->Arg(0)
        ->Arg(1)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* s : {"maxn", "presets", "random", "binary", "gmd", "gmd+", "nn", "powertrain"}) {
    for (bool training : {false, true}) {
      benchmark::RegisterBenchmark(
          (std::string("BM_Compare/") + s + (training ? "/training" : "/concurrent")).c_str(),
          [s, training](benchmark::State& st) { compare(st, s, training); })
          ->Arg(0)
          ->Arg(1)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  // The learned strategies at smaller samples (k modes + 1 verified), concurrent.
  for (const char* s : {"nn", "powertrain"}) {
    for (int k : {10, 20}) {
      benchmark::RegisterBenchmark(
          (std::string("BM_CompareK/") + s + "/concurrent/k" + std::to_string(k)).c_str(),
          [s, k](benchmark::State& st) { compare(st, s, false, k); })
          ->Arg(0)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
}
const int registered = (register_compare(), 0);

}  // namespace
