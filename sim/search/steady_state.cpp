#include "sim/search/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fulcrum::sim::search {

long minibatches_per_window(double window_s, double t_in_ms, double t_train_ms) {
  const double spare_ms = window_s * 1000.0 - t_in_ms;
  if (spare_ms <= 0 || t_train_ms <= 0) return 0;
  return static_cast<long>(std::floor(spare_ms / t_train_ms));
}

namespace {

void judge_power(const Problem& problem, SteadyState& s) {
  s.power_met = !problem.power_budget_w || s.power_w(problem.power_kind) <= *problem.power_budget_w;
}

}  // namespace

SteadyState steady_state(const Problem& problem, const std::optional<MeasuredPoint>& train,
                         const std::optional<MeasuredPoint>& infer, int batch_size) {
  SteadyState s;
  if (!infer) {  // training only
    s.stable = true;
    s.latency_met = true;
    if (train) {
      s.per_s = 1000.0 / train->time_ms;
      s.power_max_w = train->power_w;
      s.power_avg_w = train->power_w;
    }
    judge_power(problem, s);
    return s;
  }
  const SearchStream& stream = problem.streams.front();
  const double a = stream.arrival_per_s;
  const double w = batch_size / a;
  s.window_s = w;
  s.t_in_s = infer->time_ms / 1000.0;
  s.stable = infer->time_ms / 1000.0 * a <= batch_size;
  s.peak_latency_s = w + s.t_in_s;
  s.latency_met = s.stable && s.peak_latency_s <= stream.latency_bound_s();
  double busy_s = s.t_in_s;
  double energy_j = s.t_in_s * infer->power_w;
  s.power_max_w = infer->power_w;
  if (train) {
    s.per_window = s.stable ? minibatches_per_window(w, infer->time_ms, train->time_ms) : 0;
    s.per_s = s.per_window / w;
    const double train_s = s.per_window * train->time_ms / 1000.0;
    busy_s += train_s;
    energy_j += train_s * train->power_w;
    s.power_max_w = std::max(s.power_max_w, train->power_w);
  }
  energy_j += std::max(0.0, w - busy_s) * problem.idle_power_w;
  s.power_avg_w = energy_j / std::max(w, busy_s);
  judge_power(problem, s);
  return s;
}

SteadyState steady_state_two(const Problem& problem, const std::optional<MeasuredPoint>& train,
                             const MeasuredPoint& infer1, int batch1, const MeasuredPoint& infer2,
                             int batch2) {
  SteadyState s;
  const SearchStream& s1 = problem.streams.at(0);
  const SearchStream& s2 = problem.streams.at(1);
  const double w1 = batch1 / s1.arrival_per_s;
  const double w2 = batch2 / s2.arrival_per_s;
  const double t1 = infer1.time_ms / 1000.0;
  const double t2 = infer2.time_ms / 1000.0;
  const double u = t1 / w1 + t2 / w2;
  s.window_s = w1;
  s.t_in_s = t1;
  s.stable = u <= 1.0;
  const double l1 = w1 + t1 + t2;
  const double l2 = w2 + t2 + t1;
  s.peak_latency_s = std::max(l1, l2);
  s.latency_met = s.stable && l1 <= s1.latency_bound_s() && l2 <= s2.latency_bound_s();
  s.power_max_w = std::max(infer1.power_w, infer2.power_w);
  double busy = u;  // fraction of time the GPU is busy
  double power = t1 / w1 * infer1.power_w + t2 / w2 * infer2.power_w;
  if (train && s.stable) {
    const double t = train->time_ms / 1000.0;
    s.per_s = (1.0 - u) / t;
    s.per_window = static_cast<long>(std::floor(w1 * (1.0 - u) / t));
    busy = 1.0;
    power += (1.0 - u) * train->power_w;
    s.power_max_w = std::max(s.power_max_w, train->power_w);
  } else if (train) {
    s.power_max_w = std::max(s.power_max_w, train->power_w);
  }
  power += std::max(0.0, 1.0 - busy) * problem.idle_power_w;
  s.power_avg_w = power / std::max(1.0, busy);
  judge_power(problem, s);
  return s;
}

bool better(Objective objective, const SteadyState& a, const SteadyState& b) {
  if (a.window_s == 0 && b.window_s == 0) return a.per_s > b.per_s;  // training only
  if (objective == Objective::per_window) {
    if (a.per_window != b.per_window) return a.per_window > b.per_window;
  } else if (a.per_s != b.per_s) {
    return a.per_s > b.per_s;
  }
  return a.t_in_s < b.t_in_s;
}

CandidateTable::CandidateTable(const Problem& problem, std::vector<int> batches,
                               const std::vector<std::optional<MeasuredPoint>>& train,
                               const std::vector<std::vector<std::optional<MeasuredPoint>>>& infer)
    : batches_(std::move(batches)),
      has_training_(!problem.training.empty()),
      has_stream_(!problem.streams.empty()) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  modes_ = has_training_ ? train.size() : (infer.empty() ? 0 : infer.front().size());
  t_train_ms_.assign(modes_, nan);
  p_train_w_.assign(modes_, nan);
  if (has_training_) {
    for (std::size_t m = 0; m < modes_; ++m) {
      if (train[m]) {
        t_train_ms_[m] = train[m]->time_ms;
        p_train_w_[m] = train[m]->power_w;
      }
    }
  }
  if (has_stream_) {
    t_in_ms_.assign(batches_.size() * modes_, nan);
    p_in_w_.assign(batches_.size() * modes_, nan);
    for (std::size_t j = 0; j < batches_.size(); ++j) {
      for (std::size_t m = 0; m < modes_ && m < infer[j].size(); ++m) {
        if (infer[j][m]) {
          t_in_ms_[j * modes_ + m] = infer[j][m]->time_ms;
          p_in_w_[j * modes_ + m] = infer[j][m]->power_w;
        }
      }
    }
  }
}

CandidateTable::Best CandidateTable::best(const Problem& problem) const {
  Best best;
  const double budget =
      problem.power_budget_w ? *problem.power_budget_w : std::numeric_limits<double>::infinity();
  if (!has_stream_) {
    double best_t = std::numeric_limits<double>::infinity();
    for (std::size_t m = 0; m < modes_; ++m) {
      const double t = t_train_ms_[m];
      if (!(p_train_w_[m] <= budget) || !(t < best_t)) continue;  // NaN fails both
      best_t = t;
      best.found = true;
      best.mode = m;
    }
    if (best.found) {
      best.state = steady_state(
          problem, MeasuredPoint{t_train_ms_[best.mode], p_train_w_[best.mode]}, std::nullopt, 0);
    }
    return best;
  }
  const SearchStream& stream = problem.streams.front();
  const double a = stream.arrival_per_s;
  const bool max_kind = problem.power_kind == PowerConstraint::max_of_phases;
  const bool per_window = problem.objective == Objective::per_window;
  // The scan keeps the objective value and t_in of the best so far, and rebuilds its full steady
  // state once at the end.
  double best_value = -1;
  double best_t_in = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < batches_.size(); ++j) {
    const int b = batches_[j];
    const double w = b / a;
    const double w_ms = w * 1000.0;
    // Latency: w + t_in <= budget, and stability t_in <= w (in s, as judged by steady_state).
    const double* t_in = &t_in_ms_[j * modes_];
    const double* p_in = &p_in_w_[j * modes_];
    for (std::size_t m = 0; m < modes_; ++m) {
      const double ti = t_in[m];
      if (!(ti / 1000.0 * a <= b) || !(w + ti / 1000.0 <= stream.latency_bound_s())) continue;
      double n = 0;
      double power = p_in[m];
      if (has_training_) {
        const double tt = t_train_ms_[m];
        if (std::isnan(tt)) continue;
        const double spare = w_ms - ti;
        n = spare > 0 ? std::floor(spare / tt) : 0;
        if (max_kind) {
          power = std::max(power, p_train_w_[m]);
        } else {
          const double busy = ti / 1000.0 + n * tt / 1000.0;  // as steady_state() sums it
          power = (ti / 1000.0 * p_in[m] + n * tt / 1000.0 * p_train_w_[m] +
                   std::max(0.0, w - busy) * problem.idle_power_w) /
                  std::max(w, busy);
        }
      } else if (!max_kind) {
        power = (ti / 1000.0 * p_in[m] + std::max(0.0, w - ti / 1000.0) * problem.idle_power_w) / w;
      }
      if (!(power <= budget)) continue;
      const double value = per_window ? n : n / w;
      if (value > best_value || (value == best_value && ti < best_t_in)) {
        best_value = value;
        best_t_in = ti;
        best.found = true;
        best.mode = m;
        best.batch_size = b;
      }
    }
  }
  if (best.found) {
    const std::size_t j = static_cast<std::size_t>(
        std::find(batches_.begin(), batches_.end(), best.batch_size) - batches_.begin());
    std::optional<MeasuredPoint> train;
    if (has_training_) train = MeasuredPoint{t_train_ms_[best.mode], p_train_w_[best.mode]};
    best.state = steady_state(
        problem, train,
        MeasuredPoint{t_in_ms_[j * modes_ + best.mode], p_in_w_[j * modes_ + best.mode]},
        best.batch_size);
  }
  return best;
}

SteadyState steady_state_of(const Problem& problem, const std::optional<MeasuredPoint>& train,
                            const std::vector<MeasuredPoint>& infer,
                            const std::vector<int>& batches) {
  if (infer.empty()) return steady_state(problem, train, std::nullopt, 0);
  if (infer.size() == 1) return steady_state(problem, train, infer[0], batches[0]);
  return steady_state_two(problem, train, infer[0], batches[0], infer[1], batches[1]);
}

bool batches_allowed(const Problem& problem, const std::vector<int>& batches) {
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const std::vector<int>& only = problem.streams.at(i).batch_sizes;
    if (!only.empty() && std::find(only.begin(), only.end(), batches[i]) == only.end()) {
      return false;
    }
  }
  return true;
}

double objective_value(const Problem& problem, const SteadyState& s) {
  return problem.objective == Objective::per_window && s.window_s > 0
             ? static_cast<double>(s.per_window)
             : s.per_s;
}

double continuous_value(const Problem& problem, const SteadyState& s,
                        const std::optional<MeasuredPoint>& train, IdleTwoStreams idle) {
  if (!train) return -s.t_in_s;  // inference only: the faster the better
  const double t = train->time_ms / 1000.0;
  if (s.window_s == 0) return 1.0 / t;  // training only
  double spare_s = s.window_s - s.t_in_s;
  if (problem.streams.size() > 1 && (s.per_s > 0 || idle == IdleTwoStreams::none)) {
    spare_s = s.per_s * t * s.window_s;
  }
  const double per_window = std::max(spare_s, 0.0) / t;
  return problem.objective == Objective::per_window ? per_window : per_window / s.window_s;
}

}  // namespace fulcrum::sim::search
