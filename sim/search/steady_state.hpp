// The closed-form steady state of windowed managed interleaving (reference/measurements/README.md,
// "The problem as AutoCITE defined it"; the `managed` policy's windowed variant): with one stream
// at fixed arrival rate a and batch size b, every window w = b/a one inference minibatch runs
// (t_in), then n = floor((w - t_in) / t_train) training minibatches, then the GPU idles.
//   stable:        t_in * a <= b
//   peak latency:  b/a + t_in
//   training:      n per window, n / w per second
//   power:         max(P_train, P_infer) (published), or the window's energy / w with the idle
//                  power in the time left (time-weighted)
// Two streams: a bound (see steady_state_two). CandidateTable precomputes every (mode, batch
// size) of a problem so that scoring them all is one vector scan.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "sim/search/ground_truth.hpp"
#include "sim/search/problem.hpp"

namespace fulcrum::sim::search {

struct SteadyState {
  bool stable = false;
  double window_s = 0;        // b/a of the first stream (0 without streams)
  long per_window = 0;        // training minibatches per window of the first stream
  double per_s = 0;           // training minibatches per second
  double peak_latency_s = 0;  // the highest of the streams'
  double power_max_w = 0;     // max over the phases that run
  double power_avg_w = 0;     // time-weighted, idle included
  double t_in_s = 0;          // inference minibatch time of the first stream (tie-break)
  bool latency_met = false;   // every stream's peak latency <= its budget
  bool power_met = false;     // the power the problem judges <= its budget (true without one)
  bool feasible() const { return stable && latency_met && power_met; }
  // The power Problem::power_kind judges.
  double power_w(PowerConstraint kind) const {
    return kind == PowerConstraint::max_of_phases ? power_max_w : power_avg_w;
  }
};

// Training minibatches per window, floor((w - t_in) / t_train), computed in milliseconds as the
// reference notebook does; 0 when t_in >= w.
long minibatches_per_window(double window_s, double t_in_ms, double t_train_ms);

// One stream (or none: `infer` absent means training only; `train` absent means inference only).
SteadyState steady_state(const Problem& problem, const std::optional<MeasuredPoint>& train,
                         const std::optional<MeasuredPoint>& infer, int batch_size);

// Two streams at once, a conservative bound: stable when t1/w1 + t2/w2 <= 1; each stream's peak
// latency w_i + t_i + t_j (its batch may wait behind the other's); training per second
// (1 - u) / t_train with u that utilisation, per window of the first stream floor(w1 (1-u) / t).
SteadyState steady_state_two(const Problem& problem, const std::optional<MeasuredPoint>& train,
                             const MeasuredPoint& infer1, int batch1, const MeasuredPoint& infer2,
                             int batch2);

// No, one or two streams by `infer`'s size (steady_state or steady_state_two), batches[i] the
// batch size of infer[i].
SteadyState steady_state_of(const Problem& problem, const std::optional<MeasuredPoint>& train,
                            const std::vector<MeasuredPoint>& infer,
                            const std::vector<int>& batches);

// Whether every batches[i] is a batch size problem.streams[i] allows (SearchStream::batch_sizes;
// empty: any).
bool batches_allowed(const Problem& problem, const std::vector<int>& batches);

// The problem's objective at a steady state: training minibatches per window of the first stream
// (per-window problems with a stream) or per second.
double objective_value(const Problem& problem, const SteadyState& s);

// Where a two-stream problem leaves training no time (per_s == 0), what continuous_value counts
// as the spare time: the first stream's window less its inference (`prior`), or none (`fewshot`).
enum class IdleTwoStreams { window_spare, none };

// The objective without its floor (training minibatches per window or per second as a real
// number), so that estimates the floor would tie still rank: -t_in without training, 1 / t_train
// without streams.
double continuous_value(const Problem& problem, const SteadyState& s,
                        const std::optional<MeasuredPoint>& train, IdleTwoStreams idle);

// Whether `a` is a better objective value than `b` (both feasible): per window or per second
// first, then the smaller t_in (the published tie-break).
bool better(Objective objective, const SteadyState& a, const SteadyState& b);

// Every (mode, batch size) of one problem's first stream, precomputed as flat arrays (structure
// of arrays, one entry per mode x batch size) so that best() is one scan with no lookups.
class CandidateTable {
 public:
  // train[m]: the training figure at mode m (absent = unmeasured: the mode is skipped; ignored
  // when the problem has no training); infer[j][m]: batch size batches[j] at mode m.
  CandidateTable(const Problem& problem, std::vector<int> batches,
                 const std::vector<std::optional<MeasuredPoint>>& train,
                 const std::vector<std::vector<std::optional<MeasuredPoint>>>& infer);

  struct Best {
    bool found = false;
    std::size_t mode = 0;  // index into the modes the table was built on
    int batch_size = 0;
    SteadyState state;
  };
  // The best feasible candidate for the table's problem, or for the same workloads under other
  // budgets and arrival rates (`problem` must name the same workloads).
  Best best(const Problem& problem) const;

  std::size_t modes() const { return modes_; }
  const std::vector<int>& batches() const { return batches_; }

 private:
  std::size_t modes_ = 0;
  std::vector<int> batches_;
  bool has_training_ = false;
  bool has_stream_ = false;
  // Per mode.
  std::vector<double> t_train_ms_, p_train_w_;
  // Per batch x mode, flattened batch-major; NaN = unmeasured.
  std::vector<double> t_in_ms_, p_in_w_;
};

}  // namespace fulcrum::sim::search
