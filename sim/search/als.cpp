#include "sim/search/als.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sim/config/cross_mode_loader.hpp"
#include "sim/search/fewshot.hpp"

namespace fulcrum::sim::search {

namespace {

// Whether some row of `front` is <= v in every coordinate.
bool dominated(const std::vector<std::vector<double>>& front, const std::vector<double>& v) {
  for (const std::vector<double>& f : front) {
    bool all = true;
    for (std::size_t d = 0; d < v.size() && all; ++d) all = f[d] <= v[d];
    if (all) return true;
  }
  return false;
}

// A projection of the objectives the front is kept in: some series' times and the max of some
// series' powers (the published power of a configuration), all in logarithms, with a weight on
// the gain it reports.
struct View {
  std::vector<std::size_t> times;
  std::vector<std::size_t> powers;
  double weight = 1;
};

// The views of a set: per batch combination, the full vector (training time, each stream's
// time, max power) at half weight; (training time, max power) and, per stream, (its time, max
// power) at full weight -- the 2-D fronts hold most optima, the full one the rest. With
// `stream_power` (time-weighted power beside a training job, AlsOptions::stream_power_views),
// also every stream series' (time, own power) at full weight: where a stream fills its window
// and training gets no minibatch, the power judged is the stream's own (and the idle power's),
// which the max over the phases hides behind the training's.
std::vector<View> views_of(const MeasuredSet& set, bool stream_power) {
  std::vector<View> out;
  const bool training = !set.series().empty() && set.series()[0].stream < 0;
  if (training && stream_power) {
    for (std::size_t s = 1; s < set.series().size(); ++s) out.push_back({{s}, {s}, 1.0});
  }
  for (const std::vector<std::size_t>& combo : set.combos()) {
    View full;
    if (training) full.times.push_back(0);
    full.times.insert(full.times.end(), combo.begin(), combo.end());
    full.powers = full.times;
    full.weight = 0.5;
    if (training) {
      out.push_back({{0}, full.powers, 1.0});
      for (std::size_t s : combo) out.push_back({{s}, full.powers, 1.0});
    }
    if (!training && combo.size() < 2) full.weight = 1.0;
    out.push_back(std::move(full));
  }
  return out;
}

template <typename LogTime, typename LogPower>
std::vector<double> coordinates(const View& v, LogTime log_time, LogPower log_power) {
  std::vector<double> out;
  for (std::size_t s : v.times) out.push_back(log_time(s));
  double p = -std::numeric_limits<double>::infinity();
  for (std::size_t s : v.powers) p = std::max(p, log_power(s));
  out.push_back(p);
  return out;
}

// The problems of the family stage, without a power budget: the explored problem with every
// stream's arrival rate scaled to each family rate (the streams' ratio kept) and every stream's
// latency budget replaced; the problem's own rate and latency budget are added to the lists.
std::vector<Problem> family_of(const Problem& problem, const AlsOptions& o) {
  auto with = [](std::vector<double> v, std::optional<double> own) {
    if (own) v.push_back(*own);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  Problem base = problem;
  base.power_budget_w = std::nullopt;
  if (problem.streams.empty()) return {base};
  std::vector<Problem> out;
  const double rate0 = problem.streams[0].arrival_per_s;
  for (double r : with(o.family_rates_per_s, rate0)) {
    for (double l : with(o.family_latency_s, problem.streams[0].latency_budget_s)) {
      Problem q = base;
      for (std::size_t i = 0; i < q.streams.size(); ++i) {
        q.streams[i].arrival_per_s = problem.streams[i].arrival_per_s * r / rate0;
        q.streams[i].latency_budget_s = l;
      }
      out.push_back(std::move(q));
    }
  }
  return out;
}

// Per series, per grid mode: the figure the family stage scores with (the measured value where
// the mode was measured, else the surrogates' means).
using Figures = std::vector<std::vector<MeasuredPoint>>;

// One configuration of a family problem that is stable and within its latency budgets.
struct Candidate {
  double power_w = 0;  // as the problem judges it
  double value = 0;    // objective_value
  std::size_t mode = 0;
  bool measured = false;
};

// The family stage (AlsOptions::family_modes). For every family problem (an arrival rate and a
// latency budget), every configuration of every usable mode is scored (the surrogates' means,
// the measured values where measured) and the answer is followed over every power budget from 0
// to `max_power_w`: sorted by power, the best configuration so far is the answer to every budget
// up to the next one's power. Where that answer is an unmeasured mode that beats the measured
// modes' best at the same budget, the mode gains the relative improvement (1 where nothing
// measured is feasible) times the width of that power interval in watts. Below the lowest power
// at which anything is feasible on the means, each optimistic level (AlsOptions::
// family_optimism_sd) credits its lowest-power feasible configurations likewise, at the chance
// its bound holds per watt. Profiling nothing, it returns the `count` modes with the most gain,
// most first.
class FamilyStage {
 public:
  FamilyStage(std::vector<Problem> family, double max_power_w, std::vector<double> optimism_sd)
      : family_(std::move(family)),
        max_power_w_(max_power_w),
        optimism_sd_(std::move(optimism_sd)) {
    std::sort(optimism_sd_.begin(), optimism_sd_.end());
    for (const double k : optimism_sd_) optimism_weight_.push_back(normal_cdf(-k));
  }
  bool empty() const { return family_.empty(); }

  std::vector<std::size_t> picks(const MeasuredSet& set, const SeriesModels& models,
                                 const std::vector<char>& done, std::size_t count) const {
    const std::size_t grid_size = done.size();
    std::vector<char> measured(grid_size, 0);
    for (std::size_t g : set.modes()) measured[g] = 1;
    const bool training = !set.series().empty() && set.series()[0].stream < 0;
    // Level 0: the surrogates' means; then ever more optimistic estimates (mean - k sd).
    std::vector<Figures> levels;
    levels.push_back(figures_at(set, models, grid_size, 0));
    for (const double k : optimism_sd_) levels.push_back(figures_at(set, models, grid_size, k));
    std::vector<double> gain(grid_size, 0);
    std::vector<Candidate> candidates;
    std::vector<MeasuredPoint> infer;
    std::vector<int> batches;
    for (const Problem& q : family_) {
      // Below `floor_w` no less optimistic level has a feasible configuration.
      double floor_w = max_power_w_;
      for (std::size_t level = 0; level < levels.size(); ++level) {
        const Figures& figures = levels[level];
        candidates.clear();
        for (std::size_t m = 0; m < grid_size; ++m) {
          if (done[m] != 0 && measured[m] == 0) continue;  // tried and unusable
          std::optional<MeasuredPoint> t;
          if (training) t = figures[0][m];
          for (const std::vector<std::size_t>& combo : set.combos()) {
            infer.clear();
            batches.clear();
            for (std::size_t sidx : combo) {
              infer.push_back(figures[sidx][m]);
              batches.push_back(set.series()[sidx].batch_size);
            }
            const SteadyState st = steady_state_of(q, t, infer, batches);
            if (!st.stable || !st.latency_met) continue;
            candidates.push_back(
                {st.power_w(q.power_kind), objective_value(q, st), m, measured[m] != 0});
          }
        }
        std::stable_sort(
            candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.power_w < b.power_w; });
        if (level == 0) {
          credit_means(candidates, gain);
        } else {
          credit_optimistic(candidates, floor_w, optimism_weight_[level - 1], gain);
        }
        if (!candidates.empty()) floor_w = std::min(floor_w, candidates.front().power_w);
      }
    }
    std::vector<std::size_t> order;
    for (std::size_t g = 0; g < grid_size; ++g) {
      if (gain[g] > 0) order.push_back(g);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return gain[a] > gain[b]; });
    if (order.size() > count) order.resize(count);
    return order;
  }

 private:
  // Per series, per grid mode: the measured value where measured, else the surrogates' estimate
  // optimistic for feasibility by k sd (k = 0: the means): every power and inference time at
  // mean - k sd, the training time at mean + k sd (fewer minibatches per window: a lower
  // time-weighted power; a max-of-phases power does not depend on it).
  static Figures figures_at(const MeasuredSet& set, const SeriesModels& models,
                            std::size_t grid_size, double k) {
    Figures figures(set.series().size(), std::vector<MeasuredPoint>(grid_size));
    for (std::size_t s = 0; s < set.series().size(); ++s) {
      const SeriesModels::Estimate& e = models.at(s);
      const double k_time = set.series()[s].stream < 0 ? -k : k;
      for (std::size_t g = 0; g < grid_size; ++g) {
        const Eigen::Index gi = static_cast<Eigen::Index>(g);
        figures[s][g] = {std::exp(e.log_time_mean(gi) - k_time * e.log_time_sd(gi)),
                         std::max(e.power_mean(gi) - k * e.power_sd(gi), 0.1)};
      }
      for (std::size_t m = 0; m < set.modes().size(); ++m) {
        figures[s][set.modes()[m]] = set.value(s, m);
      }
    }
    return figures;
  }

  // The means' answer over every power budget (candidates sorted by power): where it is an
  // unmeasured mode that beats the measured modes' best, the relative improvement (1 where
  // nothing measured is feasible) times the width of the power interval.
  void credit_means(const std::vector<Candidate>& candidates, std::vector<double>& gain) const {
    const Candidate* best = nullptr;
    std::optional<double> best_measured;
    double from_w = 0;
    auto credit = [&](double to_w) {
      const double width = std::min(to_w, max_power_w_) - std::min(from_w, max_power_w_);
      if (best == nullptr || best->measured || width <= 0) return;
      if (!best_measured) {
        gain[best->mode] += width;
      } else if (best->value > *best_measured) {
        gain[best->mode] += width * (best->value - *best_measured) / best->value;
      }
    };
    for (const Candidate& c : candidates) {
      credit(c.power_w);
      from_w = std::max(from_w, c.power_w);
      if (best == nullptr || c.value > best->value) best = &c;
      if (c.measured && (!best_measured || c.value > *best_measured)) best_measured = c.value;
    }
    credit(max_power_w_);
  }

  // An optimistic level's answer over the power budgets below `floor_w`, where no less
  // optimistic level (nor anything measured) is feasible: the lowest-power configuration so far
  // gains `weight` per watt up to the next one's power or the floor.
  static void credit_optimistic(const std::vector<Candidate>& candidates, double floor_w,
                                double weight, std::vector<double>& gain) {
    for (std::size_t i = 0; i < candidates.size() && candidates[i].power_w < floor_w; ++i) {
      const double to_w =
          i + 1 < candidates.size() ? std::min(candidates[i + 1].power_w, floor_w) : floor_w;
      if (!candidates[i].measured)
        gain[candidates[i].mode] += weight * (to_w - candidates[i].power_w);
    }
  }

  std::vector<Problem> family_;
  double max_power_w_;
  std::vector<double> optimism_sd_;      // the optimistic levels, least optimistic first
  std::vector<double> optimism_weight_;  // per level: the chance a mean - k sd bound is met
};

}  // namespace

const MeasuredSet& Als::explore(const Problem& problem, Profiler& profiler,
                                const SearchContext& context) {
  kept_ = std::make_unique<MeasuredSet>(MeasuredSet::for_problem(problem, context));
  MeasuredSet& set = *kept_;
  const models::ModeSpace& grid = context.grid;
  GpOptions gp;
  gp.per_axis = options_.per_axis_length_scales;
  SeriesModels models(grid, set.series().size(), gp);
  if (!options_.prior_data_dir.empty()) {
    const std::string file =
        cross_mode_calibration_path(options_.prior_data_dir, context.device.name);
    std::vector<std::shared_ptr<const GridPrior>> priors;
    for (const Series& s : set.series()) {
      priors.push_back(cross_mode_grid_prior(file, {}, context.device, grid, problem.grid, s));
      if (!priors.back()) break;
    }
    if (!priors.empty() && priors.size() == set.series().size() && priors.back()) {
      for (std::size_t s = 0; s < priors.size(); ++s) {
        models.set_offsets(s, priors[s]->log_time, priors[s]->power);
      }
    }
  }
  const ModeBudget budget(options_.max_modes, grid.size(), profiler);
  // 1. Space-filling seed.
  std::vector<std::size_t> tried;
  for (std::size_t i : space_filling(
           models.features(),
           std::min<std::size_t>(budget.modes(), static_cast<std::size_t>(options_.seed_modes)))) {
    if (!budget.allows(set.modes().size())) break;
    set.measure(profiler, grid, i);
    tried.push_back(i);
  }
  // 1b. Coverage: every (core count, CPU clock tercile) cell of the grid that the seed left
  // empty gets its mode farthest from those chosen.
  if (options_.cover_cores_cpu) {
    const std::size_t n_cpu = grid.cpu_khz().size();
    auto cell = [&](std::size_t g) {
      const models::PowerMode m = grid.at(g);
      const std::size_t cores = static_cast<std::size_t>(
          std::find(grid.cores().begin(), grid.cores().end(), m.cores) - grid.cores().begin());
      const std::size_t cpu = static_cast<std::size_t>(
          std::find(grid.cpu_khz().begin(), grid.cpu_khz().end(), m.cpu_khz) -
          grid.cpu_khz().begin());
      return cores * 3 + cpu * 3 / std::max<std::size_t>(n_cpu, 1);
    };
    std::vector<char> covered(grid.cores().size() * 3, 0);
    for (std::size_t i : tried) covered[cell(i)] = 1;
    for (std::size_t c = 0; c < covered.size(); ++c) {
      if (covered[c] != 0 || !budget.allows(set.modes().size())) continue;
      const std::vector<std::size_t> pick =
          space_filling(models.features(), 1, tried, [&](std::size_t g) { return cell(g) == c; });
      if (pick.empty()) continue;
      set.measure(profiler, grid, pick[0]);
      tried.push_back(pick[0]);
      covered[c] = 1;
    }
  }
  std::vector<char> done(grid.size(), 0);
  for (std::size_t i : tried) done[i] = 1;
  stop_reason_ = "budget";
  family_profiled_ = 0;
  const std::vector<View> views = views_of(
      set, options_.stream_power_views && problem.power_kind == PowerConstraint::time_weighted);
  const FamilyStage family(
      options_.family_modes > 0 ? family_of(problem, options_) : std::vector<Problem>{},
      options_.family_max_power_w, options_.family_optimism_sd);
  std::size_t family_from =
      budget.modes() -
      std::min(budget.modes(), static_cast<std::size_t>(std::max(options_.family_modes, 0)));
  // 2. The active loop.
  for (int round = 0; budget.allows(set.modes().size()); ++round) {
    if (set.modes().empty()) break;
    models.fit(set, round % 10 == 0);
    // 2b. The family stage (AlsOptions::family_modes).
    if (!family.empty() && set.modes().size() >= family_from) {
      const std::size_t room = budget.modes() - set.modes().size();
      const std::vector<std::size_t> picks = family.picks(
          set, models, done,
          std::min(room, static_cast<std::size_t>(std::max(options_.family_batch, 1))));
      for (std::size_t g : picks) {
        if (!budget.allows(set.modes().size())) break;
        done[g] = 1;
        if (set.measure(profiler, grid, g)) ++family_profiled_;
      }
      if (!picks.empty()) continue;
    }
    // The measured front of every view.
    std::vector<std::vector<std::vector<double>>> fronts;
    for (const View& view : views) {
      std::vector<std::vector<double>> pts;
      for (std::size_t k = 0; k < set.modes().size(); ++k) {
        pts.push_back(coordinates(
            view, [&](std::size_t s) { return std::log(set.value(s, k).time_ms); },
            [&](std::size_t s) { return std::log(set.value(s, k).power_w); }));
      }
      std::vector<std::vector<double>> front;
      for (std::size_t k = 0; k < pts.size(); ++k) {
        if (!dominated(front, pts[k])) {
          std::erase_if(front, [&](const std::vector<double>& f) {
            for (std::size_t d = 0; d < f.size(); ++d) {
              if (pts[k][d] > f[d]) return false;
            }
            return true;
          });
          front.push_back(pts[k]);
        }
      }
      fronts.push_back(std::move(front));
    }
    // The additive epsilon indicator of the optimistic estimate against the measured front, in
    // logarithms: how much (relative) the mode would improve the front in its worst coordinate.
    std::size_t pick = grid.size();
    double pick_score = options_.min_gain;
    for (std::size_t g = 0; g < grid.size(); ++g) {
      if (done[g] != 0) continue;
      const Eigen::Index gi = static_cast<Eigen::Index>(g);
      double score = -std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < views.size(); ++c) {
        const std::vector<double> v = coordinates(
            views[c],
            [&](std::size_t s) {
              const auto& e = models.at(s);
              return e.log_time_mean(gi) - options_.kappa * e.log_time_sd(gi);
            },
            [&](std::size_t s) {
              const auto& e = models.at(s);
              const double p = e.power_mean(gi) - options_.kappa * e.power_sd(gi);
              return std::log(std::max(p, 0.1));
            });
        double eps = std::numeric_limits<double>::infinity();
        for (const std::vector<double>& f : fronts[c]) {
          double worst = -std::numeric_limits<double>::infinity();
          for (std::size_t d = 0; d < v.size(); ++d) worst = std::max(worst, f[d] - v[d]);
          eps = std::min(eps, worst);
        }
        score = std::max(score, eps * views[c].weight);
      }
      if (score > pick_score) {
        pick = g;
        pick_score = score;
      }
    }
    if (pick == grid.size() && !family.empty() && set.modes().size() < family_from) {
      family_from = 0;  // the front is stable early: the family stage takes the rest
      continue;
    }
    if (pick == grid.size()) {
      stop_reason_ = "front stable";
      break;
    }
    done[pick] = 1;
    set.measure(profiler, grid, pick);
  }
  return set;
}

namespace {

std::optional<Choice> answer_from(const MeasuredSet* kept, const Problem& problem) {
  if (kept == nullptr || !kept->serves(problem)) return std::nullopt;
  Choice c = kept->answer(problem);
  c.strategy = "als";
  c.note = "from its " + std::to_string(kept->modes().size()) + " measured modes";
  return c;
}

class KeptSet : public ReusableAnswer {
 public:
  explicit KeptSet(MeasuredSet set) : set_(std::move(set)) {}
  std::optional<Choice> answer(const Problem& problem) const override {
    return answer_from(&set_, problem);
  }

 private:
  MeasuredSet set_;
};

}  // namespace

std::optional<Choice> Als::answer(const Problem& problem) const {
  return answer_from(kept_.get(), problem);
}

std::unique_ptr<ReusableAnswer> Als::explore_reusable(const Problem& problem, Profiler& profiler,
                                                      const SearchContext& context) {
  return std::make_unique<KeptSet>(explore(problem, profiler, context));
}

Choice Als::choose(const Problem& problem, Profiler& profiler, const SearchContext& context) {
  if (!kept_ || !kept_->serves(problem)) explore(problem, profiler, context);
  return *answer(problem);
}

std::unique_ptr<Strategy> make_als(const StrategyOptions& options) {
  AlsOptions o;
  if (options.max_modes) o.max_modes = *options.max_modes;
  if (options.k) o.seed_modes = *options.k;
  return std::make_unique<Als>(o);
}

std::unique_ptr<Strategy> make_als_modes(const StrategyOptions& options) {
  AlsOptions o;
  if (options.max_modes) o.max_modes = *options.max_modes;
  if (options.k) o.seed_modes = *options.k;
  o.prior_data_dir = options.data_dir;
  o.per_axis_length_scales = false;  // measured with one length scale; not re-measured
  return std::make_unique<Als>(o);
}

}  // namespace fulcrum::sim::search
