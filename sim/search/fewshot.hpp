// `fewshot`: our few-mode strategy (docs/SEARCH.md, "fewshot"). A prior for every series the
// problem needs (the cross-mode model `analytic-modes` where a calibration of the device exists),
// corrected by GPs on the modes profiled so far; feasibility first (while nothing measured meets
// the budgets, the mode most likely to), then constrained improvement (the probability of
// feasibility times the optimistic gain over the best measured feasible configuration); it stops
// when no mode can gain more than `min_gain` of the best, or at its budget (`budget_modes`; with
// nothing feasible measured then, it goes on up to its cap `max_modes`); its first modes go
// to distinct core counts (`spread_cores`). Before giving up with nothing feasible measured it
// scores again with estimates widened where the measurements at a core count depart from the
// prior unevenly (`core_spread_sd`). The answer is the best measured feasible
// configuration (never a prediction).
//
// Within one run of the strategy object, modes measured for an earlier problem of the same
// workloads (the earlier segments of a dynamic arrival case: Strategy::keeps_profiles) are
// reused at no cost when the same Profiler is passed again; once `budget_modes` are spent, a later
// problem adds new modes only if none of the kept ones meets its budgets.
//
//   FewShot s({.max_modes = 27, .budget_modes = 15}, FewShotPrior::cross_mode);
//   Choice c = run_strategy(s, problem, context);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/search/measured_set.hpp"
#include "sim/search/prior.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::search {

// Which prior the strategy starts from.
enum class FewShotPrior {
  none,        // the power law fitted to the profiles alone (as `prior`)
  cross_mode,  // the shipped cross-mode calibration (fitted on every reference row)
  // The shipped calibration with the problem's own workloads' parameters removed: they are
  // predicted zero-shot from their layer graphs (the device's coefficients were still fitted on
  // every workload's rows).
  cross_mode_zero_shot,
  // A calibration file given by path (FewShotOptions::calibration), e.g. one fitted on a random
  // half of the modes (`fulcrum calibrate --modes --holdout 0.5 --out FILE`).
  cross_mode_file,
};

struct FewShotOptions {
  // The cap: new modes per problem (distinct), max_modes() and what a Profiler is given. The
  // search spends at most budget_modes of them (or a later problem's share, below); only while
  // nothing measured meets the budgets once those are spent does it go on, with the same scoring,
  // up to max_modes less budget_modes more: it stops at the first feasible measurement, or where
  // no mode is likely feasible (as within the budget).
  int max_modes = 27;
  int budget_modes = 15;  // at most max_modes
  // The modes past budget_modes only for problems with at least this many inference streams.
  int unfound_min_streams = 2;
  // New modes for a later problem through the same profiler (a dynamic case's later segment):
  // budget_modes less the modes already measured, but at least followup_modes when none of the
  // kept modes meets the later problem's budgets, else at least followup_found_modes.
  int followup_modes = 4;
  int followup_found_modes = 0;
  int seed_modes = 0;          // space-filling modes before the guided loop (without a prior: 3)
  double kappa = 1.5;          // optimism of the gain: times mean - kappa sd, power mean - kappa sd
  double min_gain = 0.001;     // stop when no mode can gain this share of the best measured value
  double prior_time_sd = 0.3;  // prior sd of log time before any profile (with a prior)
  double prior_power_sd_w = 3.0;  // prior sd of power before any profile (with a prior)
  double model_time_sd = 0.2;     // extra sd of log time, shrinking as 1/sqrt(1 + modes)
  double model_power_sd_w = 4.0;  // extra sd of power, likewise
  double pf_stop = 1e-7;          // while nothing feasible is measured: stop below this probability
  // Once a mode is measured, the next mode is the best-scoring one at a core count not measured
  // yet, while there is one (and, with nothing feasible measured, its score reaches pf_stop).
  bool spread_cores = true;
  // When nothing measured meets the budgets and the estimates see no mode that likely does
  // (after the fastest mode), modes left are spent with the sd of every mode widened by this
  // share of the measured residuals' spread from the prior at its core count (0: stop there).
  double core_spread_sd = 1.0;
  FewShotPrior prior = FewShotPrior::cross_mode;
  std::string calibration = {};  // the file for FewShotPrior::cross_mode_file
  std::string label = "fewshot";
};

class FewShot : public Strategy {
 public:
  explicit FewShot(FewShotOptions options = {}, std::string data_dir = default_data_dir())
      : options_(std::move(options)), data_dir_(std::move(data_dir)) {}
  std::string name() const override { return options_.label; }
  std::optional<int> max_modes() const override { return options_.max_modes; }
  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override;
  bool keeps_profiles() const override { return true; }

 private:
  FewShotOptions options_;
  std::string data_dir_;
  // The measured set of the last problem: reused when the Profiler of the next one has profiled
  // every one of its modes (the same Profiler), else the next problem starts afresh.
  std::unique_ptr<MeasuredSet> kept_;
};

// A prior's prediction of one series over a whole grid: log time (ms) and power (W) per mode.
struct GridPrior {
  Eigen::VectorXd log_time, power;
};

// The cross-mode model's prediction of `series` over `grid` (named `grid_name`), from the
// calibration `file` with the parameters of the workloads `zero_shot` removed (predicted from
// their layer graphs); nullptr where the file is absent or of another device. Built once per
// process and shared by every run (thread-safe).
std::shared_ptr<const GridPrior> cross_mode_grid_prior(const std::string& file,
                                                       const std::vector<std::string>& zero_shot,
                                                       const models::DeviceSpec& device,
                                                       const models::ModeSpace& grid,
                                                       const std::string& grid_name,
                                                       const Series& series);

// Registers fewshot (cross-mode prior), fewshot-zs (zero-shot workloads) and fewshot-bare (the
// power law alone).
void add_fewshot_strategies(StrategyRegistry& registry);

}  // namespace fulcrum::sim::search
