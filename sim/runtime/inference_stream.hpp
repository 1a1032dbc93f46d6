// InferenceStream: one inference stream of a run -- its arrival process, the batcher that groups
// requests into batches of batch_size (or fewer after max_wait_ms), the dispatched batches waiting
// for the GPU, and the latencies of completed requests. Memory stays bounded: an overloaded
// stream stops storing arrivals at a cap and counts them as dropped, and latencies beyond the
// first LatencyRecorder::kExactLimit are counted in a fixed-size histogram.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/random/rng_streams.hpp"
#include "models/workload/workload.hpp"
#include "sim/engine/event_id.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/runtime/arrival_process.hpp"
#include "sim/runtime/latency_recorder.hpp"
#include "sim/runtime/ring_buffer.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/work_context.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

class InferenceStream final : public WorkContext {
 public:
  // Called when a batch is dispatched (the stream has new ready work).
  using ReadyFn = std::function<void()>;

  // Stream `index` of the scenario. Throws InputError for settings it cannot honour (batch size
  // < 1, a negative max_wait_ms, an invalid arrival process). `observer` may be null; `spec`,
  // `workload`, `sim` and `observer` must outlive the stream.
  InferenceStream(int index, const InferenceStreamSpec& spec, const models::Workload& workload,
                  const models::RngStreams& rng, Time end, Simulator& sim, RunObserver* observer,
                  ReadyFn on_ready);

  // Schedules the first arrival; each arrival schedules the next.
  void start_arrivals();

  ContextKind kind() const override { return ContextKind::inference; }
  bool has_ready_work() const override { return !running_ && !batches_.empty(); }
  Time ready_since() const override { return requests_.front(); }
  void start(Time now, StartedItem& started) override;
  void finish(Time now, Time standalone) override;

  // The earliest time, from `now` on, at which the stream can next have a batch ready (a full
  // batch, or a partial one after max_wait_ms); kNever when it cannot before the run ends, `now`
  // when a dispatched batch waits. Exact for arrivals fixed in advance (fixed, evenly spaced
  // piecewise, trace), ignoring arrivals dropped at the backlog cap (which only make it later).
  // For Poisson arrivals (plain or piecewise, at their highest rate) no time is certain: the
  // batch becomes ready before the returned time with probability at most `risk` (the quantile
  // of the time to the missing arrivals, Gamma-distributed since the process is memoryless, and
  // at most `risk` again for the max_wait_ms timer of a batch not begun). Windowed managed
  // sharing trains only until this time (docs/SCENARIOS.md, `gpu_sharing`).
  Time next_ready_bound(Time now, double risk) const;

  // Remembers the backlog at mid-run, against which growth is judged at the end.
  void mark_mid_run() { backlog_mid_ = requests_.size(); }

  const InferenceStreamSpec& spec() const { return spec_; }
  const models::Workload& workload() const { return workload_; }
  std::size_t batch_size() const { return batch_size_; }
  double nominal_rate_per_s() const { return arrivals_.nominal_rate_per_s(); }
  std::uint64_t arrived() const { return arrived_; }
  std::uint64_t completed() const { return completed_; }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t batches_done() const { return batches_done_; }
  std::uint64_t batches_dispatched() const { return next_batch_id_; }
  // Whether a partial batch is dispatched after max_wait_ms (else only full ones ever are).
  bool dispatches_partial_batches() const { return max_wait_.has_value(); }
  // Arrived but not completed: waiting, dispatched, or running.
  std::size_t backlog() const { return requests_.size(); }
  std::size_t backlog_mid() const { return backlog_mid_; }
  std::size_t cap() const { return cap_; }
  std::optional<Time> overflow_at() const { return overflow_at_; }
  // Mean standalone time of the full batches that completed (exact: integer ns), if any did.
  std::optional<Time> mean_full_batch_time() const {
    if (full_batches_ == 0) return std::nullopt;
    return full_batch_time_total_ / static_cast<Time>(full_batches_);
  }
  // Mean, p50, p95, p99 and max latency of the completed requests; nullopt when none completed.
  std::optional<LatencyStats> latency_stats() { return latencies_.stats(); }
  const LatencyRecorder& latencies() const { return latencies_; }

 private:
  struct Batch {
    std::uint64_t id = 0;
    std::size_t size = 0;
    Time dispatch = 0;
  };

  void schedule_next_arrival();
  void on_arrival();
  void on_timer();
  void dispatch();

  // The time by which `missing` more Poisson arrivals come with probability `risk` (seconds).
  double poisson_quantile_s(std::size_t missing, double risk) const;

  int index_;
  const InferenceStreamSpec& spec_;
  const models::Workload& workload_;
  Simulator& sim_;
  RunObserver* observer_;
  ReadyFn on_ready_;
  std::size_t batch_size_;
  std::optional<Time> max_wait_;
  ArrivalProcess arrivals_;
  // Arrival times of every request not yet completed, oldest first: the front ones belong to
  // dispatched batches (in order), the last `waiting_` are not dispatched yet.
  RingBuffer<Time> requests_;
  RingBuffer<Batch> batches_;  // dispatched, not completed; the front one may be running
  std::size_t waiting_ = 0;
  EventId timer_;                     // max_wait_ms timer of the oldest waiting request
  std::optional<Time> next_arrival_;  // the scheduled arrival, if one remains before the end
  // next_ready_bound()'s caches: when the filling batch will be full (arrivals fixed in advance;
  // it changes only at a dispatch or a drop), and Poisson quantiles per missing request count.
  mutable std::optional<std::optional<Time>> full_at_;
  mutable std::vector<double> quantile_s_;
  mutable double quantile_risk_ = 0;
  bool running_ = false;
  Time start_ = 0;                   // of the running batch
  std::size_t cap_ = 0;              // backlog at which arrivals are dropped (stability rule 1)
  std::optional<Time> overflow_at_;  // first time the backlog hit the cap
  std::size_t backlog_mid_ = 0;
  std::uint64_t arrived_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t next_batch_id_ = 0;
  std::uint64_t batches_done_ = 0;
  Time full_batch_time_total_ = 0;
  std::uint64_t full_batches_ = 0;
  LatencyRecorder latencies_;
};

}  // namespace fulcrum::sim
