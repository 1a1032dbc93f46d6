#include "sim/search/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "models/device/power_mode_resolver.hpp"
#include "models/random/rng_streams.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/fewshot.hpp"
#include "sim/search/gmd.hpp"
#include "sim/search/learned_strategies.hpp"
#include "sim/search/pareto.hpp"

namespace fulcrum::sim::search {

std::optional<SteadyState> profile_state(const Problem& problem, Profiler& profiler,
                                         const models::PowerMode& mode,
                                         const std::vector<int>& batches) {
  std::optional<MeasuredPoint> train;
  if (!problem.training.empty()) {
    const Profile p =
        profiler.profile(problem.training, models::Phase::training, problem.training_batch, mode);
    if (!p.ok()) return std::nullopt;
    train = p.value;
  }
  std::vector<MeasuredPoint> infer;
  for (std::size_t i = 0; i < problem.streams.size() && i < 2; ++i) {
    const Profile p = profiler.profile(problem.streams[i].workload, models::Phase::inference,
                                       batches.at(i), mode);
    if (!p.ok()) return std::nullopt;
    infer.push_back(p.value);
  }
  if (infer.empty()) return steady_state(problem, train, std::nullopt, 0);
  if (infer.size() == 1) return steady_state(problem, train, infer[0], batches[0]);
  return steady_state_two(problem, train, infer[0], batches[0], infer[1], batches[1]);
}

std::optional<Measured> best_feasible(const Problem& problem, const std::vector<Measured>& seen) {
  std::optional<Measured> best;
  for (const Measured& m : seen) {
    if (!m.state.feasible()) continue;
    if (!best || better(problem.objective, m.state, best->state)) best = m;
  }
  return best;
}

Choice choice_from(const std::optional<Measured>& best, int tries, std::string note,
                   PowerConstraint kind) {
  Choice c;
  c.tries = tries;
  c.note = std::move(note);
  if (!best) {
    if (c.note.empty()) c.note = "no profiled configuration meets the budgets";
    return c;
  }
  c.found = true;
  c.mode = best->mode;
  c.batch_sizes = best->batches;
  c.predicted_per_window = best->state.per_window;
  c.predicted_per_s = best->state.per_s;
  c.predicted_power_w = best->state.power_w(kind);
  return c;
}

models::PowerMode grid_max(const models::ModeSpace& grid) { return grid.at(grid.size() - 1); }

std::vector<std::vector<int>> batch_combinations(const SearchContext& context) {
  std::vector<std::vector<int>> out{{}};
  for (const std::vector<int>& sizes : context.stream_batches) {
    std::vector<std::vector<int>> next;
    for (const std::vector<int>& prefix : out) {
      for (int b : sizes) {
        next.push_back(prefix);
        next.back().push_back(b);
      }
    }
    out = std::move(next);
  }
  return out;
}

namespace {

// Measures every batch combination at one mode; the best feasible, if any.
std::optional<Measured> best_at_mode(const Problem& problem, Profiler& profiler,
                                     const SearchContext& context, const models::PowerMode& mode,
                                     std::vector<Measured>* seen = nullptr) {
  std::vector<Measured> local;
  for (const std::vector<int>& batches : batch_combinations(context)) {
    if (const std::optional<SteadyState> s = profile_state(problem, profiler, mode, batches)) {
      local.push_back({mode, batches, *s});
    }
  }
  if (seen != nullptr) seen->insert(seen->end(), local.begin(), local.end());
  return best_feasible(problem, local);
}

class Maxn : public Strategy {
 public:
  explicit Maxn(const StrategyOptions& o) : max_modes_(o.max_modes) {}
  std::string name() const override { return "maxn"; }
  std::optional<int> max_modes() const override { return max_modes_; }
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    return choice_from(best_at_mode(problem, profiler, context, grid_max(context.grid)), 1, {},
                       problem.power_kind);
  }

 private:
  std::optional<int> max_modes_;
};

// A preset's caps, snapped to the search grid (largest grid value <= cap; the grid's modes are
// the ones that can be measured). TPC gating is not applied: the grids have every TPC on.
models::PowerMode preset_on_grid(const models::DeviceSpec& device, const models::ModeSpace& grid,
                                 const models::Preset& preset) {
  auto floor_or_min = [](const std::vector<double>& axis, std::optional<double> cap) {
    if (!cap) return axis.back();
    const std::optional<double> v = models::floor_to_table(axis, *cap);
    return v ? *v : axis.front();
  };
  std::vector<double> cores(grid.cores().begin(), grid.cores().end());
  models::PowerMode m = grid_max(grid);
  m.cores = static_cast<int>(floor_or_min(cores, static_cast<double>(preset.cores)));
  m.cpu_khz = floor_or_min(grid.cpu_khz(), preset.cpu_max_khz);
  m.gpu_hz = floor_or_min(grid.gpu_hz(), preset.gpu_max_hz);
  m.emc_hz = floor_or_min(grid.emc_hz(), preset.emc_max_hz);
  (void)device;
  return m;
}

class Presets : public Strategy {
 public:
  explicit Presets(const StrategyOptions& o) : max_modes_(o.max_modes) {}
  std::string name() const override { return "presets"; }
  std::optional<int> max_modes() const override { return max_modes_; }
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    // The preset with the highest nominal budget that fits the power budget (MAXN, which has
    // none, only without a power budget).
    // A preset without a nominal budget (MAXN) is above every budget and every other preset.
    auto above = [](const models::Preset& a, const models::Preset& b) {
      return b.budget_w && (!a.budget_w || *a.budget_w > *b.budget_w);
    };
    const models::Preset* pick = nullptr;
    for (const models::Preset& p : context.device.presets) {
      if (problem.power_budget_w && (!p.budget_w || *p.budget_w > *problem.power_budget_w)) {
        continue;
      }
      if (pick == nullptr || above(p, *pick)) pick = &p;
    }
    if (pick == nullptr) return choice_from(std::nullopt, 0, "no preset's budget fits");
    const models::PowerMode mode = preset_on_grid(context.device, context.grid, *pick);
    Choice c =
        choice_from(best_at_mode(problem, profiler, context, mode), 1, {}, problem.power_kind);
    c.note = "preset " + pick->name + (c.found ? "" : " misses the budgets");
    return c;
  }

 private:
  std::optional<int> max_modes_;
};

class Random : public Strategy {
 public:
  explicit Random(const StrategyOptions& o) : options_(o) {}
  std::string name() const override { return "random"; }
  std::optional<int> max_modes() const override { return options_.max_modes; }
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    const std::vector<std::vector<int>> combos = batch_combinations(context);
    // README, "Baselines": 10 modes for training; 10 per batch size with inference.
    const int per_combo = 10;
    const int k = options_.k ? *options_.k : per_combo * static_cast<int>(combos.size());
    // Both seeds, combined so that equal ones do not cancel (compare_strategy passes the same).
    const std::uint64_t seed = options_.seed * 0x9E3779B97F4A7C15ULL + context.seed;
    models::Rng rng = models::RngStreams(seed).stream("search/random");
    // k distinct modes (partial Fisher-Yates over the grid), each measured at one combination,
    // the combinations taken in turn.
    std::vector<std::size_t> order(context.grid.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<Measured> seen;
    std::vector<TimePower> points;
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(k), order.size());
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = i + static_cast<std::size_t>(rng.uniform_below(order.size() - i));
      std::swap(order[i], order[j]);
      const models::PowerMode mode = context.grid.at(order[i]);
      const std::vector<int>& batches = combos[i % combos.size()];
      if (const std::optional<SteadyState> s = profile_state(problem, profiler, mode, batches)) {
        seen.push_back({mode, batches, *s});
      }
    }
    if (!problem.streams.empty()) {
      return choice_from(best_feasible(problem, seen), static_cast<int>(n), {}, problem.power_kind);
    }
    // Training only: the observed Pareto front (minibatch time, power), and on it the fastest mode
    // within the power budget.
    for (const Measured& m : seen) points.push_back({1.0 / m.state.per_s, m.state.power_max_w});
    const std::vector<std::size_t> front = pareto_front(points);
    const std::optional<std::size_t> pick = fastest_within(
        points, front,
        problem.power_budget_w ? *problem.power_budget_w : std::numeric_limits<double>::infinity());
    return choice_from(pick ? std::optional<Measured>(seen[*pick]) : std::nullopt,
                       static_cast<int>(n));
  }

 private:
  StrategyOptions options_;
};

// Multi-dimensional binary search (README, "Baselines"): start at the middle, prune one
// dimension at a time round-robin (CPU, GPU, cores, EMC): over budget prunes the upper half,
// else the mode is recorded and the lower half pruned. A prune is never undone.
class Binary : public Strategy {
 public:
  explicit Binary(const StrategyOptions& o) : options_(o) {}
  std::string name() const override { return "binary"; }
  std::optional<int> max_modes() const override { return options_.max_modes; }
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    const models::ModeSpace& g = context.grid;
    // Batch sizes: the largest that meets latency and stability at MAXN (as GMD does).
    const std::vector<int> batches = largest_batches_at_maxn(problem, profiler, context);
    enum Axis { kCpu, kGpu, kCores, kEmc };
    const std::size_t sizes[4] = {g.cpu_khz().size(), g.gpu_hz().size(), g.cores().size(),
                                  g.emc_hz().size()};
    long lo[4], hi[4], cur[4];
    bool frozen[4];
    for (int d = 0; d < 4; ++d) {
      lo[d] = 0;
      hi[d] = static_cast<long>(sizes[d]) - 1;
      cur[d] = (lo[d] + hi[d] + 1) / 2;
      frozen[d] = false;
    }
    auto mode_at = [&] {
      models::PowerMode m = grid_max(g);
      m.cpu_khz = g.cpu_khz()[cur[kCpu]];
      m.gpu_hz = g.gpu_hz()[cur[kGpu]];
      m.cores = g.cores()[cur[kCores]];
      m.emc_hz = g.emc_hz()[cur[kEmc]];
      return m;
    };
    std::vector<Measured> seen;
    int tries = 0;
    for (int d = 0; !(frozen[0] && frozen[1] && frozen[2] && frozen[3]); d = (d + 1) % 4) {
      if (frozen[d]) continue;
      const models::PowerMode mode = mode_at();
      if (!profiler.can_profile(mode)) break;
      const std::optional<SteadyState> s = profile_state(problem, profiler, mode, batches);
      ++tries;
      const bool over = !s || !s->power_met;
      if (s && s->feasible()) seen.push_back({mode, batches, *s});
      if (over) {
        hi[d] = cur[d] - 1;
      } else {
        lo[d] = cur[d] + 1;
      }
      if (lo[d] > hi[d]) {
        frozen[d] = true;
        if (over) cur[d] = std::max(0L, cur[d] - 1);
      } else {
        cur[d] = (lo[d] + hi[d] + 1) / 2;
      }
    }
    return choice_from(best_feasible(problem, seen), tries, {}, problem.power_kind);
  }

  // Per stream, the largest batch size whose latency and stability hold at MAXN (each stream
  // alone); the smallest when none does.
  static std::vector<int> largest_batches_at_maxn(const Problem& problem, Profiler& profiler,
                                                  const SearchContext& context) {
    std::vector<int> out;
    const models::PowerMode maxn = grid_max(context.grid);
    for (std::size_t i = 0; i < problem.streams.size(); ++i) {
      const std::vector<int>& sizes = context.stream_batches[i];
      int pick = sizes.front();
      for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
        const Profile p =
            profiler.profile(problem.streams[i].workload, models::Phase::inference, *it, maxn);
        if (!p.ok()) continue;
        const double t = p.value.time_ms / 1000.0;
        const SearchStream& s = problem.streams[i];
        if (t * s.arrival_per_s <= *it && *it / s.arrival_per_s + t <= s.latency_bound_s()) {
          pick = *it;
          break;
        }
      }
      out.push_back(pick);
    }
    return out;
  }

 private:
  StrategyOptions options_;
};

class OracleStrategy : public Strategy {
 public:
  std::string name() const override { return "oracle"; }
  std::optional<int> max_modes() const override { return std::nullopt; }
  bool answers_from_truth() const override { return true; }
  Choice choose(const Problem& problem, Profiler& /*profiler*/,
                const SearchContext& context) override {
    Choice c = Oracle::solve(problem, context);
    c.note = "brute force over the " + std::to_string(context.grid.size()) +
             "-mode grid on the ground truth (profiling cost not charged)";
    return c;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_maxn(const StrategyOptions& o) { return std::make_unique<Maxn>(o); }
std::unique_ptr<Strategy> make_presets(const StrategyOptions& o) {
  return std::make_unique<Presets>(o);
}
std::unique_ptr<Strategy> make_random(const StrategyOptions& o) {
  return std::make_unique<Random>(o);
}
std::unique_ptr<Strategy> make_binary(const StrategyOptions& o) {
  return std::make_unique<Binary>(o);
}
std::unique_ptr<Strategy> make_oracle(const StrategyOptions&) {
  return std::make_unique<OracleStrategy>();
}

void add_builtin_strategies(StrategyRegistry& r) {
  r.add(
      {"maxn", "MAXN at the largest batch size that meets the budgets (no search)", 1, make_maxn});
  r.add({"presets", "the NVIDIA preset with the highest nominal budget within the power budget", 1,
         make_presets});
  r.add({"random", "k random modes, best feasible on the observed Pareto front", 50, make_random});
  r.add({"binary", "multi-dimensional binary search (CPU, GPU, cores, EMC round-robin)", 25,
         make_binary});
  r.add({"gmd", "the published GMD descent, exactly as the reference results were produced", 25,
         make_gmd});
  r.add({"gmd+", "GMD judged by the problem's objective and power, every batch size, hill-climbing",
         25, make_gmd_plus});
  r.add({"oracle", "brute force over the grid on the ground truth", std::nullopt, make_oracle});
  add_learned_strategies(r);
  add_fewshot_strategies(r);
}

}  // namespace fulcrum::sim::search
