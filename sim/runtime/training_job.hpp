// TrainingJob: the training job of a run -- minibatches of batch_size over epochs of the dataset
// (the last minibatch of an epoch takes what is left), each waiting for its data from the
// DataPipeline before it can start, until the epochs are done or the run ends.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/workload/workload.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/runtime/work_context.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// The size of each epoch's last minibatch: what is left of `dataset_samples` (whole samples)
// after the full minibatches of `batch_size`; `batch_size` when they divide evenly, and nullopt
// without a dataset (fewer than one sample: no epochs).
std::optional<std::size_t> last_minibatch_size(double dataset_samples, std::size_t batch_size);

class TrainingJob final : public WorkContext {
 public:
  // Called when the next minibatch's data becomes ready later than the GPU could take it.
  using ReadyFn = std::function<void()>;

  // Throws InputError for settings it cannot honour (batch size < 1, epochs < 1, epochs without
  // a dataset size, a negative dataset size). `observer` (may be null) is told of every epoch
  // that completes. Everything passed must outlive the job.
  TrainingJob(const TrainingSpec& spec, const models::Workload& workload, double dataset_samples,
              DataPipeline& pipeline, Simulator& sim, RunObserver* observer, ReadyFn on_ready);

  // Asks the pipeline for the first minibatch's data; returns whether it is ready at once.
  bool begin();

  // The pipeline's NotifyFn: the data it did not know a time for is ready now.
  void data_arrived();

  ContextKind kind() const override { return ContextKind::training; }
  bool has_ready_work() const override { return !finished_ && !running_ && data_ready_; }
  Time ready_since() const override { return ready_at_; }
  void start(Time now, StartedItem& started) override;
  void finish(Time now, Time standalone) override;

  // Not finished its epochs (without epochs it trains until the run ends).
  bool is_active() const { return !finished_; }
  // When the last of its epochs completed, once it has finished them; nullopt before.
  std::optional<Time> finished_at() const {
    return finished_ ? std::optional<Time>(epoch_start_) : std::nullopt;
  }

  const TrainingSpec& spec() const { return spec_; }
  const models::Workload& workload() const { return workload_; }
  std::size_t batch_size() const { return batch_size_; }
  std::uint64_t completed() const { return completed_; }
  double samples() const { return samples_; }
  // Stalls of minibatches that started; a stall still in progress is not counted.
  Time stall_total() const { return stall_total_; }
  std::uint64_t epochs_completed() const { return epochs_completed_; }
  // First, last, mean, min and max epoch time; nullopt before the first epoch completes.
  std::optional<EpochTimeStats> epoch_time_stats() const;
  // The first kMaxSummaryEpochs completed epochs.
  const std::vector<EpochSummary>& epoch_summaries() const { return epoch_summaries_; }

 private:
  std::size_t minibatch_size(std::uint64_t minibatch) const;
  void prepare_next();  // asks the pipeline when the next minibatch is ready

  const TrainingSpec& spec_;
  const models::Workload& workload_;
  DataPipeline& pipeline_;
  Simulator& sim_;
  RunObserver* observer_;
  ReadyFn on_ready_;
  std::size_t batch_size_ = 1;
  std::optional<std::uint64_t> minibatches_per_epoch_;  // absent: no dataset size, no epochs
  std::size_t last_batch_size_ = 1;                     // of each epoch's last minibatch
  std::uint64_t samples_per_epoch_ = 0;
  std::optional<int> epochs_;
  std::uint64_t next_ = 0;  // index of the next minibatch over the run
  bool data_ready_ = false;
  bool waiting_ = false;  // for the pipeline's NotifyFn
  Time wanted_ = 0;       // when the next minibatch could have started
  Time ready_at_ = 0;
  Time stall_ = 0;  // of the next minibatch
  bool running_ = false;
  std::size_t running_size_ = 0;
  bool finished_ = false;
  std::uint64_t completed_ = 0;
  double samples_ = 0;
  Time stall_total_ = 0;
  Time epoch_start_ = 0;        // the previous epoch's end (or 0)
  Time epoch_stall_start_ = 0;  // stall_total_ then
  // The completed epochs' times, digested.
  std::uint64_t epochs_completed_ = 0;
  Time first_epoch_ = 0;
  Time last_epoch_ = 0;
  Time min_epoch_ = 0;
  Time max_epoch_ = 0;
  Time epochs_total_ = 0;
  std::vector<EpochSummary> epoch_summaries_;
};

}  // namespace fulcrum::sim
