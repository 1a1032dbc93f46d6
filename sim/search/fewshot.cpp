#include "sim/search/fewshot.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "models/perf/cross_mode_model.hpp"
#include "sim/config/cross_mode_loader.hpp"

namespace fulcrum::sim::search {

namespace {

// The cross-mode models and their grid predictions, built once per process and shared by every
// run (strategy instances are made per problem): keyed by the calibration file and the
// workloads left to zero-shot.
class PriorCache {
 public:
  static PriorCache& instance() {
    static PriorCache c;
    return c;
  }

  // nullptr when the calibration file does not exist or is not of this device.
  std::shared_ptr<const GridPrior> series(const std::string& file,
                                          const std::vector<std::string>& zero_shot,
                                          const models::DeviceSpec& device,
                                          const models::ModeSpace& grid,
                                          const std::string& grid_name, const Series& s) {
    const std::string model_key = file + "|" + device.name + "|" + join(zero_shot);
    const std::string key = model_key + "|" + grid_name + "|" + s.workload + "|" +
                            std::to_string(static_cast<int>(s.phase)) + "|" +
                            std::to_string(s.batch_size);
    std::shared_ptr<const models::CrossModeModel> model;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = predictions_.find(key); it != predictions_.end()) return it->second;
      model = model_locked(model_key, file, zero_shot, device);
    }
    if (!model) return nullptr;
    auto out = std::make_shared<GridPrior>();
    out->log_time.resize(static_cast<Eigen::Index>(grid.size()));
    out->power.resize(out->log_time.size());
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const models::CrossModeEstimate e =
          model->predict(s.workload, s.phase, grid.at(g), s.batch_size);
      if (!(e.time_s > 0)) return nullptr;
      out->log_time(static_cast<Eigen::Index>(g)) = std::log(e.time_s * 1000.0);
      out->power(static_cast<Eigen::Index>(g)) = e.power_w;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    return predictions_.emplace(key, std::move(out)).first->second;
  }

 private:
  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += s + ",";
    return out;
  }

  std::shared_ptr<const models::CrossModeModel> model_locked(
      const std::string& key, const std::string& file, const std::vector<std::string>& zero_shot,
      const models::DeviceSpec& device) {
    if (auto it = models_.find(key); it != models_.end()) return it->second;
    std::shared_ptr<const models::CrossModeModel> model;
    try {
      if (std::filesystem::is_regular_file(file)) {
        models::CrossModeCalibration cal = load_cross_mode_calibration(file);
        if (cal.device.device == device.name) {
          for (const std::string& w : zero_shot) {
            const std::string name(models::canonical_workload_name(w));
            for (models::Phase ph : {models::Phase::training, models::Phase::inference}) {
              cal.workloads.erase({name, ph});
              cal.workloads.erase({w, ph});
            }
          }
          model = std::make_shared<models::CrossModeModel>(device, std::move(cal));
        }
      }
    } catch (const Error&) {
      model = nullptr;  // a calibration that cannot be read: the strategy runs without a prior
    }
    models_.emplace(key, model);
    return model;
  }

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const models::CrossModeModel>> models_;
  std::map<std::string, std::shared_ptr<const GridPrior>> predictions_;
};

// Where the measurements at a core count depart from the prior unevenly, the prior's error at
// that count's other modes is as uncertain: for every series and core count with measured modes,
// the root mean square of the measured residuals from the prior (log time, power), less their
// mean over every measured mode of the series (which the fitted power law absorbs), times
// `share`, is added in quadrature to the sd of every mode at that core count.
void widen_by_core_spread(const MeasuredSet& set,
                          const std::vector<std::shared_ptr<const GridPrior>>& priors,
                          const models::ModeSpace& grid, double share,
                          std::vector<SeriesModels::Estimate>& est) {
  const std::size_t n = set.modes().size();
  if (n < 2) return;
  for (std::size_t s = 0; s < est.size(); ++s) {
    std::vector<double> rt(n), rp(n);
    double mt = 0, mp = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const Eigen::Index g = static_cast<Eigen::Index>(set.modes()[k]);
      rt[k] = std::log(set.value(s, k).time_ms) - priors[s]->log_time(g);
      rp[k] = set.value(s, k).power_w - priors[s]->power(g);
      mt += rt[k] / static_cast<double>(n);
      mp += rp[k] / static_cast<double>(n);
    }
    std::map<int, std::tuple<double, double, int>> by_cores;  // sum sq time, sum sq power, count
    for (std::size_t k = 0; k < n; ++k) {
      auto& [st, sp, c] = by_cores[set.mode_values()[k].cores];
      st += (rt[k] - mt) * (rt[k] - mt);
      sp += (rp[k] - mp) * (rp[k] - mp);
      ++c;
    }
    SeriesModels::Estimate& e = est[s];
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const auto it = by_cores.find(grid.at(g).cores);
      if (it == by_cores.end()) continue;
      const auto& [st, sp, c] = it->second;
      const double wt = share * share * st / c;
      const double wp = share * share * sp / c;
      const Eigen::Index gi = static_cast<Eigen::Index>(g);
      e.log_time_sd(gi) = std::sqrt(e.log_time_sd(gi) * e.log_time_sd(gi) + wt);
      e.power_sd(gi) = std::sqrt(e.power_sd(gi) * e.power_sd(gi) + wp);
    }
  }
}

}  // namespace

std::shared_ptr<const GridPrior> cross_mode_grid_prior(const std::string& file,
                                                       const std::vector<std::string>& zero_shot,
                                                       const models::DeviceSpec& device,
                                                       const models::ModeSpace& grid,
                                                       const std::string& grid_name,
                                                       const Series& series) {
  return PriorCache::instance().series(file, zero_shot, device, grid, grid_name, series);
}

Choice FewShot::choose(const Problem& problem, Profiler& profiler, const SearchContext& context) {
  MeasuredSet set = MeasuredSet::for_problem(problem, context, true);
  const models::ModeSpace& grid = context.grid;
  const std::size_t n_series = set.series().size();
  const Eigen::Index n_grid = static_cast<Eigen::Index>(grid.size());
  const std::size_t start_modes = profiler.modes().size();
  // New modes for this problem: the budget, less what earlier problems through this profiler
  // spent (their modes are reused), but at least followup_modes.
  const bool reuse = kept_ && !kept_->modes().empty() &&
                     std::all_of(kept_->mode_values().begin(), kept_->mode_values().end(),
                                 [&](const models::PowerMode& m) { return profiler.profiled(m); });
  const int spent = reuse ? static_cast<int>(start_modes) : 0;
  std::vector<char> done(grid.size(), 0);

  // Modes measured for an earlier problem through this profiler: measured again (free: the
  // profiler returns what it has, charging only series it has not measured there).
  if (reuse) {
    for (std::size_t g : kept_->modes()) {
      done[g] = 1;
      set.measure(profiler, grid, g);
    }
  }
  // New modes for this problem: the budget less what earlier problems spent; when that is
  // spent, followup_modes more only if none of the kept modes meets this problem's budgets.
  const int budget_modes = std::min(options_.budget_modes, options_.max_modes);
  int fresh = budget_modes;
  if (spent > 0) {
    fresh = std::max(budget_modes - spent, set.answer(problem).found ? options_.followup_found_modes
                                                                     : options_.followup_modes);
  }
  const ModeBudget budget(fresh + static_cast<int>(start_modes), grid.size(), profiler);
  // Once those are spent with nothing measured meeting the budgets (a problem with at least
  // unfound_min_streams streams): up to the cap's margin more.
  const int unfound_extra = static_cast<int>(problem.streams.size()) >= options_.unfound_min_streams
                                ? std::max(0, options_.max_modes - budget_modes)
                                : 0;
  const ModeBudget extended(fresh + unfound_extra + static_cast<int>(start_modes), grid.size(),
                            profiler);

  // The prior of every series.
  SeriesModels models(grid, n_series);
  bool have_prior = false;
  std::vector<std::shared_ptr<const GridPrior>> priors;
  if (options_.prior != FewShotPrior::none) {
    const std::string file = options_.prior == FewShotPrior::cross_mode_file
                                 ? options_.calibration
                                 : cross_mode_calibration_path(data_dir_, context.device.name);
    std::vector<std::string> zero_shot;
    if (options_.prior == FewShotPrior::cross_mode_zero_shot) {
      if (!problem.training.empty()) zero_shot.push_back(problem.training);
      for (const SearchStream& st : problem.streams) zero_shot.push_back(st.workload);
      std::sort(zero_shot.begin(), zero_shot.end());
      zero_shot.erase(std::unique(zero_shot.begin(), zero_shot.end()), zero_shot.end());
    }
    for (const Series& s : set.series()) {
      priors.push_back(
          PriorCache::instance().series(file, zero_shot, context.device, grid, problem.grid, s));
      if (!priors.back()) break;
    }
    have_prior = priors.size() == n_series && n_series > 0 && priors.back() != nullptr;
    if (have_prior) {
      for (std::size_t s = 0; s < n_series; ++s) {
        models.set_offsets(s, priors[s]->log_time, priors[s]->power);
      }
    }
  }

  // Space-filling seed (without a prior the power law needs a few points to stand on).
  const int seed_modes = options_.seed_modes > 0 ? options_.seed_modes : (have_prior ? 0 : 3);
  if (set.modes().empty() && seed_modes > 0) {
    for (std::size_t i : space_filling(models.features(), static_cast<std::size_t>(seed_modes))) {
      if (!budget.allows(profiler.modes().size())) break;
      done[i] = 1;
      set.measure(profiler, grid, i);
    }
  }

  std::vector<SeriesModels::Estimate> est(n_series);
  double max_window_s = 0;
  for (const std::vector<std::size_t>& combo : set.combos()) {
    if (!combo.empty()) {
      max_window_s = std::max(max_window_s,
                              set.series()[combo[0]].batch_size / problem.streams[0].arrival_per_s);
    }
  }
  std::string note = "budget reached";
  bool rescue = false;  // the estimates widened by the core-count spread (below)
  for (int round = 0;; ++round) {
    if (!budget.allows(profiler.modes().size()) &&
        (!extended.allows(profiler.modes().size()) || set.answer(problem).found)) {
      break;
    }
    if (!set.modes().empty()) {
      models.fit(set, round % 4 == 0);
      // The GP's floors (5% on time, 0.5 W) are tight for a handful of points: a share of the
      // prior's own uncertainty is kept, shrinking as modes are measured.
      const double shrink = 1.0 / std::sqrt(1.0 + static_cast<double>(set.modes().size()));
      const double extra_t = options_.model_time_sd * shrink;
      const double extra_p = options_.model_power_sd_w * shrink;
      for (std::size_t s = 0; s < n_series; ++s) {
        est[s] = models.at(s);
        est[s].log_time_sd = (est[s].log_time_sd.array().square() + extra_t * extra_t).sqrt();
        est[s].power_sd = (est[s].power_sd.array().square() + extra_p * extra_p).sqrt();
      }
      if (rescue) widen_by_core_spread(set, priors, grid, options_.core_spread_sd, est);
    } else if (have_prior) {
      // Nothing measured yet: the prior with its own uncertainty.
      for (std::size_t s = 0; s < n_series; ++s) {
        SeriesModels::Estimate& e = est[s];
        e.log_time_mean = priors[s]->log_time;
        e.power_mean = priors[s]->power;
        e.log_time_sd = Eigen::VectorXd::Constant(n_grid, options_.prior_time_sd);
        e.power_sd = Eigen::VectorXd::Constant(n_grid, options_.prior_power_sd_w);
      }
    } else {
      break;
    }
    const Choice best = set.answer(problem);
    const double best_value = set.value_of(problem, best, IdleTwoStreams::none);
    std::size_t pick = grid.size();
    double pick_score = 0;
    // The best-scoring mode at a core count nothing measured has (spread_cores).
    std::vector<int> seen_cores;
    for (const models::PowerMode& m : set.mode_values()) seen_cores.push_back(m.cores);
    std::size_t pick_new = grid.size();
    double pick_new_score = 0;
    for (Eigen::Index gi = 0; gi < n_grid; ++gi) {
      const std::size_t g = static_cast<std::size_t>(gi);
      if (done[g] != 0) continue;
      const bool new_cores =
          std::find(seen_cores.begin(), seen_cores.end(), grid.at(g).cores) == seen_cores.end();
      auto optimistic = [&](std::size_t s) {
        const SeriesModels::Estimate& e = est[s];
        return MeasuredPoint{std::exp(e.log_time_mean(gi) - options_.kappa * e.log_time_sd(gi)),
                             e.power_mean(gi) - options_.kappa * e.power_sd(gi)};
      };
      auto mean = [&](std::size_t s) {
        const SeriesModels::Estimate& e = est[s];
        return MeasuredPoint{std::exp(e.log_time_mean(gi)), e.power_mean(gi)};
      };
      auto power_ok = [&](std::size_t s) {
        if (!problem.power_budget_w) return 1.0;
        const SeriesModels::Estimate& e = est[s];
        return normal_cdf((*problem.power_budget_w - e.power_mean(gi)) / e.power_sd(gi));
      };
      std::optional<MeasuredPoint> train, train_mean;
      double train_ok = 1.0;
      if (!problem.training.empty()) {
        train = optimistic(0);
        train_mean = mean(0);
        if (problem.power_kind == PowerConstraint::max_of_phases) train_ok = power_ok(0);
        if (train_ok < 1e-6) continue;
        if (best.found) {
          const double t = train->time_ms / 1000.0;
          double bound = 1.0 / t;
          if (!problem.streams.empty() && problem.objective == Objective::per_window) {
            bound = max_window_s / t;
          }
          if (bound <= best_value * (1 + options_.min_gain)) continue;
        }
      }
      for (const std::vector<std::size_t>& combo : set.combos()) {
        std::vector<int> batches;
        std::vector<MeasuredPoint> infer, infer_mean;
        for (std::size_t s : combo) {
          batches.push_back(set.series()[s].batch_size);
          infer.push_back(optimistic(s));
          infer_mean.push_back(mean(s));
        }
        if (!batches_allowed(problem, batches)) continue;
        const SteadyState s = steady_state_of(problem, train, infer, batches);
        if (!s.feasible()) continue;
        // Probability of feasibility: power, and each stream's inference time within what its
        // window and latency budget leave.
        double pf = train_ok;
        if (problem.power_kind == PowerConstraint::max_of_phases) {
          for (std::size_t s2 : combo) pf *= power_ok(s2);
        } else if (problem.power_budget_w) {
          const SteadyState m = steady_state_of(problem, train_mean, infer_mean, batches);
          double sd = problem.training.empty() ? 0.0 : est[0].power_sd(gi);
          for (std::size_t s2 : combo) sd = std::max(sd, est[s2].power_sd(gi));
          pf *= normal_cdf((*problem.power_budget_w - m.power_avg_w) / std::max(sd, 1e-6));
        }
        double busy = 0;  // the other streams' share of time (two streams)
        for (std::size_t i = 0; i < combo.size(); ++i) {
          const SearchStream& st = problem.streams[i];
          const double w = batches[i] / st.arrival_per_s;
          double room = std::min(w, st.latency_bound_s() - w);
          if (combo.size() > 1) {
            const std::size_t j = 1 - i;
            const double wj = batches[j] / problem.streams[j].arrival_per_s;
            busy = infer_mean[j].time_ms / 1000.0;
            room = std::min(w * (1 - busy / wj), st.latency_bound_s() - w - busy);
          }
          const SeriesModels::Estimate& e = est[combo[i]];
          pf *=
              room > 0
                  ? normal_cdf((std::log(room * 1000.0) - e.log_time_mean(gi)) / e.log_time_sd(gi))
                  : 0.0;
        }
        const double v = continuous_value(problem, s, train, IdleTwoStreams::none);
        double score = 0;
        if (best.found) {
          const double gain = v - best_value;
          if (gain <= std::abs(best_value) * options_.min_gain) continue;
          score = pf * gain;
        } else {
          score = pf * (1.0 + 1e-6 * std::tanh(v));
        }
        if (score > pick_score) {
          pick_score = score;
          pick = g;
        }
        if (new_cores && score > pick_new_score) {
          pick_new_score = score;
          pick_new = g;
        }
      }
    }
    if (options_.spread_cores && !set.modes().empty() && pick_new < grid.size() &&
        (best.found || pick_score >= options_.pf_stop)) {
      // A core count not measured yet: the best-scoring mode there (the model's error along the
      // cores axis is what the GPs can learn only from a measurement at that count).
      pick = pick_new;
    } else if (!best.found && (pick == grid.size() || pick_score < options_.pf_stop) &&
               !done[grid.size() - 1]) {
      // Nothing measured is feasible and the estimates see no mode that likely is: before giving
      // up, measure the fastest mode (the grid's last), where a tight latency budget at a high
      // rate is often met alone (the estimates' uncertainty is widest at the corners).
      pick = grid.size() - 1;
    } else if (pick == grid.size() || (!best.found && pick_score < options_.pf_stop)) {
      if (!best.found && !rescue && have_prior && options_.core_spread_sd > 0 &&
          set.modes().size() >= 2) {
        // Nothing feasible measured, none likely by the estimates, the fastest mode measured,
        // modes left: score again with the sd widened where the measurements at a core count
        // depart from the prior unevenly (widen_by_core_spread).
        rescue = true;
        continue;
      }
      note = best.found ? "no unprofiled mode can beat the best measured one"
                        : "no unprofiled mode is feasible even optimistically";
      break;
    }
    done[pick] = 1;
    set.measure(profiler, grid, pick);
  }
  Choice c = set.answer(problem);
  c.tries = static_cast<int>(profiler.modes().size() - start_modes);
  c.note = (c.found ? "" : "nothing measured meets the budgets; ") + note +
           (have_prior ? " (cross-mode prior)" : " (power-law prior)");
  kept_ = std::make_unique<MeasuredSet>(std::move(set));
  return c;
}

namespace {

std::unique_ptr<Strategy> make(const StrategyOptions& o, FewShotPrior prior, std::string label) {
  FewShotOptions f;
  f.prior = prior;
  f.label = std::move(label);
  if (o.max_modes) f.max_modes = *o.max_modes;  // the cap; budget_modes is at most this
  if (o.k) f.seed_modes = *o.k;
  return std::make_unique<FewShot>(f, o.data_dir);
}

}  // namespace

void add_fewshot_strategies(StrategyRegistry& r) {
  r.add({"fewshot",
         "our few-mode search: the cross-mode model as prior, GP-corrected, feasibility first, "
         "then constrained improvement; 15 modes, up to 27 while nothing measured is feasible; "
         "reuses its modes across a dynamic case's segments",
         27,
         [](const StrategyOptions& o) { return make(o, FewShotPrior::cross_mode, "fewshot"); }});
  r.add({"fewshot-zs",
         "fewshot with the problem's workloads predicted zero-shot from their layer graphs (their "
         "own cross-mode parameters removed)",
         27, [](const StrategyOptions& o) {
           return make(o, FewShotPrior::cross_mode_zero_shot, "fewshot-zs");
         }});
  r.add({"fewshot-bare", "fewshot without a model prior (the power law fitted to the profiles)", 27,
         [](const StrategyOptions& o) { return make(o, FewShotPrior::none, "fewshot-bare"); }});
}

}  // namespace fulcrum::sim::search
