#include "sim/runtime/training_job.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::sim {

TrainingJob::TrainingJob(const TrainingSpec& spec, const models::Workload& workload,
                         double dataset_samples, DataPipeline& pipeline, Simulator& sim,
                         ReadyFn on_ready)
    : spec_(spec),
      workload_(workload),
      pipeline_(pipeline),
      sim_(sim),
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
    last_batch_size_ = static_cast<std::size_t>(n - (*minibatches_per_epoch_ - 1) * batch_size_);
  }
  if (epochs_) {
    if (*epochs_ < 1) throw InputError(std::nullopt, "training.epochs", "must be >= 1");
    if (!minibatches_per_epoch_) {
      throw InputError(std::nullopt, "training.epochs", "epochs need a dataset with samples");
    }
  }
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
  const Time ready = std::max(pipeline_.ready_at(next_, now), now);
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

void TrainingJob::start(Time now, StartedItem& started) {
  assert(has_ready_work());
  running_ = true;
  running_size_ = minibatch_size(next_);
  stall_total_ += stall_;
  data_ready_ = false;
  pipeline_.on_compute_start(next_, now);
  started.item.workload = &workload_;
  started.item.phase = models::Phase::training;
  started.item.batch_size = static_cast<int>(running_size_);
  started.id = next_;
  started.fetch_stall = stall_;
}

void TrainingJob::finish(Time now, Time /*standalone*/) {
  assert(running_);
  running_ = false;
  ++completed_;
  samples_ += static_cast<double>(running_size_);
  if (minibatches_per_epoch_ && (next_ + 1) % *minibatches_per_epoch_ == 0) {
    epoch_time_s_.push_back(to_seconds(now - epoch_start_));
    epoch_start_ = now;
    if (epochs_ && static_cast<int>(epoch_time_s_.size()) >= *epochs_) finished_ = true;
  }
  ++next_;
  prepare_next();
}

}  // namespace fulcrum::sim
