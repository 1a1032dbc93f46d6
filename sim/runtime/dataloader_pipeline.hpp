// DataloaderPipeline: the training data pipeline of a PyTorch DataLoader as actors on the run's
// simulator (training.data_pipeline: dataloader; docs/PIPELINE.md):
//   - workers (training.dataloader.workers) each prepare whole minibatches, one after another:
//     fetch its samples' files (page cache hits are copied out of RAM, misses are read from the
//     storage medium), then pre-process them on the CPU. Batch j of an epoch goes to worker
//     j mod workers; at most workers x prefetch_factor batches are in flight, and the main
//     process hands out the next index each time it takes a batch (in order) for the GPU.
//     Prefetching does not cross epochs: each epoch starts a fresh iterator (no persistent
//     workers), in a fresh random order (models::epoch_order).
//   - workers = 0: the main process fetches and pre-processes each minibatch itself when the
//     GPU wants it, so fetch, pre-process and compute run one after another.
//   - storage: one first-come-first-served server; a batch's misses are one request of
//     misses x latency + bytes / random-read bandwidth.
//   - CPU (docs/PIPELINE.md "CPU contention"): the online cores less the OS's share. The host
//     threads come first (Linux's scheduler lets a thread that wakes from a synchronisation
//     preempt a CPU-bound one): the training process's host thread while a training minibatch
//     computes and each inference process's host thread while its item runs share the cores
//     equally, at most one core each; the workers pre-processing share what they leave, at most
//     one core each. The share a host thread got over the previous training minibatch is the
//     share the next one runs with (training_host_share): below 1 (more host threads than
//     cores) the perf model stretches its launch-bound work. Before each minibatch the training
//     process takes its input in (host_intake_ms: rebuilding the batch, the host-to-device copy)
//     while the GPU waits; the perf model's time holds that work at a full core, so what
//     contention adds, intake x (1 / share - 1) at the share the host thread gets then (below 1
//     only beside inference host threads), is a wait before the minibatch (counted as fetch
//     stall), with the host thread runnable meanwhile.
// The workers' busy cores draw busy_core_power_w() each on the CPU rail (source "dataloader").
//
//   DataloaderPipeline p(setup, *setup.pipeline);   // make_data_pipeline does this
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "models/pipeline/dataloader_model.hpp"
#include "models/pipeline/page_cache.hpp"
#include "sim/runtime/data_pipeline.hpp"

namespace fulcrum::sim {

class DataloaderPipeline final : public DataPipeline {
 public:
  // Throws InputError for what it cannot model (no dataset samples, a dataset without a sample
  // format, no RAM size); setup and data must outlive it.
  DataloaderPipeline(const RunSetup& setup, const models::PipelineData& data);

  std::optional<Time> ready_at(std::uint64_t minibatch, Time wanted) override;
  void on_compute_start(std::uint64_t minibatch, Time at) override;
  void on_compute_end(std::uint64_t minibatch, Time at) override;
  void on_inference_start(Time at) override;
  void on_inference_end(Time at) override;
  double training_host_share() const override;
  double inference_host_share() const override;
  void attach(Simulator& sim, PowerSink& power, RunObserver* observer, NotifyFn notify) override;
  MinibatchData minibatch_data(std::uint64_t minibatch) override;
  std::optional<EpochData> epoch_data(std::uint64_t epoch) override;
  std::optional<DataloaderResult> result(Time end) const override;

  // The figures it runs with (tests and summary).
  double preprocess_ms_per_sample() const { return preprocess_ms_; }
  double worker_batch_ms() const { return batch_ms_; }
  double intake_ms_per_sample() const { return intake_ms_; }  // the training host thread's
  double cpu_capacity_cores() const { return capacity_; }     // online cores less the OS's share
  double intake_wait_s() const { return to_seconds(intake_wait_); }  // contention's, so far
  const models::CacheEstimate& cache_estimate() const { return cache_estimate_; }

 private:
  struct Batch {
    std::uint64_t index = 0;  // over the run
    bool ready = false;
    Time fetch_start = 0;
    Time fetch_end = 0;
    Time preprocess_start = 0;
    Time ready_at = 0;
    MinibatchData data;
  };
  struct Worker {
    std::deque<std::uint64_t> queue;  // batches handed to it, in order
    bool busy = false;
  };
  struct CpuJob {
    int worker = 0;
    std::uint64_t batch = 0;
    double remaining_ns = 0;  // core-nanoseconds left
  };

  std::uint64_t epoch_of(std::uint64_t minibatch) const { return minibatch / per_epoch_; }
  std::size_t size_of(std::uint64_t minibatch) const;
  void start_epoch(std::uint64_t epoch);
  void hand_out(std::uint64_t minibatch);  // to its worker's queue
  void run_worker(int w);
  void begin_preprocess(int w, std::uint64_t minibatch);
  void batch_done(int w, std::uint64_t minibatch);
  // Sharing of the cores, host threads first (docs/PIPELINE.md "CPU contention"): the host
  // threads that want a core now (the training job's, while its minibatch computes or it takes
  // one in, and each inference item's), each one's share (with `extra` more), and the share of
  // each busy worker, from what the host threads leave.
  std::size_t host_threads() const;
  double host_rate_with(std::size_t extra) const;
  double host_rate() const;
  double worker_rate() const;
  double worker_core_share() const;  // of a core, each busy worker (its power)
  double clock_share() const;        // of the clock, what oversubscribed cores leave the workers
  // A busy worker's share when the host threads take every core: never 0, so that a worker
  // always progresses (Linux's scheduler starves no runnable thread); the same floor as a host
  // thread's quantised share.
  static constexpr double kWorkerFloor = 1e-3;
  void cpu_advance();
  void cpu_reschedule();
  void cpu_complete();
  void set_worker_power();
  // The wait contention adds to the training process's intake of `minibatch` now (0 at a full
  // core); with a wait, the host thread is runnable until it ends.
  Time begin_intake(std::uint64_t minibatch);

  const RunSetup& setup_;
  const models::PipelineData& data_;
  Simulator* sim_ = nullptr;
  PowerSink* power_ = nullptr;
  RunObserver* observer_ = nullptr;
  NotifyFn notify_;
  PowerSource source_{};
  std::vector<double> rail_w_;
  std::size_t cpu_rail_ = 0;
  double core_w_ = 0;

  int workers_ = 0;  // as configured; 0 runs in the main process (one pseudo-worker)
  int in_flight_ = 1;
  int cores_ = 1;
  double cpu_mhz_ = 0;   // the mode's CPU clock (the pipeline's costs are at it)
  double lost_mhz_ = 0;  // per runnable thread beyond one per core (oversubscription_mhz)
  double capacity_ = 1;  // cores the workers and host threads share: online cores - OS share
  std::uint64_t samples_ = 0;
  std::size_t batch_size_ = 1;
  std::uint64_t per_epoch_ = 1;
  double bytes_per_sample_ = 0;
  double preprocess_ms_ = 0;
  double batch_ms_ = 0;     // a worker's fixed core-ms per minibatch
  double hit_copy_ms_ = 0;  // per cached sample
  double intake_ms_ = 0;    // the training host thread's core-ms per sample of intake
  models::CacheEstimate cache_estimate_;
  models::PageCache cache_;
  std::string format_;

  std::optional<std::uint64_t> epoch_;  // the epoch whose iterator is open
  std::vector<std::uint32_t> order_;
  std::uint64_t next_issue_ = 0;            // next minibatch index to hand out in this epoch
  std::uint64_t epoch_end_ = 0;             // one past the epoch's last minibatch
  std::map<std::uint64_t, Batch> batches_;  // handed out and not yet reported
  std::vector<Worker> worker_state_;
  std::optional<std::uint64_t> waiting_for_;
  std::map<std::uint64_t, EpochData> epochs_;  // not yet reported
  Time storage_free_ = 0;

  std::vector<CpuJob> jobs_;
  bool launch_active_ = false;
  bool intake_active_ = false;  // the training host thread waits for a core to take a batch in
  Time intake_wait_ = 0;        // total of those waits
  int inference_threads_ = 0;   // inference host threads running an item
  // The training host thread's share over its current minibatch (rate x ns integrated since
  // launch_since_) and the mean share over the last complete one.
  double launch_rate_ns_ = 0;
  Time launch_since_ = 0;
  std::optional<double> last_launch_share_;
  double launch_share_ = 1;  // the share the running (or last) training minibatch runs with
  double launch_share_sum_ = 0;
  std::uint64_t launch_share_count_ = 0;
  Time cpu_last_ = 0;
  std::optional<EventId> cpu_event_;

  // Totals.
  EpochData total_;
  Time storage_busy_ = 0;
  double worker_core_ns_ = 0;
};

}  // namespace fulcrum::sim
