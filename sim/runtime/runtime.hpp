// Runtime: one event-driven run of a scenario -- arrivals, per-stream batchers, the training job
// and its data pipeline, the GPU-sharing policy, power integration and metrics. run() in
// runner.hpp is the usual way in; construct a Runtime directly to supply a DataPipeline.
//
//   ComputeOnlyPipeline pipeline;
//   Runtime runtime(setup, backend, observer, pipeline);
//   RunResult result = runtime.run();   // once per Runtime
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/runtime/arrival_process.hpp"
#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/gpu_host.hpp"
#include "sim/runtime/gpu_sharing_policy.hpp"
#include "sim/runtime/power_meter.hpp"
#include "sim/runtime/ring_buffer.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/runtime/runner.hpp"

namespace fulcrum::sim {

class Runtime final : public GpuHost {
 public:
  // Throws InputError for settings the run cannot honour (duration <= 0, a latency percentile
  // other than 50/95/99/100, epochs without a dataset size, ...). `observer` may be null; the
  // setup, backend, observer and pipeline must outlive the Runtime.
  Runtime(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
          DataPipeline& pipeline);
  ~Runtime() override;

  // Reports progress during run() (see ProgressFn); call before run(). Empty: none.
  void set_progress(ProgressFn progress) { progress_ = std::move(progress); }

  RunResult run();

  // GpuHost
  Simulator& simulator() override { return sim_; }
  int context_count() const override { return 1 + static_cast<int>(streams_.size()); }
  bool has_ready_work(int context) const override;
  Time ready_since(int context) const override;
  bool is_training_active() const override;
  const ItemCost& begin_item(int context) override;
  void finish_item(int context) override;
  const std::vector<double>& idle_power_w() const override { return idle_power_w_; }
  void set_gpu_state(std::span<const double> share, std::span<const double> rail_power_w) override;

 private:
  struct Batch {
    std::uint64_t id = 0;
    std::size_t size = 0;
    Time dispatch = 0;
  };

  struct Stream {
    explicit Stream(ArrivalProcess process) : arrivals(std::move(process)) {}

    const InferenceStreamSpec* spec = nullptr;
    const models::Workload* workload = nullptr;
    std::size_t batch_size = 1;
    std::optional<Time> max_wait;
    ArrivalProcess arrivals;
    // Arrival times of every request not yet completed, oldest first: the front ones belong to
    // dispatched batches (in order), the last `waiting` are not dispatched yet.
    RingBuffer<Time> requests;
    RingBuffer<Batch> batches;  // dispatched, not completed; the front one may be running
    std::size_t waiting = 0;
    EventId timer;  // max_wait_ms timer of the oldest waiting request
    bool running = false;
    Time start = 0;                   // of the running batch
    std::size_t cap = 0;              // backlog above which arrivals are dropped
    std::optional<Time> overflow_at;  // first time the backlog hit the cap
    std::size_t backlog_mid = 0;      // backlog at half the duration
    std::uint64_t arrived = 0;
    std::uint64_t completed = 0;
    std::uint64_t dropped = 0;
    std::uint64_t next_batch_id = 0;
    std::uint64_t batches_done = 0;
    std::vector<Time> latencies;
    std::vector<std::optional<ItemCost>> costs;  // by batch size, filled on first use
  };

  struct Training {
    const TrainingSpec* spec = nullptr;
    const models::Workload* workload = nullptr;
    std::size_t batch_size = 1;
    std::optional<std::uint64_t> minibatches_per_epoch;  // absent: no dataset size, no epochs
    std::size_t last_batch_size = 1;                     // of each epoch's last minibatch
    std::optional<int> epochs;
    std::uint64_t next = 0;  // index of the next minibatch over the run
    bool data_ready = false;
    Time ready_at = 0;
    Time stall = 0;  // of the next minibatch
    bool running = false;
    Time start = 0;
    std::size_t running_size = 0;
    Time running_stall = 0;
    bool finished = false;
    std::uint64_t completed = 0;
    double samples = 0;
    Time stall_total = 0;
    Time epoch_start = 0;
    std::vector<double> epoch_time_s;
    std::vector<std::optional<ItemCost>> costs;
  };

  const ItemCost& cost(int context, std::size_t batch_size);
  void schedule_next_arrival(int stream);
  void on_arrival(int stream);
  void on_timer(int stream);
  void dispatch(int stream);
  void prepare_training();    // asks the pipeline when the next minibatch is ready
  void integrate_to(Time t);  // busy times up to t
  std::size_t training_batch_size(std::uint64_t minibatch) const;
  std::string instability_reason(int stream, std::size_t backlog_end);
  RunResult collect();

  const RunSetup& setup_;
  backends::Backend& backend_;
  RunObserver* observer_;
  ProgressFn progress_;
  DataPipeline& pipeline_;
  Time end_;
  Simulator sim_;
  std::vector<Stream> streams_;
  std::optional<Training> training_;
  std::unique_ptr<GpuSharingPolicy> policy_;
  std::vector<double> idle_power_w_;
  PowerMeter meter_;
  std::vector<double> share_;    // current share per context
  std::vector<double> busy_ns_;  // per context
  double any_busy_ns_ = 0;
  Time last_state_ = 0;
  bool power_reported_ = false;
  bool ran_ = false;
};

}  // namespace fulcrum::sim
