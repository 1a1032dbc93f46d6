#include "sim/search/measured_set.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "sim/search/strategies.hpp"

namespace fulcrum::sim::search {

MeasuredSet MeasuredSet::for_problem(const Problem& problem, const SearchContext& context,
                                     bool window_fits) {
  MeasuredSet set;
  set.training_ = problem.training;
  set.training_batch_ = problem.training_batch;
  if (!problem.training.empty()) {
    set.series_.push_back({problem.training, models::Phase::training, problem.training_batch, -1});
  }
  std::vector<std::vector<std::size_t>> per_stream;
  for (std::size_t i = 0; i < problem.streams.size() && i < 2; ++i) {
    set.streams_.push_back(problem.streams[i].workload);
    per_stream.emplace_back();
    const std::vector<int>& sizes = context.stream_batches.at(i);
    for (int b : sizes) {
      const SearchStream& st = problem.streams[i];
      if (window_fits && b != sizes.front() && b / st.arrival_per_s >= st.latency_bound_s()) {
        continue;
      }
      per_stream.back().push_back(set.series_.size());
      set.series_.push_back(
          {problem.streams[i].workload, models::Phase::inference, b, static_cast<int>(i)});
    }
  }
  set.combos_ = {{}};
  for (const std::vector<std::size_t>& options : per_stream) {
    std::vector<std::vector<std::size_t>> next;
    for (const std::vector<std::size_t>& prefix : set.combos_) {
      for (std::size_t s : options) {
        next.push_back(prefix);
        next.back().push_back(s);
      }
    }
    set.combos_ = std::move(next);
  }
  set.values_.assign(set.series_.size(), {});
  set.tried_.assign(context.grid.size(), 0);
  return set;
}

bool MeasuredSet::serves(const Problem& problem) const {
  if (problem.training != training_ || problem.training_batch != training_batch_) return false;
  if (problem.streams.size() != streams_.size()) return false;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (problem.streams[i].workload != streams_[i]) return false;
  }
  return true;
}

bool MeasuredSet::has(std::size_t index) const {
  return std::find(indices_.begin(), indices_.end(), index) != indices_.end();
}

bool MeasuredSet::measure(Profiler& profiler, const models::ModeSpace& grid, std::size_t index) {
  if (tried_.at(index) != 0) return has(index);
  const models::PowerMode mode = grid.at(index);
  if (!profiler.can_profile(mode)) return false;
  tried_[index] = 1;
  std::vector<MeasuredPoint> got;
  for (const Series& s : series_) {
    const Profile p = profiler.profile(s.workload, s.phase, s.batch_size, mode);
    if (!p.ok()) return false;
    got.push_back(p.value);
  }
  indices_.push_back(index);
  modes_.push_back(mode);
  for (std::size_t s = 0; s < series_.size(); ++s) values_[s].push_back(got[s]);
  return true;
}

SteadyState MeasuredSet::state(const Problem& problem, std::size_t k,
                               const std::vector<int>& batches) const {
  std::optional<MeasuredPoint> train;
  if (!training_.empty()) train = values_[0][k];
  std::vector<MeasuredPoint> infer;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    for (std::size_t s = 0; s < series_.size(); ++s) {
      if (series_[s].stream == static_cast<int>(i) && series_[s].batch_size == batches[i]) {
        infer.push_back(values_[s][k]);
      }
    }
  }
  return steady_state_of(problem, train, infer, batches);
}

double MeasuredSet::value_of(const Problem& problem, const Choice& choice,
                             IdleTwoStreams idle) const {
  if (!choice.found) return -std::numeric_limits<double>::infinity();
  const std::size_t k = static_cast<std::size_t>(
      std::find(modes_.begin(), modes_.end(), choice.mode) - modes_.begin());
  std::optional<MeasuredPoint> train;
  if (!problem.training.empty()) train = value(0, k);
  return continuous_value(problem, state(problem, k, choice.batch_sizes), train, idle);
}

Choice MeasuredSet::answer(const Problem& problem) const {
  // Mode-major, combinations in order: ties keep the first (smaller grid index first when the
  // set was measured in grid order).
  std::vector<std::vector<int>> batches;
  std::vector<char> allowed;
  for (const std::vector<std::size_t>& combo : combos_) {
    batches.emplace_back();
    for (std::size_t s : combo) batches.back().push_back(series_[s].batch_size);
    allowed.push_back(batches_allowed(problem, batches.back()) ? 1 : 0);
  }
  const bool training = !training_.empty();
  std::optional<SteadyState> best_state;
  std::size_t best_k = 0, best_c = 0;
  for (std::size_t k = 0; k < indices_.size(); ++k) {
    std::optional<MeasuredPoint> train;
    if (training) train = values_[0][k];
    for (std::size_t c = 0; c < combos_.size(); ++c) {
      if (allowed[c] == 0) continue;
      const std::vector<std::size_t>& combo = combos_[c];
      SteadyState s;
      if (combo.empty()) {
        s = steady_state(problem, train, std::nullopt, 0);
      } else if (combo.size() == 1) {
        s = steady_state(problem, train, values_[combo[0]][k], batches[c][0]);
      } else {
        s = steady_state_two(problem, train, values_[combo[0]][k], batches[c][0],
                             values_[combo[1]][k], batches[c][1]);
      }
      if (!s.feasible()) continue;
      if (!best_state || better(problem.objective, s, *best_state)) {
        best_state = s;
        best_k = k;
        best_c = c;
      }
    }
  }
  std::optional<Measured> best;
  if (best_state) best = Measured{modes_[best_k], batches[best_c], *best_state};
  Choice c = choice_from(best, static_cast<int>(indices_.size()));
  if (best) c.predicted_power_w = best->state.power_w(problem.power_kind);
  return c;
}

std::vector<std::size_t> MeasuredSet::pareto_modes() const {
  std::vector<char> on(indices_.size(), 0);
  for (const std::vector<std::size_t>& combo : combos_) {
    std::vector<std::vector<double>> points;
    for (std::size_t k = 0; k < indices_.size(); ++k) {
      std::vector<double> v;
      double power = 0;
      if (!training_.empty()) {
        v.push_back(values_[0][k].time_ms);
        power = values_[0][k].power_w;
      }
      for (std::size_t s : combo) {
        v.push_back(values_[s][k].time_ms);
        power = std::max(power, values_[s][k].power_w);
      }
      v.push_back(power);
      points.push_back(std::move(v));
    }
    for (std::size_t k = 0; k < points.size(); ++k) {
      bool beaten = false;
      for (std::size_t j = 0; j < points.size() && !beaten; ++j) {
        if (j == k) continue;
        bool le = true, lt = false;
        for (std::size_t d = 0; d < points[k].size(); ++d) {
          le = le && points[j][d] <= points[k][d];
          lt = lt || points[j][d] < points[k][d];
        }
        beaten = le && (lt || j < k);
      }
      if (!beaten) on[k] = 1;
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < on.size(); ++k) {
    if (on[k] != 0) out.push_back(indices_[k]);
  }
  return out;
}

SeriesModels::SeriesModels(const models::ModeSpace& grid, std::size_t series, GpOptions options)
    : features_(grid),
      bank_(std::move(options)),
      time_offset_(series),
      power_offset_(series),
      estimates_(series) {}

void SeriesModels::set_offsets(std::size_t s, Eigen::VectorXd log_time, Eigen::VectorXd power) {
  time_offset_.at(s) = std::move(log_time);
  power_offset_.at(s) = std::move(power);
}

void SeriesModels::fit(const MeasuredSet& set, bool reselect) {
  const Eigen::MatrixXd x = features_.rows(set.modes());
  const Eigen::Index n = x.rows();
  const Eigen::Index series = static_cast<Eigen::Index>(estimates_.size());
  Eigen::MatrixXd y(n, 2 * series);
  // Floors: 5% on time (log units), 0.5 W on power.
  Eigen::VectorXd floor(2 * series);
  floor.head(series).setConstant(0.05);
  floor.tail(series).setConstant(0.5);
  for (Eigen::Index s = 0; s < series; ++s) {
    const std::size_t su = static_cast<std::size_t>(s);
    for (Eigen::Index k = 0; k < n; ++k) {
      const MeasuredPoint& v = set.value(su, static_cast<std::size_t>(k));
      const Eigen::Index g = static_cast<Eigen::Index>(set.modes()[static_cast<std::size_t>(k)]);
      y(k, s) = std::log(v.time_ms);
      y(k, series + s) = v.power_w;
      if (time_offset_[su].size() > 0) {
        y(k, s) -= time_offset_[su](g);
        y(k, series + s) -= power_offset_[su](g);
      }
    }
  }
  bank_.fit(x, y, floor, reselect);
  Eigen::MatrixXd mean, sd;
  bank_.predict(features_.all(), mean, sd);
  for (Eigen::Index s = 0; s < series; ++s) {
    const std::size_t su = static_cast<std::size_t>(s);
    Estimate& e = estimates_[su];
    e.log_time_mean = mean.col(s);
    e.log_time_sd = sd.col(s);
    e.power_mean = mean.col(series + s);
    e.power_sd = sd.col(series + s);
    if (time_offset_[su].size() > 0) {
      e.log_time_mean += time_offset_[su];
      e.power_mean += power_offset_[su];
    }
  }
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

std::vector<std::size_t> space_filling(const ModeFeatures& features, std::size_t count,
                                       const std::vector<std::size_t>& exclude,
                                       const std::function<bool(std::size_t)>& eligible) {
  const Eigen::MatrixXd& f = features.all();
  const std::size_t n = static_cast<std::size_t>(f.rows());
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  std::vector<char> taken(n, 0);
  auto take = [&](std::size_t i) {
    taken[i] = 1;
    for (std::size_t j = 0; j < n; ++j) {
      nearest[j] = std::min(
          nearest[j], (f.row(static_cast<Eigen::Index>(j)) - f.row(static_cast<Eigen::Index>(i)))
                          .squaredNorm());
    }
  };
  for (std::size_t e : exclude) take(e);
  std::vector<std::size_t> out;
  // The middle mode: the one closest to the centre of the standardised features.
  if (exclude.empty() && !eligible && count > 0 && n > 0) {
    std::size_t mid = 0;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
      const double d = f.row(static_cast<Eigen::Index>(j)).squaredNorm();
      if (d < best) {
        best = d;
        mid = j;
      }
    }
    out.push_back(mid);
    take(mid);
  }
  while (out.size() < count) {
    std::size_t pick = n;
    double far = -1;
    for (std::size_t j = 0; j < n; ++j) {
      if (taken[j] == 0 && nearest[j] > far && (!eligible || eligible(j))) {
        far = nearest[j];
        pick = j;
      }
    }
    if (pick == n) break;
    out.push_back(pick);
    take(pick);
  }
  return out;
}

}  // namespace fulcrum::sim::search
