// What the model-based strategies (`als`, `prior`) share: the series a problem needs measured at
// a mode (its training, every stream at every candidate batch size), the measured set they keep,
// and a bank of GP surrogates over those series.
//
// MeasuredSet::answer() is a problem's best configuration among the measured modes, computed
// from the kept values only: a new power budget, latency budget or arrival rate for the same
// workloads is answered with no profiling.
//
//   MeasuredSet set = MeasuredSet::for_problem(problem, context);
//   set.measure(problem, profiler, context.grid, index);    // every series at one grid mode
//   Choice c = set.answer(other_budgets);                    // no Profiler involved
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/device/mode_space.hpp"
#include "models/device/power_mode.hpp"
#include "models/workload/phase_cost.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/problem.hpp"
#include "sim/search/profiler.hpp"
#include "sim/search/steady_state.hpp"
#include "sim/search/strategy.hpp"
#include "sim/search/surrogate.hpp"

namespace fulcrum::sim::search {

// One measured quantity per mode: a workload in a phase at a batch size.
struct Series {
  std::string workload;
  models::Phase phase = models::Phase::training;
  int batch_size = 0;
  int stream = -1;  // index into Problem::streams; -1 for training
};

class MeasuredSet {
 public:
  // The series of `problem` (training first, then each stream's batch sizes in order). With
  // `window_fits`, a batch size whose fill time alone (b / arrival rate) reaches the stream's
  // latency budget is left out: no configuration with it can meet the budget.
  static MeasuredSet for_problem(const Problem& problem, const SearchContext& context,
                                 bool window_fits = false);

  // Whether `problem` names the same workloads (and training batch) as the set was made for:
  // then answer() may serve it.
  bool serves(const Problem& problem) const;

  // Profiles every series at grid mode `index` (once); false when a measurement was refused or
  // the truth has no value there (the mode is then unusable and not kept).
  bool measure(Profiler& profiler, const models::ModeSpace& grid, std::size_t index);
  bool has(std::size_t index) const;

  // The best configuration of `problem` among the kept modes, from kept values only.
  Choice answer(const Problem& problem) const;
  // The steady state of `problem` at kept mode k (position in modes()) with batch indices
  // `combo` (one per stream); nullopt when a batch size is not a candidate of the problem.
  SteadyState state(const Problem& problem, std::size_t k, const std::vector<int>& batches) const;
  // continuous_value of `choice` (an answer() of this set) at its kept mode; -infinity when it
  // found nothing.
  double value_of(const Problem& problem, const Choice& choice, IdleTwoStreams idle) const;

  // Grid indices of the kept modes, in the order they were measured.
  const std::vector<std::size_t>& modes() const { return indices_; }
  const std::vector<models::PowerMode>& mode_values() const { return modes_; }
  const std::vector<Series>& series() const { return series_; }
  // Value of series s at kept mode k.
  const MeasuredPoint& value(std::size_t s, std::size_t k) const { return values_[s][k]; }
  // Every combination of batch sizes (one per stream), as indices into the series of each.
  const std::vector<std::vector<std::size_t>>& combos() const { return combos_; }
  // The (time, power) Pareto-optimal kept modes: the modes on the non-dominated front of
  // (training time, each stream's inference time, max power) for some batch combination.
  std::vector<std::size_t> pareto_modes() const;

 private:
  std::string training_;
  int training_batch_ = 0;
  std::vector<std::string> streams_;
  std::vector<Series> series_;
  std::vector<std::vector<std::size_t>> combos_;  // series index per stream
  std::vector<std::size_t> indices_;              // grid index per kept mode
  std::vector<models::PowerMode> modes_;
  std::vector<std::vector<MeasuredPoint>> values_;  // [series][kept mode]
  std::vector<char> tried_;                         // per grid index: measured (or unusable)
};

// GP surrogates of log time and power for every series of a MeasuredSet, over a grid.
class SeriesModels {
 public:
  // `options`: the GP bank's (one kernel for every series' time and power).
  SeriesModels(const models::ModeSpace& grid, std::size_t series, GpOptions options = {});
  // Refits on the set's kept modes; `offsets` (per series, per grid mode: a prior's log time and
  // power, or empty) are subtracted before fitting and added back in predictions.
  void fit(const MeasuredSet& set, bool reselect);
  struct Estimate {
    Eigen::VectorXd log_time_mean, log_time_sd, power_mean, power_sd;  // per grid mode
  };
  const Estimate& at(std::size_t series) const { return estimates_[series]; }
  const ModeFeatures& features() const { return features_; }
  // Prior offsets for series s (log time and power per grid mode).
  void set_offsets(std::size_t s, Eigen::VectorXd log_time, Eigen::VectorXd power);

 private:
  ModeFeatures features_;
  GpBank bank_;  // columns: log time of every series, then power of every series
  std::vector<Eigen::VectorXd> time_offset_, power_offset_;
  std::vector<Estimate> estimates_;
};

// Grid indices chosen to fill the feature space: the grid's middle mode first (where nothing is
// excluded and every mode eligible), then repeatedly the mode farthest from those chosen and from
// `exclude` (maximin), among the modes `eligible` accepts (every mode where it is empty); ties go
// to the lower index.
std::vector<std::size_t> space_filling(const ModeFeatures& features, std::size_t count,
                                       const std::vector<std::size_t>& exclude = {},
                                       const std::function<bool(std::size_t)>& eligible = {});

// The standard normal CDF: the probability that a GP estimate (mean, sd) falls below a bound
// (x = (bound - mean) / sd), as the guided strategies weigh feasibility.
double normal_cdf(double x);

}  // namespace fulcrum::sim::search
