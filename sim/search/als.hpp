// `als`: active-learning search for reusable Pareto-optimal modes (docs/SEARCH.md, "als").
//
// A surrogate with uncertainty over the mode grid (per series -- the training workload, every
// stream at every batch size --, a GP on log time and one on power; see surrogate.hpp), seeded by
// a space-filling sample (and one mode in every core count x CPU clock tercile it left empty),
// then repeatedly profiling the mode most likely to change the predicted front of (training
// time, inference time per stream, max power) for some batch combination: the mode whose
// optimistic estimate (mean - kappa sd, on logarithms) improves the measured front the most by
// the additive epsilon indicator (its least relative gain over every measured point, in its
// worst coordinate). The last family_modes of the budget go to the problems the set will answer:
// the modes the surrogates' means pick as the best answer, over a family of arrival rates,
// latency budgets and every power budget, that beat the measured modes, and below the power at
// which anything is feasible on the means, those feasible on optimistic estimates (AlsOptions).
// It stops at its budget or when no mode offers at least min_gain even optimistically (the front
// is stable) and none gains in the family stage.
//
// What it keeps is the measured set (MeasuredSet): the answer to a problem -- and to any other
// power budget, latency budget or arrival rate of the same workloads -- is computed from it with
// no further profiling (Als::answer, or the cached set reused by choose()).
//
//   Als als({.max_modes = 100, .seed = 3});
//   const MeasuredSet& set = als.explore(problem, profiler, context);
//   Choice c = als.answer(other_problem);   // no Profiler
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/search/measured_set.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

struct AlsOptions {
  int max_modes = 150;  // profiling budget (distinct modes)
  int seed_modes = 16;  // space-filling sample before the active loop
  double kappa = 2;     // optimism: estimates are taken at mean - kappa sd
  // Least relative improvement of the front (log units, 0.005 = 0.5%) worth a profile; when no
  // mode offers more even optimistically, the front is stable.
  double min_gain = 0.005;
  // The cross-mode model (the calibration in this data folder, where one exists for the device)
  // as the surrogates' prior mean; empty: the power law alone.
  std::string prior_data_dir = {};
  // The last `family_modes` of the budget go to the problems the set will answer: for a family
  // of problems (every arrival rate and latency budget below, with the explored problem's own,
  // at its objective and power constraint) and every power budget up to family_max_power_w, the
  // best configuration on the surrogates' means (measured values where measured) is found; the
  // unmeasured modes that beat the measured ones most, summed over the family, are profiled,
  // `family_batch` at a time. 0: none.
  int family_modes = 80;
  int family_batch = 10;
  std::vector<double> family_rates_per_s = {20, 30,  40,  50,  60,  70, 80,
                                            90, 100, 110, 120, 135, 150};
  std::vector<double> family_latency_s = {0.4, 0.5, 0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.5};
  double family_max_power_w = 60;
  // Power budgets where neither a measured configuration nor the means' best is feasible:
  // configurations feasible on the estimates optimistic by k sd (each k here, least first; see
  // docs/SEARCH.md, "als", step 5) gain, per watt, the chance such a bound holds
  // (normal_cdf(-k)). Empty: the means only.
  std::vector<double> family_optimism_sd = {0.5};
  // After the space-filling seed, one mode in every (core count, CPU clock tercile) cell of the
  // grid that the seed left empty (the seed's maximin favours the corners).
  bool cover_cores_cpu = true;
  // Under time-weighted power with a training job, the front loop also keeps each stream
  // series' front of (its time, its own power): at the stability edge a stream fills its window,
  // training runs no minibatch and the power judged is the stream's own, not the max with the
  // training's (docs/SEARCH.md, "als", step 2).
  bool stream_power_views = true;
  // The surrogates' kernel takes a length scale per mode axis (cores, CPU, GPU, EMC clock), each
  // chosen by the marginal likelihood (GpOptions::per_axis), where false keeps one length scale
  // for all four (docs/SEARCH.md, "als", the surrogates). `als-modes` keeps the one length scale.
  bool per_axis_length_scales = true;
};

class Als : public Strategy {
 public:
  explicit Als(AlsOptions options = {}) : options_(options) {}
  std::string name() const override {
    return options_.prior_data_dir.empty() ? "als" : "als-modes";
  }
  std::optional<int> max_modes() const override { return options_.max_modes; }

  // Reuses the kept set when it serves `problem` (no profiling at all), else explores first.
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override;

  // Explores the workloads of `problem` and returns an answer from (a copy of) the kept set.
  std::unique_ptr<ReusableAnswer> explore_reusable(const Problem& problem, Profiler& profiler,
                                                   const SearchContext& context) override;

  // Explores the workloads of `problem` and keeps the measured set (replacing any earlier one).
  const MeasuredSet& explore(const Problem& problem, Profiler& profiler,
                             const SearchContext& context);
  // The kept set's answer to `problem`; nullopt when nothing was explored for its workloads.
  std::optional<Choice> answer(const Problem& problem) const;
  const MeasuredSet* kept() const { return kept_.get(); }
  // Why the last exploration stopped: "budget" or "front stable".
  // Modes the last exploration profiled for the problem family (AlsOptions::family_modes).
  std::size_t family_profiled() const { return family_profiled_; }
  const std::string& stop_reason() const { return stop_reason_; }

 private:
  AlsOptions options_;
  std::unique_ptr<MeasuredSet> kept_;
  std::string stop_reason_;
  std::size_t family_profiled_ = 0;
};

std::unique_ptr<Strategy> make_als(const StrategyOptions& options);
// `als-modes`: als with the cross-mode model as its surrogates' prior mean.
std::unique_ptr<Strategy> make_als_modes(const StrategyOptions& options);

}  // namespace fulcrum::sim::search
