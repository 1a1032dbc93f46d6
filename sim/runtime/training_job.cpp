#include "sim/runtime/training_job.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::sim {

TrainingJob::TrainingJob(const TrainingSpec& spec, const models::Workload& workload,
                         double dataset_samples, DataPipeline& pipeline, Simulator& sim,
                         RunObserver* observer, ReadyFn on_ready)
    : spec_(spec),
      workload_(workload),
      pipeline_(pipeline),
      sim_(sim),
      observer_(observer),
      on_ready_(std::move(on_ready)),
      epochs_(spec.epochs) {
  if (spec.batch_size < 1) throw InputError(std::nullopt, "training.batch_size", "must be >= 1");
  batch_size_ = static_cast<std::size_t>(spec.batch_size);
  if (!(dataset_samples >= 0) || !std::isfinite(dataset_samples)) {
    throw InputError(std::nullopt, "training.dataset", "the dataset size must be >= 0");
  }
  if (dataset_samples >= 1) {
    const auto n = static_cast<std::uint64_t>(std::floor(dataset_samples));
    minibatches_per_epoch_ = (n + batch_size_ - 1) / batch_size_;
    last_batch_size_ = *last_minibatch_size(dataset_samples, batch_size_);
    samples_per_epoch_ = n;
  }
  if (epochs_) {
    if (*epochs_ < 1) throw InputError(std::nullopt, "training.epochs", "must be >= 1");
    if (!minibatches_per_epoch_) {
      throw InputError(std::nullopt, "training.epochs", "epochs need a dataset with samples");
    }
  }
}

std::optional<std::size_t> last_minibatch_size(double dataset_samples, std::size_t batch_size) {
  if (!(dataset_samples >= 1) || !std::isfinite(dataset_samples) || batch_size < 1) {
    return std::nullopt;
  }
  const auto n = static_cast<std::uint64_t>(std::floor(dataset_samples));
  const std::uint64_t minibatches = (n + batch_size - 1) / batch_size;
  return static_cast<std::size_t>(n - (minibatches - 1) * batch_size);
}

bool TrainingJob::begin() {
  prepare_next();
  return data_ready_;
}

std::size_t TrainingJob::minibatch_size(std::uint64_t minibatch) const {
  if (minibatches_per_epoch_ &&
      minibatch % *minibatches_per_epoch_ == *minibatches_per_epoch_ - 1) {
    return last_batch_size_;
  }
  return batch_size_;
}

void TrainingJob::prepare_next() {
  if (finished_) return;
  const Time now = sim_.now();
  wanted_ = now;
  const std::optional<Time> known = pipeline_.ready_at(next_, now);
  if (!known) {
    data_ready_ = false;
    waiting_ = true;
    return;
  }
  const Time ready = std::max(*known, now);
  ready_at_ = ready;
  stall_ = ready - now;
  if (ready == now) {
    data_ready_ = true;
    return;
  }
  data_ready_ = false;
  sim_.schedule_at(ready, [this] {
    data_ready_ = true;
    on_ready_();
  });
}

void TrainingJob::data_arrived() {
  assert(waiting_ && "the pipeline notifies only a job waiting for it");
  waiting_ = false;
  const Time now = sim_.now();
  ready_at_ = now;
  stall_ = now - wanted_;
  data_ready_ = true;
  on_ready_();
}

void TrainingJob::start(Time now, StartedItem& started) {
  assert(has_ready_work());
  running_ = true;
  running_size_ = minibatch_size(next_);
  stall_total_ += stall_;
  data_ready_ = false;
  started.data = pipeline_.minibatch_data(next_);
  pipeline_.on_compute_start(next_, now);
  started.item.workload = &workload_;
  started.item.phase = models::Phase::training;
  started.item.batch_size = static_cast<int>(running_size_);
  started.item.host_share = pipeline_.training_host_share();
  started.id = next_;
  started.fetch_stall = stall_;
}

void TrainingJob::finish(Time now, Time /*standalone*/) {
  assert(running_);
  running_ = false;
  pipeline_.on_compute_end(next_, now);
  ++completed_;
  samples_ += static_cast<double>(running_size_);
  if (minibatches_per_epoch_ && (next_ + 1) % *minibatches_per_epoch_ == 0) {
    const Time epoch_time = now - epoch_start_;
    if (epochs_completed_ == 0) {
      first_epoch_ = min_epoch_ = max_epoch_ = epoch_time;
    } else {
      min_epoch_ = std::min(min_epoch_, epoch_time);
      max_epoch_ = std::max(max_epoch_, epoch_time);
    }
    last_epoch_ = epoch_time;
    epochs_total_ += epoch_time;
    const Time epoch_stall = stall_total_ - epoch_stall_start_;
    const std::optional<EpochData> data = pipeline_.epoch_data(epochs_completed_);
    if (epoch_summaries_.size() < kMaxSummaryEpochs) {
      epoch_summaries_.push_back(
          EpochSummary{epochs_completed_, to_seconds(epoch_time), to_seconds(epoch_stall),
                       data ? std::optional<double>(data->cache_hit_ratio()) : std::nullopt});
    }
    if (observer_ != nullptr) {
      observer_->on_epoch(EpochRecord{epochs_completed_, now, epoch_time, *minibatches_per_epoch_,
                                      samples_per_epoch_, epoch_stall, data});
    }
    ++epochs_completed_;
    epoch_start_ = now;
    epoch_stall_start_ = stall_total_;
    if (epochs_ && epochs_completed_ >= static_cast<std::uint64_t>(*epochs_)) finished_ = true;
  }
  ++next_;
  prepare_next();
}

std::optional<EpochTimeStats> TrainingJob::epoch_time_stats() const {
  if (epochs_completed_ == 0) return std::nullopt;
  EpochTimeStats stats;
  stats.first_s = to_seconds(first_epoch_);
  stats.last_s = to_seconds(last_epoch_);
  stats.mean_s = to_seconds(epochs_total_) / static_cast<double>(epochs_completed_);
  stats.min_s = to_seconds(min_epoch_);
  stats.max_s = to_seconds(max_epoch_);
  return stats;
}

}  // namespace fulcrum::sim
