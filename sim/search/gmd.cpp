#include "sim/search/gmd.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/search/steady_state.hpp"
#include "sim/search/strategies.hpp"

namespace fulcrum::sim::search {

int gmd_maxn_checks(int batch_size, int sizes_checked) {
  switch (batch_size) {
    case 1:
      return 5;
    case 4:
    case 8:
      return 4;
    case 16:
      return 3;
    case 32:
      return 2;
    case 64:
      return 1;
    default:
      return sizes_checked;
  }
}

namespace {

// Dimensions in the published tie order (the first maximum wins).
enum Dim : std::size_t { kCores, kGpu, kCpu, kMem };
constexpr std::array<Dim, 4> kDims = {kCores, kGpu, kCpu, kMem};
constexpr int kMaxCount = 15;  // "repeat while count < 15 (count starts at 1)"
constexpr int kMaxTries = 25;  // backtracking stops at 25 tries

double value(const models::PowerMode& m, Dim d) {
  switch (d) {
    case kCores:
      return m.cores;
    case kGpu:
      return m.gpu_hz;
    case kCpu:
      return m.cpu_khz;
    case kMem:
      return m.emc_hz;
  }
  return 0;
}

void set_value(models::PowerMode& m, Dim d, double v) {
  switch (d) {
    case kCores:
      m.cores = static_cast<int>(v);
      break;
    case kGpu:
      m.gpu_hz = v;
      break;
    case kCpu:
      m.cpu_khz = v;
      break;
    case kMem:
      m.emc_hz = v;
      break;
  }
}

// One profiled mode of the descent: training at the mode and, with a stream, inference at the
// descent's batch size.
struct Visited {
  models::PowerMode mode;
  MeasuredPoint train;
  std::optional<MeasuredPoint> infer;
};

class Descent {
 public:
  // batch = 0: training only.
  Descent(const Problem& problem, Profiler& profiler, const models::ModeSpace& grid, int batch,
          bool judge_by_problem)
      : problem_(problem),
        profiler_(profiler),
        grid_(grid),
        batch_(batch),
        judge_by_problem_(judge_by_problem),
        budget_(problem.power_budget_w ? *problem.power_budget_w
                                       : std::numeric_limits<double>::infinity()) {}

  // The published loop; it stops early when a measurement fails (refused or no data).
  void run() {
    std::array<std::vector<double>, 4> lists;
    lists[kCores].assign(grid_.cores().begin(), grid_.cores().end());
    lists[kGpu] = grid_.gpu_hz();
    lists[kCpu] = grid_.cpu_khz();
    lists[kMem] = grid_.emc_hz();
    models::PowerMode mid = grid_.at(0);
    for (Dim d : kDims) set_value(mid, d, lists[d][lists[d].size() / 2]);
    const std::optional<std::size_t> mid_i = measure(mid);
    if (!mid_i) return;
    const bool over = power(*mid_i) > budget_;
    std::array<std::pair<std::size_t, std::size_t>, 4> pairs{};
    for (Dim d : kDims) {
      models::PowerMode probe = mid;
      set_value(probe, d, over ? lists[d].front() : lists[d].back());
      const std::optional<std::size_t> probe_i = measure(probe);
      if (!probe_i) return;
      pairs[d] = {*mid_i, *probe_i};
    }
    std::size_t cur = *mid_i;
    for (int count = 1; count < kMaxCount; ++count) {
      // Concurrent: the time and power of the workload whose power is higher at the current mode.
      const bool use_train =
          !visited_[cur].infer || visited_[cur].train.power_w >= visited_[cur].infer->power_w;
      std::array<double, 4> s{};
      bool any = false;
      for (Dim d : kDims) {
        s[d] = 0;
        if (lists[d].size() <= 1) continue;
        const Visited& a = visited_[pairs[d].first];
        const Visited& b = visited_[pairs[d].second];
        const MeasuredPoint& pa = use_train ? a.train : *a.infer;
        const MeasuredPoint& pb = use_train ? b.train : *b.infer;
        const double dp = pb.power_w - pa.power_w;
        if (std::abs(dp) < 1.0) continue;
        s[d] = std::abs((pb.time_ms - pa.time_ms) / dp);
        any = any || s[d] > 0;
      }
      if (!any) break;
      Dim best = kCores;
      for (Dim d : kDims) {
        if (s[d] > s[best]) best = d;
      }
      const bool below = power(cur) < budget_;
      std::vector<double>& vals = lists[best];
      const auto at = std::find(vals.begin(), vals.end(), value(visited_[cur].mode, best));
      if (at == vals.end()) break;
      const std::size_t i = static_cast<std::size_t>(at - vals.begin());
      const std::size_t len = vals.size();
      double next_value = 0;
      if (below) {
        next_value = vals[(i + len) / 2];  // ceil((i + len - 1) / 2)
        vals.erase(vals.begin(), vals.begin() + static_cast<long>(i) + 1);
      } else {
        next_value = vals[i / 2];
        vals.erase(vals.begin() + static_cast<long>(i), vals.end());
      }
      models::PowerMode next = visited_[cur].mode;
      set_value(next, best, next_value);
      const std::optional<std::size_t> next_i = measure(next);
      if (!next_i) break;
      // Training only: the new mode's power is tested; concurrent: the mode's before the move.
      const bool tested_below = batch_ > 0 ? below : power(*next_i) < budget_;
      pairs[best] = tested_below ? std::pair{pairs[best].first, *next_i}
                                 : std::pair{*next_i, pairs[best].second};
      cur = *next_i;
    }
  }

  const std::vector<Visited>& visited() const { return visited_; }

  // The steady state of visited mode `i` at batch size `b` (inference profiled when needed);
  // nullopt when a measurement failed.
  std::optional<SteadyState> state(const Problem& judged, std::size_t i, int b) {
    if (batch_ == 0) return steady_state(judged, visited_[i].train, std::nullopt, 0);
    std::optional<MeasuredPoint> infer = visited_[i].infer;
    if (b != batch_) {
      const Profile p = profiler_.profile(problem_.streams[0].workload, models::Phase::inference, b,
                                          visited_[i].mode);
      if (!p.ok()) return std::nullopt;
      infer = p.value;
    }
    return steady_state(judged, visited_[i].train, infer, b);
  }

  std::optional<std::size_t> measure(const models::PowerMode& mode) {
    for (std::size_t i = 0; i < visited_.size(); ++i) {
      if (visited_[i].mode == mode) return i;
    }
    Visited v{mode, {}, std::nullopt};
    const Profile t = profiler_.profile(problem_.training, models::Phase::training,
                                        problem_.training_batch, mode);
    if (!t.ok()) return std::nullopt;
    v.train = t.value;
    if (batch_ > 0) {
      const Profile p =
          profiler_.profile(problem_.streams[0].workload, models::Phase::inference, batch_, mode);
      if (!p.ok()) return std::nullopt;
      v.infer = p.value;
    }
    visited_.push_back(v);
    return visited_.size() - 1;
  }

 private:
  // The power the descent steers by: published max(P_train, P_infer); gmd+ the problem's kind.
  double power(std::size_t i) {
    const Visited& v = visited_[i];
    if (!v.infer) return v.train.power_w;
    if (!judge_by_problem_ || problem_.power_kind == PowerConstraint::max_of_phases) {
      return std::max(v.train.power_w, v.infer->power_w);
    }
    return steady_state(problem_, v.train, v.infer, batch_).power_w(problem_.power_kind);
  }

  const Problem& problem_;
  Profiler& profiler_;
  const models::ModeSpace& grid_;
  int batch_;
  bool judge_by_problem_;
  double budget_;
  std::vector<Visited> visited_;
};

// The largest batch size whose latency and stability hold at MAXN, and the checks it took.
struct MaxnPick {
  std::optional<int> batch;
  int checks = 0;
};

MaxnPick pick_batch_at_maxn(const Problem& problem, Profiler& profiler,
                            const SearchContext& context) {
  MaxnPick pick;
  const SearchStream& s = problem.streams[0];
  const std::vector<int>& sizes = context.stream_batches[0];
  const models::PowerMode maxn = grid_max(context.grid);
  int checked = 0;
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    ++checked;
    const Profile p = profiler.profile(s.workload, models::Phase::inference, *it, maxn);
    if (!p.ok()) continue;
    const double t = p.value.time_ms / 1000.0;
    if (t * s.arrival_per_s <= *it && *it / s.arrival_per_s + t <= s.latency_bound_s()) {
      pick.batch = *it;
      pick.checks = gmd_maxn_checks(*it, checked);
      return pick;
    }
  }
  pick.checks = checked;
  return pick;
}

class Gmd : public Strategy {
 public:
  explicit Gmd(GmdOptions o) : options_(o) {}
  std::string name() const override { return options_.improved ? "gmd+" : "gmd"; }
  std::optional<int> max_modes() const override { return options_.max_modes; }

  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    if (problem.training.empty())
      return choice_from(std::nullopt, 0, "gmd needs a training workload");
    if (problem.streams.size() > 1) {
      return choice_from(std::nullopt, 0, "gmd searches for one inference stream");
    }
    // The published GMD judges per window with max(P_train, P_infer); gmd+ as the problem says.
    Problem judged = problem;
    if (!options_.improved) {
      judged.objective = Objective::per_window;
      judged.power_kind = PowerConstraint::max_of_phases;
    }
    if (problem.streams.empty()) return training_only(judged, profiler, context);
    return concurrent(judged, profiler, context);
  }

 private:
  Choice training_only(const Problem& judged, Profiler& profiler, const SearchContext& context) {
    Descent descent(judged, profiler, context.grid, 0, options_.improved);
    descent.run();
    std::optional<Measured> best;
    double best_ms = 0;
    const double budget =
        judged.power_budget_w ? *judged.power_budget_w : std::numeric_limits<double>::infinity();
    for (const Visited& v : descent.visited()) {
      if (!(v.train.power_w <= budget)) continue;
      // Fastest; ties to the smaller mode (cores, CPU, GPU, EMC), as the reference orders them.
      if (!best || v.train.time_ms < best_ms ||
          (v.train.time_ms == best_ms && key(v.mode) < key(best->mode))) {
        best = Measured{v.mode, {}, steady_state(judged, v.train, std::nullopt, 0)};
        best_ms = v.train.time_ms;
      }
    }
    int tries = static_cast<int>(descent.visited().size());
    if (options_.improved && best) best = climb(judged, profiler, context, descent, *best, {});
    if (best && !best->state.feasible()) best.reset();
    return choice_from(best, tries, {}, judged.power_kind);
  }

  Choice concurrent(const Problem& judged, Profiler& profiler, const SearchContext& context) {
    const MaxnPick pick = pick_batch_at_maxn(judged, profiler, context);
    if (!pick.batch) {
      return choice_from(std::nullopt, pick.checks, "no batch size meets the latency at MAXN");
    }
    const int b = *pick.batch;
    Descent descent(judged, profiler, context.grid, b, options_.improved);
    descent.run();
    int tries = pick.checks + static_cast<int>(descent.visited().size());
    const std::vector<int>& sizes = context.stream_batches[0];

    if (options_.improved) {
      // Every batch size up to b at every profiled mode (no new modes; a larger one already missed
      // the latency at MAXN), then hill-climbing from the best -- or, when nothing is feasible,
      // from the configuration closest to feasible.
      std::vector<int> upto;
      for (int size : sizes) {
        if (size <= b) upto.push_back(size);
      }
      std::optional<Measured> best;
      for (std::size_t i = 0; i < descent.visited().size(); ++i) {
        for (int size : upto) {
          if (const std::optional<SteadyState> s = descent.state(judged, i, size)) {
            const Measured m{descent.visited()[i].mode, {size}, *s};
            if (!best || improves(judged, m, *best)) best = m;
          }
        }
      }
      if (best) best = climb(judged, profiler, context, descent, *best, upto);
      if (best && !best->state.feasible()) best.reset();
      return choice_from(best, tries, {}, judged.power_kind);
    }

    // The published answer: the feasible profiled mode at b with the most minibatches per window
    // (tie: smaller t_in; then the first profiled).
    std::optional<Measured> best;
    for (std::size_t i = 0; i < descent.visited().size(); ++i) {
      const std::optional<SteadyState> s = descent.state(judged, i, b);
      if (!s || !s->feasible()) continue;
      if (!best || s->per_window > best->state.per_window ||
          (s->per_window == best->state.per_window && s->t_in_s < best->state.t_in_s)) {
        best = Measured{descent.visited()[i].mode, {b}, *s};
      }
    }
    if (best) return choice_from(best, tries);

    // Backtracking: the modes stable at b in increasing t_in, tried at each smaller batch size
    // (largest first); a failed probe is a try. Each probe is evaluated first: one that meets
    // every constraint answers with the tries so far (25 included); a failed one at 25 tries or
    // more ends the search, reported as 25. With the reference's batch sizes the MAXN checks and
    // the loop leave at most 5 + 19 = 24 tries, so backtracking always gets to probe.
    std::vector<std::size_t> stable;
    const double a = judged.streams[0].arrival_per_s;
    for (std::size_t i = 0; i < descent.visited().size(); ++i) {
      if (descent.visited()[i].infer->time_ms / 1000.0 * a <= b) stable.push_back(i);
    }
    std::stable_sort(stable.begin(), stable.end(), [&](std::size_t x, std::size_t y) {
      return descent.visited()[x].infer->time_ms < descent.visited()[y].infer->time_ms;
    });
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
      if (*it >= b) continue;
      for (std::size_t i : stable) {
        const std::optional<SteadyState> s = descent.state(judged, i, *it);
        if (s && s->feasible()) {
          return choice_from(Measured{descent.visited()[i].mode, {*it}, *s}, tries,
                             "backtracked to a smaller batch size");
        }
        if (tries >= kMaxTries) return choice_from(std::nullopt, kMaxTries);
        ++tries;
      }
    }
    return choice_from(std::nullopt, std::min(tries, kMaxTries));
  }

  // gmd+: while the budget allows, profile the grid neighbours (one step on one axis) of the best
  // configuration and move to a better one; stops at a local optimum.
  std::optional<Measured> climb(const Problem& judged, Profiler& profiler,
                                const SearchContext& context, Descent& descent, Measured best,
                                const std::vector<int>& sizes) {
    const models::ModeSpace& g = context.grid;
    for (bool improved = true; improved;) {
      improved = false;
      const std::optional<std::size_t> at = g.index_of(best.mode);
      if (!at) break;
      std::vector<models::PowerMode> around = neighbours(g, best.mode, false);
      for (const models::PowerMode& n : neighbours(g, best.mode, true)) around.push_back(n);
      for (const models::PowerMode& n : around) {
        if (!profiler.can_profile(n)) return best;
        const std::optional<std::size_t> i = descent.measure(n);
        if (!i) continue;
        std::vector<Measured> here;
        if (sizes.empty()) {
          if (auto s = descent.state(judged, *i, 0)) here.push_back({n, {}, *s});
        } else {
          for (int size : sizes) {
            if (auto s = descent.state(judged, *i, size)) here.push_back({n, {size}, *s});
          }
        }
        for (const Measured& m : here) {
          if (improves(judged, m, best)) {
            best = m;
            improved = true;
          }
        }
        if (improved) break;
      }
    }
    return best;
  }

  // How far a configuration is from meeting the problem's budgets (0 when it meets them).
  static double violation(const Problem& judged, const SteadyState& s) {
    double v = s.stable ? 0.0 : 1.0;
    if (!judged.streams.empty()) {
      const double l = judged.streams[0].latency_bound_s();
      v += std::max(0.0, s.peak_latency_s - l) / l;
    }
    if (judged.power_budget_w) {
      v += std::max(0.0, s.power_w(judged.power_kind) - *judged.power_budget_w) /
           *judged.power_budget_w;
    }
    return v;
  }

  // Feasible beats infeasible; two feasible compare by the objective; two infeasible by how far
  // they are from feasible.
  static bool improves(const Problem& judged, const Measured& a, const Measured& b) {
    const bool fa = a.state.feasible();
    const bool fb = b.state.feasible();
    if (fa != fb) return fa;
    if (fa) return better(judged.objective, a.state, b.state);
    return violation(judged, a.state) < violation(judged, b.state);
  }

  // The grid neighbours of `m`: one step on one axis (GPU, EMC, CPU, cores), or with `trades`,
  // one axis a step up and another a step down (moves along the power budget's edge).
  static std::vector<models::PowerMode> neighbours(const models::ModeSpace& g,
                                                   const models::PowerMode& m, bool trades) {
    std::vector<models::PowerMode> out;
    const std::array<std::vector<double>, 4> axes = {
        g.gpu_hz(), g.emc_hz(), g.cpu_khz(),
        std::vector<double>(g.cores().begin(), g.cores().end())};
    const std::array<double, 4> now = {m.gpu_hz, m.emc_hz, m.cpu_khz, static_cast<double>(m.cores)};
    std::array<long, 4> at{};
    for (std::size_t d = 0; d < 4; ++d) {
      const auto it = std::find(axes[d].begin(), axes[d].end(), now[d]);
      if (it == axes[d].end()) return out;
      at[d] = it - axes[d].begin();
    }
    auto make = [&](std::array<long, 4> k) {
      for (std::size_t d = 0; d < 4; ++d) {
        if (k[d] < 0 || k[d] >= static_cast<long>(axes[d].size())) return;
      }
      models::PowerMode n = m;
      n.gpu_hz = axes[0][static_cast<std::size_t>(k[0])];
      n.emc_hz = axes[1][static_cast<std::size_t>(k[1])];
      n.cpu_khz = axes[2][static_cast<std::size_t>(k[2])];
      n.cores = static_cast<int>(axes[3][static_cast<std::size_t>(k[3])]);
      out.push_back(n);
    };
    for (std::size_t d = 0; d < 4; ++d) {
      for (long step : {1L, -1L}) {
        if (trades) {
          for (std::size_t e = 0; e < 4; ++e) {
            if (e == d) continue;
            std::array<long, 4> k = at;
            k[d] += step;
            k[e] -= step;
            if (step > 0) make(k);
          }
        } else {
          std::array<long, 4> k = at;
          k[d] += step;
          make(k);
        }
      }
    }
    return out;
  }

  static std::array<double, 4> key(const models::PowerMode& m) {
    return {static_cast<double>(m.cores), m.cpu_khz, m.gpu_hz, m.emc_hz};
  }

  GmdOptions options_;
};

}  // namespace

std::unique_ptr<Strategy> make_gmd(const StrategyOptions& o) {
  return std::make_unique<Gmd>(GmdOptions{false, o.max_modes});
}

std::unique_ptr<Strategy> make_gmd_plus(const StrategyOptions& o) {
  return std::make_unique<Gmd>(GmdOptions{true, o.max_modes});
}

}  // namespace fulcrum::sim::search
