#include "sim/search/prior.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "models/workload/workload_catalog.hpp"
#include "sim/search/als.hpp"
#include "sim/search/measured_set.hpp"
#include "sim/search/strategies.hpp"

namespace fulcrum::sim::search {

std::optional<MeasuredPoint> PerfModelPrior::predict(std::string_view workload, models::Phase phase,
                                                     int batch_size,
                                                     const models::PowerMode& mode) const {
  const models::Workload* w =
      models::workload_catalog().find(models::canonical_workload_name(workload));
  if (w == nullptr) return std::nullopt;
  const models::Prediction p = model_.predict({device_, mode, *w, phase, batch_size});
  if (!(p.time_ms > 0)) return std::nullopt;
  return MeasuredPoint{p.time_ms, p.power.module_w()};
}

Choice PriorStrategy::choose(const Problem& problem, Profiler& profiler,
                             const SearchContext& context) {
  MeasuredSet set = MeasuredSet::for_problem(problem, context, true);
  const models::ModeSpace& grid = context.grid;
  SeriesModels models(grid, set.series().size());
  if (prior_) {
    for (std::size_t s = 0; s < set.series().size(); ++s) {
      const Series& se = set.series()[s];
      Eigen::VectorXd lt(static_cast<Eigen::Index>(grid.size()));
      Eigen::VectorXd pw(lt.size());
      bool complete = true;
      for (std::size_t g = 0; g < grid.size() && complete; ++g) {
        const std::optional<MeasuredPoint> p =
            prior_->predict(se.workload, se.phase, se.batch_size, grid.at(g));
        complete = p.has_value();
        if (p) {
          lt(static_cast<Eigen::Index>(g)) = std::log(p->time_ms);
          pw(static_cast<Eigen::Index>(g)) = p->power_w;
        }
      }
      if (complete) models.set_offsets(s, std::move(lt), std::move(pw));
    }
  }
  const ModeBudget budget(options_.max_modes, grid.size(), profiler);
  std::vector<char> done(grid.size(), 0);
  for (std::size_t i : space_filling(
           models.features(),
           std::min<std::size_t>(budget.modes(), static_cast<std::size_t>(options_.seed_modes)))) {
    if (!budget.allows(profiler.modes().size())) break;
    done[i] = 1;
    set.measure(profiler, grid, i);
  }
  std::string note = "budget reached";
  for (int round = 0; budget.allows(profiler.modes().size()) && !set.modes().empty(); ++round) {
    models.fit(set, round % 4 == 0);
    const Choice best = set.answer(problem);
    const double best_value = set.value_of(problem, best, IdleTwoStreams::window_spare);
    // The unprofiled mode with the best optimistic gain, weighted by the probability that it
    // is feasible (constrained expected improvement, with an optimistic bound for the gain).
    std::size_t pick = grid.size();
    double pick_score = 0;
    double pick_gain = 0;
    const bool have_best = best.found;
    double max_window_s = 0;
    for (const std::vector<std::size_t>& combo : set.combos()) {
      if (!combo.empty()) {
        max_window_s = std::max(
            max_window_s, set.series()[combo[0]].batch_size / problem.streams[0].arrival_per_s);
      }
    }
    // The scan below visits every batch combination at every unprofiled mode: what depends on
    // the combination alone is found once, and at each mode what depends on one series alone
    // (its optimistic point, its chance of each budget) once, when first asked for.
    const std::vector<std::vector<std::size_t>>& combos = set.combos();
    std::vector<std::vector<int>> combo_batches(combos.size());
    std::vector<char> combo_allowed(combos.size(), 0);
    for (std::size_t c = 0; c < combos.size(); ++c) {
      for (std::size_t s : combos[c]) combo_batches[c].push_back(set.series()[s].batch_size);
      combo_allowed[c] = batches_allowed(problem, combo_batches[c]) ? 1 : 0;
    }
    const std::size_t n_series = set.series().size();
    std::size_t n_streams = 0;
    for (const std::vector<std::size_t>& combo : combos)
      n_streams = std::max(n_streams, combo.size());
    std::vector<MeasuredPoint> optimistic_at(n_series);
    std::vector<double> power_ok_at(n_series);
    // By stream i and series s: i x n_series + s.
    std::vector<double> time_ok_at(n_streams * n_series);
    std::vector<char> have_optimistic(n_series), have_power_ok(n_series),
        have_time_ok(n_streams * n_series);
    for (std::size_t g = 0; g < grid.size(); ++g) {
      if (done[g] != 0) continue;
      const Eigen::Index gi = static_cast<Eigen::Index>(g);
      std::fill(have_optimistic.begin(), have_optimistic.end(), 0);
      std::fill(have_power_ok.begin(), have_power_ok.end(), 0);
      std::fill(have_time_ok.begin(), have_time_ok.end(), 0);
      auto optimistic = [&](std::size_t s) -> const MeasuredPoint& {
        if (have_optimistic[s] == 0) {
          const SeriesModels::Estimate& e = models.at(s);
          optimistic_at[s] =
              MeasuredPoint{std::exp(e.log_time_mean(gi) - options_.kappa * e.log_time_sd(gi)),
                            e.power_mean(gi) - options_.kappa * e.power_sd(gi)};
          have_optimistic[s] = 1;
        }
        return optimistic_at[s];
      };
      // Probability that series s stays within the power budget.
      auto power_ok = [&](std::size_t s) {
        if (!problem.power_budget_w) return 1.0;
        if (have_power_ok[s] == 0) {
          const SeriesModels::Estimate& e = models.at(s);
          power_ok_at[s] =
              normal_cdf((*problem.power_budget_w - e.power_mean(gi)) / e.power_sd(gi));
          have_power_ok[s] = 1;
        }
        return power_ok_at[s];
      };
      // Probability that series s, as stream i, takes no longer than its window and latency
      // budget leave.
      auto time_ok = [&](std::size_t i, std::size_t s, int batch) {
        const std::size_t k = i * n_series + s;
        if (have_time_ok[k] == 0) {
          const SearchStream& st = problem.streams[i];
          const double w = batch / st.arrival_per_s;
          const double room = std::min(w, st.latency_bound_s() - w);
          const SeriesModels::Estimate& e = models.at(s);
          time_ok_at[k] =
              room > 0
                  ? normal_cdf((std::log(room * 1000.0) - e.log_time_mean(gi)) / e.log_time_sd(gi))
                  : 0.0;
          have_time_ok[k] = 1;
        }
        return time_ok_at[k];
      };
      std::optional<MeasuredPoint> train;
      double train_ok = 1.0;
      if (!problem.training.empty()) {
        train = optimistic(0);
        train_ok = power_ok(0);
        // An upper bound of the objective at this mode, whatever the batch sizes: the whole
        // longest window for training. A mode that cannot beat the best measured one even so,
        // or that almost surely exceeds the power budget, is not scored further.
        if (train_ok < 1e-6) continue;
        if (have_best) {
          const double t = train->time_ms / 1000.0;
          double bound = 1.0 / t;
          if (!problem.streams.empty() && problem.objective == Objective::per_window) {
            bound = max_window_s / t;
          }
          if (bound <= best_value) continue;
        }
      }
      for (std::size_t c = 0; c < combos.size(); ++c) {
        if (combo_allowed[c] == 0) continue;
        const std::vector<std::size_t>& combo = combos[c];
        const std::vector<int>& batches = combo_batches[c];
        SteadyState s;
        if (combo.empty()) {
          s = steady_state(problem, train, std::nullopt, 0);
        } else if (combo.size() == 1) {
          s = steady_state(problem, train, optimistic(combo[0]), batches[0]);
        } else {
          s = steady_state_two(problem, train, optimistic(combo[0]), batches[0],
                               optimistic(combo[1]), batches[1]);
        }
        if (!s.feasible()) continue;
        // Probability of feasibility: power of every phase, and each stream's inference time
        // within what its window and latency budget leave.
        double pf = train_ok;
        for (std::size_t i = 0; i < combo.size(); ++i) {
          pf *= power_ok(combo[i]);
          pf *= time_ok(i, combo[i], batches[i]);
        }
        const double v = continuous_value(problem, s, train, IdleTwoStreams::window_spare);
        const double gain = have_best ? std::max(v - best_value, 0.0) : 1.0 + 1e-9 * v;
        const double score = pf * gain;
        if (score > pick_score) {
          pick_score = score;
          pick_gain = gain;
          pick = g;
        }
      }
    }
    if (pick == grid.size()) {
      note = have_best ? "no unprofiled mode can beat the best measured one"
                       : "no unprofiled mode is feasible even optimistically";
      break;
    }
    (void)pick_gain;
    done[pick] = 1;
    set.measure(profiler, grid, pick);
  }
  Choice c = set.answer(problem);
  c.tries = static_cast<int>(profiler.modes().size());
  c.note = (c.found ? "" : "nothing measured meets the budgets; ") + note;
  return c;
}

std::unique_ptr<Strategy> make_prior(const StrategyOptions& options) {
  PriorOptions o;
  if (options.max_modes) o.max_modes = *options.max_modes;
  if (options.k) o.seed_modes = *options.k;
  return std::make_unique<PriorStrategy>(o);
}

void add_model_strategies(StrategyRegistry& r) {
  r.add({"als",
         "active learning of the time-power Pareto front (GP surrogates); answers new budgets "
         "and arrival rates from its measured set without profiling",
         150, make_als});
  r.add({"als-modes", "als with the cross-mode model (analytic-modes) as its surrogates' prior",
         150, make_als_modes});
  r.add({"prior",
         "power-law prior corrected by GPs on few profiles, sampling where the optimum is "
         "likely",
         15, make_prior});
}

}  // namespace fulcrum::sim::search
