#include "sim/search/als.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

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
// power) at full weight -- the 2-D fronts hold most optima, the full one the rest.
std::vector<View> views_of(const MeasuredSet& set) {
  std::vector<View> out;
  const bool training = !set.series().empty() && set.series()[0].stream < 0;
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

}  // namespace

const MeasuredSet& Als::explore(const Problem& problem, Profiler& profiler,
                                const SearchContext& context) {
  kept_ = std::make_unique<MeasuredSet>(MeasuredSet::for_problem(problem, context));
  MeasuredSet& set = *kept_;
  const models::ModeSpace& grid = context.grid;
  SeriesModels models(grid, set.series().size());
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
  std::vector<char> done(grid.size(), 0);
  for (std::size_t i : tried) done[i] = 1;
  stop_reason_ = "budget";
  const std::vector<View> views = views_of(set);
  // 2. The active loop.
  for (int round = 0; budget.allows(set.modes().size()); ++round) {
    if (set.modes().empty()) break;
    models.fit(set, round % 10 == 0);
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
  return std::make_unique<Als>(o);
}

}  // namespace fulcrum::sim::search
